package loop

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/runlog"
)

// sameTestFails is a check that fails the same way every time, but for the
// duration a test runner prints.
const sameTestFails = `echo "--- FAIL: TestAdd (0.00$(date +%N | cut -c1-2)s)"; echo "    calc_test.go:9: Add(2, 3) = 6, want 5"; echo "FAIL	example.com/calc	0.0$(date +%N | cut -c1-2)s"; exit 1`

// writes is an agent that writes a file of its own each run (progress in
// the tree), then says outcome.
func writes(name string, outcome agent.Outcome) *named {
	return &named{name: name, outcomes: []agent.Outcome{outcome}, before: func(req agent.Request, run int) {
		_ = os.WriteFile(filepath.Join(req.Dir, fmt.Sprintf("%s-%d.txt", name, run)), []byte("work"), 0o644)
	}}
}

func stallConfig(t *testing.T, threshold int) config.Config {
	cfg := testConfig(t)
	gitInit(t, cfg.Dir)
	cfg.Checks = []string{sameTestFails}
	cfg.StallThreshold = threshold
	cfg.MaxIterations = 10
	return cfg
}

// The same check failing with the same output (timings aside), while the
// agent changes files every time, is a stall once --stall-threshold
// iterations in a row repeat the failure: the run stops on stalled, and
// the stall is in the result and the events.
func TestStallOnTheSameFailures(t *testing.T) {
	is := is.New(t)
	cfg := stallConfig(t, 3)
	res, _, events, _ := runFallback(t, cfg, writes("claude", agent.Outcome{FinalMessage: "fixed it, I think"}))
	is.Equal(res.StopReason, runlog.StopStalled)
	is.Equal(res.TotalIterations, 4) // iterations 2, 3 and 4 repeated iteration 1's failure
	is.Equal(len(res.Stalls), 1)
	is.Equal(res.Stalls[0], runlog.Stall{Iteration: 4, Kind: runlog.StallSameFailures, Iterations: 3, Agent: "claude", Action: "stop",
		Detail: "3 iterations in a row left the same checks failing with the same output"})
	st := eventsOf(events, runlog.EventStall)
	is.Equal(len(st), 1)
	is.Equal(st[0].StallKind, runlog.StallSameFailures)
	is.Equal(st[0].Count, 3)
	data, err := os.ReadFile(filepath.Join(cfg.Dir, runlog.StateDir, runlog.IterationsLog))
	is.NoErr(err)
	is.True(strings.Contains(string(data), "[STALL] iteration 4"))

	// 0 turns it off.
	cfg = stallConfig(t, 0)
	cfg.MaxIterations = 6
	res, _, _, _ = runFallback(t, cfg, writes("claude", agent.Outcome{FinalMessage: "fixed it, I think"}))
	is.Equal(res.StopReason, runlog.StopMaxIterations)
}

// No false alarm: an agent that changes different lines every time while
// the same test keeps failing for a new reason is making progress.
func TestNoStallWhenTheFailureChanges(t *testing.T) {
	is := is.New(t)
	cfg := stallConfig(t, 2)
	cfg.MaxIterations = 6
	cfg.Checks = []string{`echo "--- FAIL: TestAdd (0.00s)"; echo "    got $(cat progress.txt | wc -l) steps, want 99"; exit 1`}
	agentRun := &named{name: "claude", outcomes: []agent.Outcome{{FinalMessage: "one more step"}}, before: func(req agent.Request, run int) {
		f, _ := os.OpenFile(filepath.Join(req.Dir, "progress.txt"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		fmt.Fprintf(f, "step %d\n", run)
		f.Close()
	}}
	res, _, events, _ := runFallback(t, cfg, agentRun)
	is.Equal(res.StopReason, runlog.StopMaxIterations)
	is.Equal(len(res.Stalls), 0)
	is.Equal(len(eventsOf(events, runlog.EventStall)), 0)
}

// An agent that undoes its own change of two iterations back (the
// changes return to an earlier state) is going round in circles, even
// though the check's output changes each time.
func TestStallOnRevert(t *testing.T) {
	is := is.New(t)
	cfg := stallConfig(t, 2)
	cfg.Checks = []string{`if test -f x.txt; then echo "x.txt is wrong"; else echo "x.txt is missing"; fi; exit 1`}
	flip := &named{name: "claude", outcomes: []agent.Outcome{{FinalMessage: "done?"}}, before: func(req agent.Request, run int) {
		p := filepath.Join(req.Dir, "x.txt")
		if run%2 == 0 {
			_ = os.WriteFile(p, []byte("X\n"), 0o644)
		} else {
			_ = os.Remove(p)
		}
	}}
	res, _, _, _ := runFallback(t, cfg, flip)
	is.Equal(res.StopReason, runlog.StopStalled)
	is.Equal(res.TotalIterations, 3) // 2 back to the start, 3 back to iteration 1's change
	is.Equal(res.Stalls[0].Kind, runlog.StallReverted)
	is.True(strings.Contains(res.StopDetail, "undid its own work"))
}

// --on-stall fallback: the next agent takes over, and the count starts
// again.
func TestStallFallsBack(t *testing.T) {
	is := is.New(t)
	cfg := stallConfig(t, 2)
	cfg.Fallback = []string{"codex"}
	cfg.OnStall = config.StallFallback
	codex := &named{name: "codex", outcomes: []agent.Outcome{done}, before: func(req agent.Request, _ int) {
		_ = os.WriteFile(filepath.Join(req.Dir, "fixed"), nil, 0o644)
	}}
	cfg.Checks = []string{`test -f fixed || { echo "--- FAIL: TestAdd (0.01s)"; exit 1; }`}
	res, _, _, _ := runFallback(t, cfg, writes("claude", agent.Outcome{FinalMessage: "hm"}), codex)
	is.Equal(res.StopReason, runlog.StopSuccess)
	is.Equal(res.Stalls[0].Action, "fallback")
	is.Equal(res.Switches[0].Reason, runlog.SwitchStall)
	is.Equal(res.Iterations[len(res.Iterations)-1].Agent, "codex")
	st, err := runlog.ReadState(cfg.Dir)
	is.NoErr(err)
	is.True(st.Agents[0].Retired) // claude is not used again in this run

	// With no agent left, a stall stops the run.
	cfg = stallConfig(t, 2)
	cfg.Fallback = []string{"codex"}
	cfg.OnStall = config.StallFallback
	res, _, _, _ = runFallback(t, cfg, writes("claude", agent.Outcome{FinalMessage: "hm"}), writes("codex", agent.Outcome{FinalMessage: "hm"}))
	is.Equal(res.StopReason, runlog.StopStalled)
	is.Equal(len(res.Stalls), 2)
	is.True(strings.Contains(res.StopDetail, "no agent is left to fall back on"))
}

// --on-stall pause: the loop pauses and asks the person; a note resumes
// it, and the next prompt carries the note.
func TestStallPausesUntilANote(t *testing.T) {
	is := is.New(t)
	cfg := stallConfig(t, 2)
	cfg.OnStall = config.StallPause
	cfg.Checks = []string{`test -f fixed || { echo "--- FAIL: TestAdd (0.01s)"; exit 1; }`}
	clock := &fakeClock{now: time.Now()}
	var once sync.Once
	sleep := func(ctx context.Context, d time.Duration) error {
		if st, err := runlog.ReadState(cfg.Dir); err == nil && st.Status == runlog.StatusPaused {
			once.Do(func() { _, _ = runlog.AddNote(cfg.Dir, "the bug is in calc.go: Add multiplies", false) })
		}
		return clock.Sleep(ctx, d)
	}
	a := &named{name: "claude", outcomes: []agent.Outcome{{FinalMessage: "hm"}}, before: func(req agent.Request, run int) {
		_ = os.WriteFile(filepath.Join(req.Dir, fmt.Sprintf("try-%d", run)), nil, 0o644)
		if strings.Contains(req.Prompt, "Add multiplies") {
			_ = os.WriteFile(filepath.Join(req.Dir, "fixed"), nil, 0o644)
		}
	}}
	a.outcomes = []agent.Outcome{{FinalMessage: "hm"}, {FinalMessage: "hm"}, {FinalMessage: "hm"}, done}
	var events []runlog.Event
	res, err := Run(context.Background(), cfg, Deps{Agent: a, Now: clock.Now, Sleep: sleep, NewAgent: fallbacks(),
		Events: func(ev runlog.Event) { events = append(events, ev) }})
	is.NoErr(err)
	is.Equal(res.StopReason, runlog.StopSuccess)
	is.Equal(res.Stalls[0].Action, "pause")
	is.Equal(res.TotalIterations, 4)
	is.Equal(res.Iterations[3].Notes, []string{"the bug is in calc.go: Add multiplies"})
	p := eventsOf(events, runlog.EventPaused)
	is.Equal(len(p), 1)
	is.Equal(p[0].Reason, "stall")
	is.Equal(len(eventsOf(events, runlog.EventResumed)), 1)
}

func TestSameOutputMasksTimings(t *testing.T) {
	is := is.New(t)
	is.True(sameOutput("--- FAIL: TestAdd (0.00s)\nFAIL\tcalc\t0.003s\n", "--- FAIL: TestAdd (0.01s)\nFAIL\tcalc\t0.127s"))
	is.True(sameOutput("panic at 0xc000012345\n2026-11-24T06:19:22Z started", "panic at 0xc0000abcde\n2026-11-24T06:20:01.5Z started\n"))
	is.True(!sameOutput("Add(2, 3) = 6, want 5", "Add(2, 3) = 7, want 5")) // a new reason
	is.True(!sameOutput("FAIL a\nFAIL b", "FAIL a"))
	is.True(sameFailures([]runlog.CheckResult{{Name: "t", ExitCode: 1, Output: "x 1ms"}, {Name: "ok", Passed: true}},
		[]runlog.CheckResult{{Name: "t", ExitCode: 1, Output: "x 2ms"}}))
	is.True(!sameFailures([]runlog.CheckResult{{Name: "t", ExitCode: 1, Output: "x"}}, []runlog.CheckResult{{Name: "t", ExitCode: 2, Output: "x"}}))
	is.True(!sameFailures([]runlog.CheckResult{{Name: "t", ExitCode: 1}}, []runlog.CheckResult{{Name: "u", ExitCode: 1}}))
}
