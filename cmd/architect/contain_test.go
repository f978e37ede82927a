//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/architect-dev/architect/internal/testutil"
	"github.com/architect-dev/architect/proc"
	"github.com/architect-dev/architect/runlog/runlogtest"
	"github.com/matryer/is"
)

// Crash containment through the real binary: nothing an agent starts
// outlives architect, however it escaped and however architect ended
// (SIGKILL included), and a resume never runs an agent beside what a
// killed run left. Each test runs twice: with a run cgroup (where one can
// be made: root, or a delegated cgroup) and without one
// (ARCHITECT_NO_CGROUP=1: the children lists, the supervisor's process
// groups and its scan for the run marker).

var containModes = func() []string {
	modes := []string{"cgroup", "nocgroup"}
	if sandboxUsable() {
		modes = append(modes, "sandbox")
	}
	return modes
}()

// modeEnv is the environment that selects mode. "sandbox" is the cgroup's
// containment with the agent and the checks confined by the kernel, as a
// run told nothing is where Landlock is (the tests' markers in the shared
// temporary folder granted), with the fixture's file.txt protected, so
// that where user namespaces are on the agent starts in namespaces of its
// own (protected files read-only): the escapes must end the same way.
func modeEnv(mode string) []string {
	switch mode {
	case "nocgroup":
		return []string{"ARCHITECT_NO_CGROUP=1"}
	case "sandbox":
		return []string{"ARCHITECT_SANDBOX=workspace", "ARCHITECT_SANDBOX_WRITE=" + os.TempDir(), "ARCHITECT_PROTECT=file.txt"}
	}
	return nil
}

// campaign reports whether the full fault campaign was asked for
// (ARCHITECT_FAULT_CAMPAIGN=full): the CI runs a smaller one.
func campaign() bool { return os.Getenv("ARCHITECT_FAULT_CAMPAIGN") == "full" }

// supervisorOf returns the supervisor's pid recorded in the run's state,
// 0 if none is.
func supervisorOf(t *testing.T, repo string) int {
	t.Helper()
	return owner(t, repo).Supervisor
}

// owner is where the run in repo says its processes are (none: zero).
func owner(t *testing.T, repo string) proc.Owner {
	t.Helper()
	var o proc.Owner
	if st := runlogtest.State(t, repo); len(st.Processes) > 0 {
		if err := json.Unmarshal(st.Processes, &o); err != nil {
			t.Fatal(err)
		}
	}
	return o
}

// Killed with SIGKILL in the middle of an agent run whose processes
// escaped every way, architect leaves nothing running: within seconds,
// without architect's help, the agent and all it started are gone.
func TestKillNineEndsAgent(t *testing.T) {
	for _, mode := range containModes {
		t.Run(mode, func(t *testing.T) {
			is := is.New(t)
			repo, agentDir := loopFixture(t, "escape $WORK/pids\ntouch $WORK/started\nhang\n")
			work := filepath.Dir(agentDir)
			p := startLoopEnv(t, agentDir, modeEnv(mode), "loop", "task", "-C", repo, "--check", "true", "--agent-cmd", "fake-agent")
			pids := escapedPids(t, p, filepath.Join(work, "pids"))
			p.waitFile(t, filepath.Join(work, "started"))
			is.True(len(leftovers(agentDir)) > len(pids)) // architect, the agent and its escapes
			if mode == "sandbox" && readOnlyUsable() {
				// The agent and its escapes are in a user namespace of their own.
				ours, err := os.Readlink("/proc/self/ns/user")
				is.NoErr(err)
				theirs, err := os.Readlink("/proc/" + strconv.Itoa(pids[0]) + "/ns/user")
				is.NoErr(err)
				is.True(theirs != ours)
			}
			cg := owner(t, repo).Cgroup

			is.NoErr(syscall.Kill(p.cmd.Process.Pid, syscall.SIGKILL)) // architect alone
			<-p.done
			goneWithin(t, agentDir, pids, 5*time.Second, "after kill -9 of architect")
			if cg != "" {
				// The supervisor removes the run cgroup once it is empty,
				// which is just after its processes are gone.
				removedWithin(t, cg, 5*time.Second)
			}
		})
	}
}

// With architect and its supervisor both killed, what the agent left runs
// on until the next run in the workspace: a resume ends it first (and
// says so), so that its agent never runs beside the old one, and nothing
// of the old run writes to the workspace after the resumed run has ended.
func TestResumeEndsLeftovers(t *testing.T) {
	for _, mode := range containModes {
		t.Run(mode, func(t *testing.T) {
			is := is.New(t)
			repo, agentDir := loopFixture(t, "single $WORK/agent.lock\nescape $WORK/pids\ntouch $WORK/started\nhang\n")
			work := filepath.Dir(agentDir)
			file := func(name string) string { return filepath.Join(work, name) }
			p := startLoopEnv(t, agentDir, modeEnv(mode), "loop", "task", "-C", repo, "--check", "true",
				"--agent-cmd", "fake-agent", "--max-iterations", "3", "--kill-grace", "1s")
			pids := escapedPids(t, p, file("pids"))
			p.waitFile(t, file("started"))

			// The first line of defence is put out of action: the
			// supervisor is stopped before architect is killed, then killed.
			sup := supervisorOf(t, repo)
			if sup > 0 {
				is.NoErr(syscall.Kill(sup, syscall.SIGSTOP))
			}
			is.NoErr(syscall.Kill(p.cmd.Process.Pid, syscall.SIGKILL))
			<-p.done
			if sup > 0 {
				is.NoErr(syscall.Kill(sup, syscall.SIGKILL))
				t.Cleanup(func() { _ = syscall.Kill(sup, syscall.SIGKILL) })
			}
			for _, pid := range pids {
				is.True(testutil.Alive(pid)) // the old run's processes live on
			}

			// The resumed agent holds the same lock, declares completion and
			// exits.
			is.NoErr(os.WriteFile(filepath.Join(agentDir, "default.txt"), []byte("single $WORK/agent.lock\nsay <promise>COMPLETE</promise>\n"), 0o644))
			_, stderr, code := architectEnv(t, agentDir, modeEnv(mode), "loop", "--resume", "-C", repo)
			if exists(file("agent.lock.two")) {
				t.Fatalf("the resumed run's agent ran beside the killed run's; stderr:\n%s", stderr)
			}
			if code != 0 {
				t.Fatalf("resume: exit %d; stderr:\n%s", code, stderr)
			}
			if !strings.Contains(stderr, "was killed and left ") || !strings.Contains(stderr, "running: ended them (") {
				t.Fatalf("the resume did not say what it ended; stderr:\n%s", stderr)
			}
			// The killed iteration is on the record (interrupted: killed),
			// and the resumed run went on with the next.
			is.Equal(recordedIterations(t, repo), []int{1, 2})
			is.Equal(runlogtest.Result(t, repo).Iterations[0].Interrupted, "killed")
			is.Equal(leftovers(agentDir), []string(nil)) // nothing of either run runs
			for _, pid := range pids {
				is.True(!testutil.Alive(pid))
			}
			// And nothing writes: the old run's writer is gone.
			before, _ := os.Stat(file("orphan-writes"))
			time.Sleep(200 * time.Millisecond) // ten of its periods
			after, _ := os.Stat(file("orphan-writes"))
			is.Equal(before.Size(), after.Size())
		})
	}
}

// The escape campaign: an agent that leaves processes behind every way
// (fake-agent's escape), in runs ended every way: a normal end, the iteration
// timeout, the inactivity timeout, SIGINT, SIGTERM, and SIGKILL followed
// by a resume. After each, nothing of the run is left, and the iterations
// recorded are 1..n, none lost or doubled. The CI runs each way once per
// mode; ARCHITECT_FAULT_CAMPAIGN=full runs at least 100.
func TestEscapesEndedEveryWay(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a dozen loops")
	}
	ways := []string{"normal", "timeout", "inactivity", "sigint", "sigterm", "sigkill"}
	rounds := 1
	if campaign() {
		rounds = (100 + 2*len(ways) - 1) / (2 * len(ways))
	}
	// The runs go two at a time (go test's -parallel, GOMAXPROCS by
	// default): a run mostly waits for its timeouts and processes.
	var runs atomic.Int32
	t.Run("runs", func(t *testing.T) {
		for round := range rounds {
			for _, mode := range containModes {
				for _, way := range ways {
					t.Run(fmt.Sprintf("%d/%s/%s", round, mode, way), func(t *testing.T) {
						t.Parallel()
						escapeRun(t, mode, way)
						runs.Add(1)
					})
				}
			}
		}
	})
	t.Logf("%d runs ended with nothing left behind", runs.Load())
}

func escapeRun(t *testing.T, mode, way string) {
	is := is.New(t)
	const done = "single $WORK/agent.lock\nsay <promise>COMPLETE</promise>\n"
	// The line said after the escapes restarts the inactivity timeout: the
	// escapes take their time on a loaded machine.
	script := "single $WORK/agent.lock\nescape $WORK/pids\nsay escaped\ntouch $WORK/started\nhang\n"
	if way == "normal" {
		script = "single $WORK/agent.lock\nescape $WORK/pids\nsay <promise>COMPLETE</promise>\n"
	}
	repo, agentDir := loopFixture(t, script)
	work := filepath.Dir(agentDir)
	args := []string{"loop", "task", "-C", repo, "--check", "true", "--agent-cmd", "fake-agent",
		"--max-iterations", "1", "--kill-grace", "1s"}
	switch way {
	case "timeout":
		args = append(args, "--iteration-timeout", "5s")
	case "inactivity":
		args = append(args, "--inactivity-timeout", "2s")
	}
	p := startLoopEnv(t, agentDir, modeEnv(mode), args...)
	pids := escapedPids(t, p, filepath.Join(work, "pids"))
	want := map[string]int{"normal": 0, "timeout": 1, "inactivity": 1, "sigint": 130, "sigterm": 130}
	switch way {
	case "sigint", "sigterm":
		p.waitFile(t, filepath.Join(work, "started"))
		sig := map[string]syscall.Signal{"sigint": syscall.SIGINT, "sigterm": syscall.SIGTERM}[way]
		is.NoErr(p.cmd.Process.Signal(sig))
	case "sigkill":
		p.waitFile(t, filepath.Join(work, "started"))
		is.NoErr(syscall.Kill(p.cmd.Process.Pid, syscall.SIGKILL))
		<-p.done
		goneWithin(t, agentDir, pids, 5*time.Second, "after kill -9 of architect")
		is.NoErr(os.WriteFile(filepath.Join(agentDir, "default.txt"), []byte(done), 0o644))
		// The killed iteration is recorded at resume; one more is allowed.
		_, stderr, code := architectEnv(t, agentDir, modeEnv(mode), "loop", "--resume", "-C", repo, "--max-iterations", "2")
		if code != 0 {
			t.Fatalf("resume: exit %d; stderr:\n%s", code, stderr)
		}
	}
	if way != "sigkill" {
		if code := p.exit(t, 60*time.Second); code != want[way] {
			t.Fatalf("exit %d, want %d; stderr:\n%s", code, want[way], p.stderr)
		}
	}
	// Everything has ended by the time architect exits.
	is.Equal(leftovers(agentDir), []string(nil))
	for _, pid := range pids {
		is.True(!testutil.Alive(pid))
	}
	is.True(!exists(filepath.Join(work, "agent.lock.two"))) // one agent at a time
	var got []int
	if exists(filepath.Join(repo, ".architect", "iterations.jsonl")) {
		got = recordedIterations(t, repo)
	}
	for i, n := range got {
		is.Equal(n, i+1) // none lost, none doubled
	}
	// Every iteration that started is on the record, whatever ended it; a
	// killed one is recorded by the resume, which then runs the next.
	records := map[string]int{"normal": 1, "timeout": 1, "inactivity": 1, "sigint": 1, "sigterm": 1, "sigkill": 2}
	is.Equal(len(got), records[way])
}

// Every process of a run gets SIGTERM and the grace period, not only the
// agent itself: after a normal end, what the agent left running in the
// background is asked to stop (SIGTERM) before it is killed; on SIGINT, a
// process of the agent's group that holds no output pipe still has the
// grace period to clean up.
func TestGraceForWholeRun(t *testing.T) {
	child := func(onTerm string) string {
		return `sh -c 'trap "` + onTerm + `; exit 0" TERM; touch "$WORK/ready"; while :; do sleep 0.05; done' >/dev/null 2>&1 &
while [ ! -e "$WORK/ready" ]; do sleep 0.01; done
`
	}
	t.Run("normal end", func(t *testing.T) {
		is := is.New(t)
		repo, agentDir := loopFixture(t, "")
		work := filepath.Dir(agentDir)
		_, stderr, code := architect(t, agentDir, "loop", "task", "-C", repo, "--check", "true", "--agent-cmd",
			child(`echo termed > \"$WORK/left\"`)+"echo '<promise>COMPLETE</promise>'")
		if code != 0 {
			t.Fatalf("exit %d; stderr:\n%s", code, stderr)
		}
		b, err := os.ReadFile(filepath.Join(work, "left"))
		is.NoErr(err) // it had SIGTERM, not SIGKILL
		is.Equal(string(b), "termed\n")
		is.Equal(leftovers(agentDir), []string(nil))
	})
	t.Run("sigint", func(t *testing.T) {
		is := is.New(t)
		repo, agentDir := loopFixture(t, "")
		work := filepath.Dir(agentDir)
		p := startLoop(t, agentDir, "loop", "task", "-C", repo, "--check", "true", "--kill-grace", "30s", "--agent-cmd",
			child(`sleep 0.3; echo cleaned > \"$WORK/member\"`)+`touch "$WORK/started"; wait`)
		p.waitFile(t, filepath.Join(work, "started"))
		is.NoErr(p.cmd.Process.Signal(syscall.SIGINT))
		is.Equal(p.exit(t, 30*time.Second), 130)
		b, err := os.ReadFile(filepath.Join(work, "member"))
		is.NoErr(err) // it had the time to clean up
		is.Equal(string(b), "cleaned\n")
		is.Equal(leftovers(agentDir), []string(nil))
	})
}
