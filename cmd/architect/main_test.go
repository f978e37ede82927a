//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/architect-dev/architect/cli"
	"github.com/architect-dev/architect/internal/testutil"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(withFakeAgent{m}, map[string]func(){
		"architect": func() { os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// withFakeAgent runs the tests with fake-agent (internal/fakeagent) on
// PATH, built once, without the race detector: the tests start it for
// every iteration of every run, and as a command of this race-built test
// binary it took some 30 times the CPU to start (a fifth of a second on
// a loaded machine). Its code is the tests' scaffolding, not architect's:
// architect itself stays the race-built test binary.
type withFakeAgent struct{ m *testing.M }

func (w withFakeAgent) Run() int {
	dir, err := os.MkdirTemp("", "architect-fake-agent-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "fake-agent"), "github.com/architect-dev/architect/internal/fakeagent")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build fake-agent: %v\n%s", err, out)
		return 1
	}
	// The tests' agents write outside their workspace on purpose (markers
	// in the test's folder): the sandbox is off for every architect they
	// start, unless a test turns it on (sandbox_*.txtar).
	if err := os.Setenv("ARCHITECT_SANDBOX", "off"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return w.m.Run()
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
			// The scripts start from their own environment: the
			// sandbox is off there too, unless a script turns it on.
			env.Setenv("ARCHITECT_SANDBOX", "off")
			env.Values[ghfakeKey{}] = &ghfakeHolder{}
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
			"jsonlen":   cmdJSONLen,
			"jsonrange": cmdJSONRange,
			"upstream":  cmdUpstream,
			"ghfake":    cmdGHFake,
		},
		Condition: func(cond string) (bool, error) {
			if cond == "ci" { // under CI, a missing tool fails a test instead of skipping it
				return os.Getenv("CI") == "true", nil
			}
			if cond == "landlock" { // Landlock with scoping (ABI 6): what --sandbox workspace needs
				return sandboxUsable(), nil
			}
			if cond == "readonly" { // protected files read-only to the agent (user and mount namespaces)
				return readOnlyUsable(), nil
			}
			if cond == "root" {
				return os.Geteuid() == 0, nil
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
	n, err := strconv.Atoi(pid)
	if err != nil {
		ts.Fatalf("pidgone: %q is not a pid", pid)
	}
	gone := !testutil.Alive(n)
	if gone == neg {
		ts.Fatalf("process %s: gone=%v, want %v", pid, gone, !neg)
	}
}
