package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/architect-dev/architect/internal/testutil"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/runlog/runlogtest"
	"github.com/matryer/is"
	"github.com/rogpeppe/go-internal/testscript"
)

// jsonAt is the JSON value at path (dot-separated, numbers index arrays)
// in file, as jsonget walks it; ok is false when the path leads nowhere.
func jsonAt(ts *testscript.TestScript, file, path string) (v any, ok bool) {
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(file)), &v))
	for _, part := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			if v, ok = x[part]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// jsonlen FILE PATH N: the JSON array at PATH in FILE has N elements.
func cmdJSONLen(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: jsonlen FILE PATH N")
	}
	want, err := strconv.Atoi(args[2])
	ts.Check(err)
	v, ok := jsonAt(ts, args[0], args[1])
	a, isArray := v.([]any)
	if !ok || !isArray {
		ts.Fatalf("%s: %v is not an array", args[1], v)
	}
	if (len(a) == want) == neg {
		ts.Fatalf("%s has %d elements, want %s%d", args[1], len(a), map[bool]string{true: "not "}[neg], want)
	}
}

// jsonrange FILE PATH MIN MAX: the JSON value at PATH in FILE is a number
// from MIN to MAX (both included).
func cmdJSONRange(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 4 {
		ts.Fatalf("usage: jsonrange FILE PATH MIN MAX")
	}
	lo, err := strconv.ParseFloat(args[2], 64)
	ts.Check(err)
	hi, err := strconv.ParseFloat(args[3], 64)
	ts.Check(err)
	v, ok := jsonAt(ts, args[0], args[1])
	f, isNumber := v.(float64)
	if !ok || !isNumber {
		ts.Fatalf("%s: %v is not a number", args[1], v)
	}
	if (lo <= f && f <= hi) == neg {
		ts.Fatalf("%s = %v, want %sin [%v, %v]", args[1], f, map[bool]string{true: "not "}[neg], lo, hi)
	}
}

// SIGKILL in the middle of a round of three candidates, then a resume:
// nothing of the killed round runs on, the resumed run redoes the round
// once (the killed one on the record as interrupted: killed), never beside
// the killed round's agents, and once it has ended no candidate worktree
// is left. "supervisor": the run's supervisor ends the killed round's
// processes; "nosupervisor": it is stopped and killed too, so the resume
// must end them before it starts the round again.
func TestCandidatesKillNineResume(t *testing.T) {
	for _, mode := range []string{"supervisor", "nosupervisor"} {
		t.Run(mode, func(t *testing.T) {
			is := is.New(t)
			// Each candidate holds a lock of its own number while it runs
			// (a second holder would make lock-K.two), notes its round,
			// leaves a process in a session of its own, and hangs.
			repo, agentDir := loopFixture(t, "single $WORK/lock-$ARCHITECT_CANDIDATE\n"+
				"append $WORK/runs-$ARCHITECT_CANDIDATE $ARCHITECT_ITERATION\n"+
				"spawn $WORK/child-$ARCHITECT_CANDIDATE.pid\n"+
				"touch $WORK/started-$ARCHITECT_CANDIDATE\n"+
				"hang\n")
			work := filepath.Dir(agentDir)
			file := func(name string) string { return filepath.Join(work, name) }
			p := startLoop(t, agentDir, "loop", "task", "-C", repo, "--check", "true", "--agent-cmd", "fake-agent",
				"--candidates", "3", "--candidates-finish", "all", "--max-iterations", "3", "--kill-grace", "1s")
			var children []int
			for k := 1; k <= 3; k++ {
				p.waitFile(t, file("started-"+strconv.Itoa(k)))
				children = append(children, pidIn(t, p, file("child-"+strconv.Itoa(k)+".pid")))
			}

			sup := supervisorOf(t, repo)
			if mode == "nosupervisor" {
				is.True(sup > 0) // the run has a supervisor to put out of action
				is.NoErr(syscall.Kill(sup, syscall.SIGSTOP))
			}
			is.NoErr(syscall.Kill(p.cmd.Process.Pid, syscall.SIGKILL)) // architect alone
			<-p.done
			if mode == "nosupervisor" {
				is.NoErr(syscall.Kill(sup, syscall.SIGKILL))
				t.Cleanup(func() { _ = syscall.Kill(sup, syscall.SIGKILL) })
				for _, pid := range children {
					is.True(testutil.Alive(pid)) // the killed round's processes live on
				}
			} else {
				goneWithin(t, agentDir, children, 5*time.Second, "after kill -9 of architect mid-round")
			}

			// The resumed round's candidates declare completion at once.
			is.NoErr(os.WriteFile(filepath.Join(agentDir, "default.txt"), []byte("single $WORK/lock-$ARCHITECT_CANDIDATE\n"+
				"append $WORK/runs-$ARCHITECT_CANDIDATE $ARCHITECT_ITERATION\n"+
				"say <promise>COMPLETE</promise>\n"), 0o644))
			_, stderr, code := architect(t, agentDir, "loop", "--resume", "-C", repo)
			for k := 1; k <= 3; k++ {
				if exists(file("lock-" + strconv.Itoa(k) + ".two")) {
					t.Fatalf("candidate %d of the resumed round ran beside the killed round's; stderr:\n%s", k, stderr)
				}
			}
			if code != 0 {
				t.Fatalf("resume: exit %d; stderr:\n%s", code, stderr)
			}

			// Each candidate ran twice: in the killed round, and once in
			// its redo.
			for k := 1; k <= 3; k++ {
				b, err := os.ReadFile(file("runs-" + strconv.Itoa(k)))
				is.NoErr(err)
				is.Equal(string(b), "1\n2\n")
			}
			is.Equal(recordedIterations(t, repo), []int{1, 2})
			res := runlogtest.Result(t, repo)
			is.Equal(res.Iterations[0].Interrupted, "killed")
			is.True(res.Success)
			is.Equal(len(res.Iterations[1].Candidates), 3)
			kept := 0
			for _, c := range res.Iterations[1].Candidates {
				if c.Kept {
					kept++
				}
			}
			is.Equal(kept, 1)

			// Nothing of either run runs, and no candidate worktree is
			// left registered.
			goneWithin(t, agentDir, children, 5*time.Second, "after the resumed run")
			git := exec.Command("git", "-C", repo, "worktree", "list", "--porcelain")
			git.Env = append(os.Environ(), fixtureGitEnv(agentDir)...)
			out, err := git.CombinedOutput()
			is.NoErr(err)
			if strings.Contains(string(out), filepath.Join(runlog.StateDir, "candidates")) {
				t.Fatalf("candidate worktrees left after the run ended:\n%s", out)
			}
		})
	}
}

// Ctrl-C (SIGINT) in the middle of a round stops every candidate, and what
// each started in a session of its own, prints the result and exits 130;
// no candidate worktree stays registered.
func TestCandidatesInterruptStopsAll(t *testing.T) {
	is := is.New(t)
	repo, agentDir := loopFixture(t, "spawn $WORK/child-$ARCHITECT_CANDIDATE.pid\ntouch $WORK/started-$ARCHITECT_CANDIDATE\nhang\n")
	work := filepath.Dir(agentDir)
	p := startLoop(t, agentDir, "loop", "task", "-C", repo, "--check", "true", "--agent-cmd", "fake-agent", "--candidates", "3")
	var children []int
	for k := 1; k <= 3; k++ {
		p.waitFile(t, filepath.Join(work, "started-"+strconv.Itoa(k)))
		children = append(children, pidIn(t, p, filepath.Join(work, "child-"+strconv.Itoa(k)+".pid")))
	}

	is.NoErr(p.cmd.Process.Signal(syscall.SIGINT))
	is.Equal(p.exit(t, 10*time.Second), 130)
	is.True(strings.Contains(p.stderr.String(), "stopped on cancelled"))
	goneWithin(t, agentDir, children, 5*time.Second, "after SIGINT mid-round")
	is.Equal(runlogtest.Result(t, repo).StopReason, "cancelled")
	git := exec.Command("git", "-C", repo, "worktree", "list", "--porcelain")
	git.Env = append(os.Environ(), fixtureGitEnv(agentDir)...)
	out, err := git.CombinedOutput()
	is.NoErr(err)
	if strings.Contains(string(out), filepath.Join(runlog.StateDir, "candidates")) {
		t.Fatalf("candidate worktrees left after the run ended:\n%s", out)
	}
}

// pidIn waits until the file at path holds a pid (fake-agent's spawn
// writes it from the process it started, after the agent has gone on) and
// returns it.
func pidIn(t *testing.T, p *loopProc, path string) int {
	t.Helper()
	pid := 0
	p.await(t, path+" holding a pid", func() bool {
		b, _ := os.ReadFile(path)
		n, err := strconv.Atoi(strings.TrimSpace(string(b)))
		pid = n
		return err == nil && n > 0
	})
	return pid
}
