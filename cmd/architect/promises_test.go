//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/architect-dev/architect/runlog/runlogtest"
	"github.com/matryer/is"
)

// The promises of issues 12 and 28 that only the whole binary shows: real
// processes, signals and git.

// --max-time holds through git: a pre-commit hook that sleeps 25 s does
// not keep a run with --max-time 4s going past its deadline (plus the few
// seconds git gets to stop).
func TestMaxTimeHoldsThroughGit(t *testing.T) {
	is := is.New(t)
	repo, agentDir := loopFixture(t, "write work.txt $ARCHITECT_ITERATION\nsay working\n")
	t.Cleanup(func() { killLeftovers(t, agentDir) }) // the hook's sleep, orphaned when git was stopped
	hook := filepath.Join(repo, ".git", "hooks", "pre-commit")
	is.NoErr(os.MkdirAll(filepath.Dir(hook), 0o755))
	is.NoErr(os.WriteFile(hook, []byte("#!/bin/sh\nsleep 25\n"), 0o755))
	start := time.Now()
	p := startLoop(t, agentDir, "loop", "task", "-C", repo, "--worktree", "--check", "true", "--agent-cmd", "fake-agent", "--max-time", "4")
	code := p.exit(t, 60*time.Second)
	took := time.Since(start)
	is.Equal(code, 1)
	if took > 15*time.Second {
		t.Fatalf("--max-time 4s ended after %s; stderr:\n%s", took, p.stderr)
	}
	ws := filepath.Join(repo, ".architect-ralph-worktree")
	is.Equal(runlogtest.Result(t, ws).StopReason, "timeout")
	is.True(strings.Contains(p.stderr.String(), "could not commit iteration 1"))
	is.Equal(len(runlogtest.Records(t, ws)), 1) // recorded all the same
}

// Every way of ending a running agent leaves its iteration on the record:
// in iterations.jsonl, result.json, the progress file and the report, with
// how it ended and the cost the agent had reported counted in the total.
func TestEveryStopRecordsTheIteration(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		signal  syscall.Signal
		reason  string // stop_reason
		ended   string // the record's interrupted, or "" for a timeout that ran the checks
		timeout bool   // agent_timed_out
		cost    float64
		exit    int
	}{
		{name: "SIGINT", signal: syscall.SIGINT, reason: "cancelled", ended: "signal", cost: 0.5, exit: 130},
		{name: "SIGTERM", signal: syscall.SIGTERM, reason: "cancelled", ended: "signal", cost: 0.5, exit: 130},
		{name: "max-time", args: []string{"--max-time", "3"}, reason: "timeout", ended: "max_time", cost: 0.5, exit: 1},
		{name: "max-cost", args: []string{"--max-cost", "0.4", "--agent-reports-cost"}, reason: "budget_exhausted", ended: "max_cost", cost: 0.5, exit: 1},
		{name: "inactivity", args: []string{"--inactivity-timeout", "1s", "--max-iterations", "1"}, reason: "max_iterations", timeout: true, cost: 0.5, exit: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			repo, agentDir := loopFixture(t, "write half.txt half\ncost 0.5\nreport\ntouch $WORK/started\nhang\n")
			args := append([]string{"loop", "task", "-C", repo, "--check", "true", "--agent-cmd", "fake-agent", "--kill-grace", "1s"}, tc.args...)
			p := startLoop(t, agentDir, args...)
			p.waitFile(t, filepath.Join(filepath.Dir(agentDir), "started"))
			if tc.signal != 0 {
				// The cost is read from the agent's result file as it runs.
				waitContains(t, filepath.Join(repo, ".architect", "current.json"), `"cost": 0.5`)
				is.NoErr(p.cmd.Process.Signal(tc.signal))
			}
			is.Equal(p.exit(t, 30*time.Second), tc.exit)
			res := runlogtest.Result(t, repo)
			is.Equal(res.StopReason, tc.reason)
			is.Equal(res.TotalIterations, 1)
			is.True(res.TotalCost != nil)
			is.Equal(*res.TotalCost, tc.cost)
			recs := runlogtest.Records(t, repo)
			is.Equal(len(recs), 1)
			it := res.Iterations[0]
			is.True(it.Cost != nil)
			is.Equal(*it.Cost, tc.cost)
			if tc.ended != "" {
				is.Equal(recs[0].Interrupted, tc.ended)
				is.Equal(it.Interrupted, tc.ended)
				is.Equal(it.ChecksRun, false)
			} else {
				is.Equal(it.AgentTimedOut, tc.timeout)
			}
			is.True(strings.Contains(it.DiffStat, "half.txt"))
			progress, err := os.ReadFile(filepath.Join(repo, ".architect", "ralph-progress.md"))
			is.NoErr(err)
			is.True(strings.Contains(string(progress), "## Iteration 1 — FAIL"))
			is.True(strings.Contains(string(progress), "- Cost: $0.5000"))
			_, _, code := architect(t, agentDir, "report", "-C", repo)
			is.Equal(code, 0)
			html, err := os.ReadFile(filepath.Join(repo, ".architect", "report.html"))
			is.NoErr(err)
			is.True(strings.Contains(string(html), "$0.50"))
			if tc.ended != "" {
				is.True(strings.Contains(string(html), "interrupted ("))
			}
			is.Equal(leftovers(agentDir), []string(nil))
		})
	}
}

// SIGKILL in the middle of an iteration whose agent reported $0.75, then
// --resume: the killed iteration is recorded once (interrupted: killed)
// with its $0.75, and the total counts it. Nothing is undercounted.
func TestCostKeptAfterSIGKILLAndResume(t *testing.T) {
	is := is.New(t)
	repo, agentDir := loopFixture(t, "")
	work := filepath.Dir(agentDir)
	is.NoErr(os.WriteFile(filepath.Join(agentDir, "iter-1.txt"), []byte("cost 0.25\nsay one\n"), 0o644))
	is.NoErr(os.WriteFile(filepath.Join(agentDir, "iter-2.txt"), []byte("write two.txt 2\ncost 0.75\nreport\ntouch $WORK/started\nhang\n"), 0o644))
	is.NoErr(os.WriteFile(filepath.Join(agentDir, "iter-3.txt"), []byte("cost 0.5\nsay <promise>COMPLETE</promise>\n"), 0o644))
	p := startLoop(t, agentDir, "loop", "task", "-C", repo, "--check", "true", "--agent-cmd", "fake-agent",
		"--max-cost", "10", "--agent-reports-cost", "--backoff-cap", "0.01")
	p.waitFile(t, filepath.Join(work, "started"))
	waitContains(t, filepath.Join(repo, ".architect", "current.json"), `"cost": 0.75`)
	is.NoErr(syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL))
	<-p.done
	killLeftovers(t, agentDir)

	_, stderr, code := architect(t, agentDir, "loop", "--resume", "-C", repo)
	if code != 0 {
		t.Fatalf("resume: exit %d; stderr:\n%s", code, stderr)
	}
	is.True(strings.Contains(stderr, "iteration 2 was interrupted when architect was killed: recorded (cost $0.7500)"))
	is.Equal(recordedIterations(t, repo), []int{1, 2, 3})
	res := runlogtest.Result(t, repo)
	is.True(res.TotalCost != nil)
	is.Equal(*res.TotalCost, 1.5) // 0.25 + 0.75 + 0.50
	is.Equal(res.Iterations[1].Interrupted, "killed")
	st := runlogtest.State(t, repo)
	is.True(st.TotalCost != nil)
	is.Equal(*st.TotalCost, 1.5)

	// The same without the poll having seen it: the result file the agent
	// left is read on resume.
	repo, agentDir = loopFixture(t, "write x.txt x\ncost 2\nreport\ntouch $WORK/started2\nhang\n")
	p = startLoop(t, agentDir, "loop", "task", "-C", repo, "--check", "true", "--agent-cmd", "fake-agent", "--max-iterations", "1")
	p.waitFile(t, filepath.Join(filepath.Dir(agentDir), "started2"))
	is.NoErr(syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL))
	<-p.done
	killLeftovers(t, agentDir)
	_, _, code = architect(t, agentDir, "loop", "--resume", "-C", repo)
	is.Equal(code, 1) // max_iterations: the killed iteration was the one allowed
	res = runlogtest.Result(t, repo)
	is.True(res.TotalCost != nil)
	is.Equal(*res.TotalCost, 2.0)
	is.Equal(res.TotalIterations, 1)
}

// The agent's duration after a timeout is the real time its run took: here
// its group outlives the leader's exit by the grace period.
func TestAgentDurationOnTimeoutIsRealTime(t *testing.T) {
	is := is.New(t)
	repo, agentDir := loopFixture(t, "")
	_, stderr, code := architect(t, agentDir, "loop", "task", "-C", repo, "--check", "true", "--max-iterations", "1",
		"--agent-cmd", `sh -c "trap '' TERM; exec sleep 30" & wait`, "--iteration-timeout", "1s", "--kill-grace", "2s")
	is.Equal(code, 1)
	it := runlogtest.Result(t, repo).Iterations[0]
	if d := it.AgentDuration; d < 2.5 {
		t.Fatalf("agent_duration %.2fs: the group ran for the 1 s timeout plus the 2 s grace; stderr:\n%s", d, stderr)
	}
	is.Equal(it.AgentTimedOut, true)
}

// Two quick `architect resume` of a paused loop: one resumes it, the other
// says it is not paused (the resume is on its way).
func TestTwoQuickResumes(t *testing.T) {
	is := is.New(t)
	repo, agentDir := loopFixture(t, "touch $WORK/started-$ARCHITECT_ITERATION\nwaitfor $WORK/go-$ARCHITECT_ITERATION\nsay working\n")
	work := filepath.Dir(agentDir)
	p := startLoop(t, agentDir, "loop", "task", "-C", repo, "--check", "false", "--agent-cmd", "fake-agent", "--idle-threshold", "0")
	p.waitFile(t, filepath.Join(work, "started-1"))
	_, _, code := architect(t, agentDir, "pause", "-C", repo)
	is.Equal(code, 0)
	touch(t, filepath.Join(work, "go-1"))
	p.waitOutput(t, "paused: the loop waits for `architect resume`")
	out1, err1, _ := architect(t, agentDir, "resume", "-C", repo)
	out2, err2, _ := architect(t, agentDir, "resume", "-C", repo)
	is.Equal(out1, "resumed ralph loop for "+repo+"\n")
	is.Equal(out2, "") // not a second "resumed"
	is.Equal(err1, "")
	is.Equal(err2, "architect: warning: ralph loop for "+repo+" is not paused\n")
	p.waitFile(t, filepath.Join(work, "started-2"))
	is.NoErr(p.cmd.Process.Signal(syscall.SIGINT))
	is.Equal(p.exit(t, 30*time.Second), 130)
}
