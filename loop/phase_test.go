package loop

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/runlog"
	"github.com/matryer/is"
)

// The state is not written in the middle of an iteration, but whoever
// reads it (architect status) still sees the iteration running and its
// phase: the agent's, then the checks'. Each record is on disk, and the
// previous iteration's inflight file gone, before the next agent starts.
func TestPhaseWhileAnIterationRuns(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	cfg.MaxIterations = 3
	started, goOn := filepath.Join(t.TempDir(), "started"), filepath.Join(t.TempDir(), "go")
	// The second iteration's check says it runs, and waits for the test.
	cfg.Checks = []string{`if [ -f agent-2 ]; then touch ` + started + `; while [ ! -f ` + goOn + ` ]; do sleep 0.01; done; fi`}
	type seen struct {
		phase     string
		iteration int
		recorded  int
		inflight  int
		notes     int
	}
	var during []seen
	a := &scripted{outcomes: []agent.Outcome{{FinalMessage: "working"}}, edit: func(dir string, run int) {
		st, err := runlog.ReadStateNow(dir)
		is.NoErr(err)
		recs, err := runlog.ReadRecords(filepath.Join(dir, runlog.StateDir, runlog.RecordsFile))
		is.NoErr(err)
		f := runlog.ReadInflight(filepath.Join(dir, runlog.StateDir, runlog.InflightFile))
		is.True(f != nil)
		notes, err := runlog.PendingNotes(dir)
		is.NoErr(err)
		during = append(during, seen{st.Phase, st.Iteration, len(recs), f.Iteration, len(notes)})
		if run == 0 { // a note for the second prompt
			_, err := runlog.AddNote(dir, "use the fixtures", false)
			is.NoErr(err)
		}
		_ = os.WriteFile(filepath.Join(dir, "agent-"+string(rune('1'+run))), nil, 0o644)
	}}
	done := make(chan *runlog.Result, 1)
	go func() {
		res, err := Run(context.Background(), cfg, Deps{Agent: a})
		is.NoErr(err)
		done <- res
	}()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(started); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the second iteration's check never ran")
		}
	}
	st, err := runlog.ReadStateNow(cfg.Dir)
	is.NoErr(err)
	is.Equal(st.Phase, runlog.PhaseChecks) // the agent finished, the checks run
	is.Equal(st.Iteration, 2)
	is.NoErr(os.WriteFile(goOn, nil, 0o644))
	res := <-done
	is.Equal(res.StopReason, runlog.StopMaxIterations)
	// While each agent ran: its iteration and phase, the one before it
	// recorded, the inflight file its own, and the note the second prompt
	// carried in the queue until its record was on disk, out of it before
	// the third agent started.
	is.Equal(during, []seen{{runlog.PhaseAgent, 1, 0, 1, 0}, {runlog.PhaseAgent, 2, 1, 2, 1}, {runlog.PhaseAgent, 3, 2, 3, 0}})
	st, err = runlog.ReadStateNow(cfg.Dir)
	is.NoErr(err)
	is.Equal(st.Phase, runlog.PhaseFinished)
	_, err = os.Stat(filepath.Join(cfg.Dir, runlog.StateDir, runlog.InflightFile))
	is.True(os.IsNotExist(err)) // gone once the last record was on disk
}

// The progress file stays what the records say: appended to while it is
// as the loop left it, written again whole when someone changed it.
func TestProgressFileFollowsTheRecords(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	cfg.MaxIterations = 4
	a := &scripted{outcomes: []agent.Outcome{{FinalMessage: "working"}}, edit: func(dir string, run int) {
		if run == 2 { // the agent writes into it
			f, err := os.OpenFile(filepath.Join(dir, runlog.StateDir, runlog.ProgressFile), os.O_APPEND|os.O_WRONLY, 0)
			is.NoErr(err)
			_, _ = f.WriteString("## my own notes\n")
			is.NoErr(f.Close())
		}
	}}
	res, _, _ := run(t, cfg, a)
	is.Equal(res.TotalIterations, 4)
	want := ""
	for _, it := range res.Iterations {
		want += runlog.ProgressEntry(it)
	}
	got, err := os.ReadFile(filepath.Join(cfg.Dir, runlog.StateDir, runlog.ProgressFile))
	is.NoErr(err)
	is.Equal(string(got), want)
}
