package loop

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/runlog"
	"github.com/matryer/is"
)

// Deps.Between is asked before every iteration after the first, and a
// reason it returns stops the run there, saved and resumable.
func TestBetweenStopsTheRunAfterTheIterationInProgress(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	cfg.Checks = []string{"false"} // never succeeds: only the hook can stop it early
	cfg.MaxIterations = 5
	var asked []int
	a := &scripted{outcomes: []agent.Outcome{{FinalMessage: "working"}}}
	clock := &fakeClock{now: time.Now()}
	res, err := Run(context.Background(), cfg, Deps{Agent: a, Log: &bytes.Buffer{}, Now: clock.Now, Sleep: clock.Sleep,
		Jitter: func(time.Duration) time.Duration { return 0 },
		Between: func(_ context.Context, done int) (string, string) {
			asked = append(asked, done)
			if done == 2 {
				return runlog.StopIssueClosed, "issue #3 was closed"
			}
			return "", ""
		}})
	is.NoErr(err)
	is.Equal(asked, []int{1, 2}) // not before the first iteration
	is.Equal(a.runs, 2)          // no agent after the stop
	is.Equal(res.StopReason, runlog.StopIssueClosed)
	is.Equal(res.StopDetail, "issue #3 was closed")
	is.Equal(res.TotalIterations, 2)
	st, err := runlog.ReadState(cfg.Dir)
	is.NoErr(err)
	is.Equal(st.Status, runlog.StatusStopped)
	is.True(st.Interrupted(false)) // --resume continues it
}
