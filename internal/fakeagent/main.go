//go:build unix

// Command fake-agent is a scriptable agent for architect's whole-binary
// tests (cmd/architect), which build it and put it on PATH. It reads the
// script for this run from $FAKE_AGENT_DIR/run-K.txt (the K-th run of the agent of
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
//	try VERB ARGS       run the verb; on an error, say it on stderr and go on
//	sh SCRIPT           run SCRIPT with sh -c (e.g. git add and commit)
//	kill PIDFILE        send SIGTERM to the pid in PIDFILE
//	dial HOST PORT      connect to HOST:PORT over TCP, then close
//	connect HOST PORT   ask the proxy in $HTTPS_PROXY to tunnel to HOST:PORT;
//	                    print its status line
//	serve PORTFILE      serve TCP on 127.0.0.1 (accept and close) and write the
//	                    port to PORTFILE; ends after 5 minutes
//
// A PORT written @FILE is read from FILE. With arguments, fake-agent runs
// them as its one script line instead (a check can be `fake-agent dial ...`).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() { os.Exit(fakeAgent()) }

func fakeAgent() int {
	dir := os.Getenv("FAKE_AGENT_DIR")
	it := os.Getenv("ARCHITECT_ITERATION")
	var script []byte
	err := os.ErrNotExist
	if len(os.Args) > 1 {
		script, err = []byte(strings.Join(os.Args[1:], " ")), nil
	} else if byRun, _ := filepath.Glob(filepath.Join(dir, "run-*.txt")); dir != "" && len(byRun) > 0 {
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
		trying = verb == "try"
		if trying {
			verb, arg, _ = strings.Cut(arg, " ")
		}
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
		case "sh":
			cmd := exec.Command("sh", "-c", arg)
			cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
			must(cmd.Run())
		case "kill":
			b, err := os.ReadFile(arg)
			must(err)
			pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
				must(fmt.Errorf("kill %d: %w", pid, err))
			} else {
				fmt.Println("killed", pid)
			}
		case "dial":
			c, err := net.Dial("tcp", net.JoinHostPort(path, port(text)))
			if err == nil {
				fmt.Println("connected to", c.RemoteAddr())
				_ = c.Close()
			}
			must(err)
		case "connect":
			must(proxyConnect(net.JoinHostPort(path, port(text))))
		case "serve":
			must(serve(arg))
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

// trying is set while a `try` line runs: its errors are said, not fatal.
var trying bool

func must(err error) {
	if err != nil && trying {
		fmt.Fprintln(os.Stderr, "fake-agent:", err)
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake-agent:", err)
		os.Exit(3)
	}
}

// port is p, or the port written in FILE for @FILE.
func port(p string) string {
	if f, ok := strings.CutPrefix(p, "@"); ok {
		b, err := os.ReadFile(f)
		must(err)
		return strings.TrimSpace(string(b))
	}
	return p
}

// proxyConnect asks the proxy in $HTTPS_PROXY for a tunnel to target.
func proxyConnect(target string) error {
	u, err := url.Parse(os.Getenv("HTTPS_PROXY"))
	if err != nil || u.Host == "" {
		return fmt.Errorf("no proxy in HTTPS_PROXY (%q)", os.Getenv("HTTPS_PROXY"))
	}
	c, err := net.Dial("tcp", u.Host)
	if err != nil {
		return err
	}
	defer c.Close()
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	status, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	status = strings.TrimSpace(status)
	fmt.Printf("CONNECT %s: %s\n", target, status)
	if !strings.Contains(status, " 200 ") {
		return fmt.Errorf("the proxy refused %s: %s", target, status)
	}
	return nil
}

// serve accepts and closes TCP connections on loopback, its port written
// to portFile, for 5 minutes at most.
func serve(portFile string) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	time.AfterFunc(5*time.Minute, func() { os.Exit(0) })
	tmp := portFile + ".tmp"
	if err := os.WriteFile(tmp, []byte(strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, portFile); err != nil {
		return err
	}
	for {
		c, err := ln.Accept()
		if err != nil {
			return err
		}
		_ = c.Close()
	}
}
