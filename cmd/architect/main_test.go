package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/architect-dev/architect/cli"
	"github.com/architect-dev/architect/internal/testutil"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"architect":  func() { os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"fake-agent": func() { os.Exit(fakeAgent()) },
	})
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, ".home")
			if err := os.MkdirAll(home, 0o755); err != nil {
				return err
			}
			gitconfig := filepath.Join(home, ".gitconfig")
			if err := os.WriteFile(gitconfig, []byte("[user]\n\tname = Test\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n"), 0o644); err != nil {
				return err
			}
			env.Setenv("HOME", home)
			env.Setenv("GIT_CONFIG_GLOBAL", gitconfig)
			env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
				if v, err := exec.Command("go", "env", k).Output(); err == nil {
					env.Setenv(k, strings.TrimSpace(string(v)))
				}
			}
			env.Setenv("GOTOOLCHAIN", "local")
			// Race-built helpers otherwise sleep 1 s at exit, longer than
			// some of the timeouts the scripts use.
			env.Setenv("GORACE", "atexit_sleep_ms=0")
			env.Setenv("GOFLAGS", "-mod=mod")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"waitfile":  cmdWaitFile,
			"jsonget":   cmdJSONGet,
			"gitrepo":   cmdGitRepo,
			"pidgone":   cmdPidGone,
			"archfiles": cmdArchFiles,
			"tmuxwait":  cmdTmuxWait,
			"mkpath":    cmdMkPath,
		},
		Condition: func(cond string) (bool, error) {
			if cond == "ci" { // under CI, a missing tool fails a test instead of skipping it
				return os.Getenv("CI") == "true", nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	})
}

// waitfile FILE [SECONDS]: wait until FILE exists (default deadline 30 s).
func cmdWaitFile(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 {
		ts.Fatalf("usage: waitfile FILE [SECONDS]")
	}
	limit := 30 * time.Second
	if len(args) > 1 {
		n, _ := strconv.Atoi(args[1])
		limit = time.Duration(n) * time.Second
	}
	if testutil.Until(limit, func() bool { return exists(ts.MkAbs(args[0])) }) {
		return
	}
	ts.Fatalf("%s did not appear within %s", args[0], limit)
}

// jsonget FILE PATH WANT: the JSON value at PATH (dot-separated, numbers
// index arrays) in FILE, printed compactly, equals WANT.
func cmdJSONGet(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: jsonget FILE PATH WANT")
	}
	var v any
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(args[0])), &v))
	for _, part := range strings.Split(args[1], ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[part]
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i >= len(x) {
				ts.Fatalf("%s: no element %s", args[1], part)
			}
			v = x[i]
		default:
			ts.Fatalf("%s: cannot index %T with %s", args[1], v, part)
		}
	}
	got, _ := json.Marshal(v)
	if (string(got) == args[2]) == neg {
		ts.Fatalf("%s = %s, want %s%s", args[1], got, map[bool]string{true: "not "}[neg], args[2])
	}
}

// gitrepo DIR: make DIR a git repository with everything in it committed.
func cmdGitRepo(ts *testscript.TestScript, neg bool, args []string) {
	dir := ts.MkAbs(args[0])
	for _, a := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "-m", "initial", "--allow-empty"}} {
		cmd := exec.Command("git", append([]string{"-C", dir}, a...)...)
		cmd.Env = append(os.Environ(), "HOME="+ts.Getenv("HOME"), "GIT_CONFIG_GLOBAL="+ts.Getenv("GIT_CONFIG_GLOBAL"),
			"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z")
		if out, err := cmd.CombinedOutput(); err != nil {
			ts.Fatalf("git %v: %v\n%s", a, err, out)
		}
	}
}

// pidgone FILE: the process whose pid FILE holds has ended (gone, or a
// zombie waiting to be reaped by init).
func cmdPidGone(ts *testscript.TestScript, neg bool, args []string) {
	pid := strings.TrimSpace(ts.ReadFile(args[0]))
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	gone := err != nil
	if err == nil {
		// The state is the field after the parenthesised command name.
		s := string(stat)
		if i := strings.LastIndexByte(s, ')'); i >= 0 && len(s) > i+2 {
			gone = s[i+2] == 'Z' || s[i+2] == 'X'
		}
	}
	if gone == neg {
		ts.Fatalf("process %s: gone=%v, want %v", pid, gone, !neg)
	}
}

// fakeAgent is a scriptable agent for the tests. It reads the script for
// this run from $FAKE_AGENT_DIR/run-K.txt (the K-th run of the agent of
// that folder: a usage limit runs the same iteration again), else
// iter-N.txt (iteration N), else default.txt, and runs its lines in order:
//
//	write PATH TEXT     write TEXT (\n escapes allowed) to PATH
//	rm PATH             remove PATH
//	say TEXT            print TEXT on stdout (the final message; \n and \e escapes)
//	cost USD / steps N  report cost and steps through ARCHITECT_RESULT_FILE
//	report              write the result file now (as an agent that reports as it goes)
//	append PATH TEXT    append TEXT and a newline to PATH
//	next PREFIX N       write the first missing PREFIX-k.txt (k = 1..N, content k) and
//	                    say which; with all N there, say <promise>COMPLETE</promise>
//	prompt PATH         copy the prompt received on stdin to PATH
//	touch PATH          create PATH (e.g. to tell the test it is running)
//	hang                sleep until killed
//	spawn PIDFILE       start a `sleep 1000` in a new session, write its pid
//	waitfor PATH        wait until PATH exists (the test lets the agent go on)
//	ignoreterm PATH     ignore SIGTERM from now on, creating PATH when one arrives
//	escape PIDFILE      leave processes behind every way (the background,
//	                    nohup, setsid, a double fork, SIGTERM ignored, both),
//	                    their pids in PIDFILE, and a setsid'd process that
//	                    appends a line to $WORK/orphan-writes every 20 ms
//	single PATH         hold an exclusive lock on PATH while running; if another
//	                    agent holds it, create PATH.two and exit 1
//	kind KIND           report an error of this kind (usage_limit, outage, fatal)
//	error TEXT          report this error message
//	retry SECONDS       report when a usage limit lifts (retry_after_seconds)
//	hint TEXT           report what to do about a fatal error
//	exit N              exit with status N
func fakeAgent() int {
	dir := os.Getenv("FAKE_AGENT_DIR")
	it := os.Getenv("ARCHITECT_ITERATION")
	var script []byte
	err := os.ErrNotExist
	if byRun, _ := filepath.Glob(filepath.Join(dir, "run-*.txt")); dir != "" && len(byRun) > 0 {
		// Runs are counted only for scripts written by run.
		runs, _ := os.ReadFile(filepath.Join(dir, ".runs"))
		k, _ := strconv.Atoi(strings.TrimSpace(string(runs)))
		k++
		_ = os.WriteFile(filepath.Join(dir, ".runs"), []byte(strconv.Itoa(k)), 0o644)
		script, err = os.ReadFile(filepath.Join(dir, "run-"+strconv.Itoa(k)+".txt"))
	}
	if err != nil {
		script, err = os.ReadFile(filepath.Join(dir, "iter-"+it+".txt"))
	}
	if err != nil {
		script, err = os.ReadFile(filepath.Join(dir, "default.txt"))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake-agent: no script for iteration", it)
		return 3
	}
	prompt, _ := io.ReadAll(os.Stdin)
	result := map[string]any{}
	sc := bufio.NewScanner(strings.NewReader(string(script)))
	for sc.Scan() {
		verb, arg, _ := strings.Cut(os.ExpandEnv(strings.TrimSpace(sc.Text())), " ")
		path, text, _ := strings.Cut(arg, " ")
		text = strings.ReplaceAll(text, `\n`, "\n")
		switch verb {
		case "", "#":
		case "write":
			must(os.MkdirAll(filepath.Dir(path), 0o755))
			must(os.WriteFile(path, []byte(text), 0o644))
		case "rm":
			must(os.Remove(path))
		case "say":
			fmt.Println(strings.NewReplacer(`\n`, "\n", `\e`, "\x1b").Replace(arg))
			result["final_message"] = strings.ReplaceAll(arg, `\n`, "\n")
		case "cost":
			f, _ := strconv.ParseFloat(arg, 64)
			result["cost_usd"] = f
		case "steps":
			n, _ := strconv.Atoi(arg)
			result["steps"] = n
		case "prompt":
			must(os.WriteFile(arg, prompt, 0o644))
		case "report":
			writeResult(result)
		case "append":
			f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			must(err)
			_, err = f.WriteString(text + "\n")
			must(err)
			must(f.Close())
		case "next":
			n, _ := strconv.Atoi(text)
			msg := "<promise>COMPLETE</promise>"
			for k := 1; k <= n; k++ {
				name := fmt.Sprintf("%s-%d.txt", path, k)
				if _, err := os.Stat(name); err == nil {
					continue
				}
				must(os.WriteFile(name, []byte(strconv.Itoa(k)), 0o644))
				if k < n {
					msg = fmt.Sprintf("did step %d", k)
				}
				break
			}
			fmt.Println(msg)
			result["final_message"] = msg
		case "touch":
			must(os.WriteFile(arg, nil, 0o644))
		case "hang":
			time.Sleep(time.Hour)
		case "spawn":
			cmd := exec.Command("setsid", "-f", "sh", "-c", "echo $$ > "+arg+"; exec sleep 1000")
			must(cmd.Run())
		case "waitfor":
			for {
				if _, err := os.Stat(arg); err == nil {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
		case "ignoreterm":
			ch := make(chan os.Signal, 1)
			signal.Notify(ch, syscall.SIGTERM)
			go func() {
				for range ch {
					_ = os.WriteFile(arg, nil, 0o644)
				}
			}()
		case "escape":
			_ = os.Remove(arg)
			cmd := exec.Command("sh", "-c", escapeScript, "escape", arg)
			cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
			must(cmd.Run())
		case "single":
			f, err := os.OpenFile(arg, os.O_CREATE|os.O_RDWR, 0o644)
			must(err)
			if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
				must(os.WriteFile(arg+".two", []byte(strconv.Itoa(os.Getpid())), 0o644))
				return 1
			}
			held = append(held, f) // the lock lasts as long as this process
		case "kind":
			result["error_kind"] = arg
		case "error":
			result["error"] = arg
		case "hint":
			result["hint"] = arg
		case "retry":
			f, _ := strconv.ParseFloat(arg, 64)
			result["retry_after_seconds"] = f
		case "exit":
			n, _ := strconv.Atoi(arg)
			writeResult(result)
			return n
		default:
			fmt.Fprintln(os.Stderr, "fake-agent: unknown verb", verb)
			return 3
		}
	}
	writeResult(result)
	return 0
}

// held keeps the files whose locks the agent holds open.
var held []*os.File

// escapeScript leaves processes behind every way an agent can, writes
// their pids to $1 (seven lines once all are running) and returns. It
// says what it does as it goes: on a loaded machine this takes a while,
// and an inactivity timeout must not end the agent meanwhile.
const escapeScript = `
sleep 1000 & echo $! >> "$1"; echo escaped: background
nohup sleep 1000 >/dev/null 2>&1 & echo $! >> "$1"; echo escaped: nohup
setsid sleep 1000 >/dev/null 2>&1 & echo $! >> "$1"; echo escaped: setsid
sh -c 'sleep 1000 >/dev/null 2>&1 & echo $! >> "$1"' double "$1" & echo escaped: double fork
sh -c 'trap "" TERM; echo $$ >> "$1"; exec sleep 1000' ignore "$1" >/dev/null 2>&1 & echo escaped: SIGTERM ignored
setsid sh -c 'trap "" TERM HUP; echo $$ >> "$1"; while :; do sleep 1; done' both "$1" >/dev/null 2>&1 & echo escaped: setsid, SIGTERM ignored
setsid sh -c 'echo $$ >> "$1"; while :; do echo x >> "$WORK/orphan-writes"; sleep 0.02; done' writer "$1" >/dev/null 2>&1 & echo escaped: writer
while [ "$(wc -l < "$1")" -lt 7 ]; do echo waiting for the escapes; sleep 0.01; done
`

func writeResult(r map[string]any) {
	if len(r) == 0 || os.Getenv("ARCHITECT_RESULT_FILE") == "" {
		return
	}
	if _, ok := r["final_message"]; !ok {
		r["final_message"] = ""
	}
	data, _ := json.Marshal(r)
	must(os.WriteFile(os.Getenv("ARCHITECT_RESULT_FILE"), data, 0o644))
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake-agent:", err)
		os.Exit(3)
	}
}
