package loop

import (
	"context"
	"errors"
	"fmt"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/runlog"
)

// stop is why the run ends: a reason (runlog.Stop*), its detail in words,
// and what to do about it; look is the last look that let the run succeed
// when the DONE file ended it before an iteration (no iteration holds it).
// The step that finds it returns it; the run's loop alone puts it on the
// result (finish).
type stop struct {
	reason, detail, hint string
	look                 *runlog.FinalCheck
}

func stopAt(reason, detail string) *stop { return &stop{reason: reason, detail: detail} }

// orStop is s, or a stop without a reason when there is none: the run
// ends without saying why (a record that did not reach the disk before
// any was written).
func orStop(s *stop) *stop {
	if s == nil {
		return &stop{}
	}
	return s
}

var errTimeUp = errors.New("max-time reached")

// successReason is how a run that succeeds ends: all_checks_passed, or for
// a run without checks, agent_declared_complete_without_checks.
func successReason(cfg config.Config) string {
	if len(cfg.Checks) == 0 {
		return runlog.StopNoChecks
	}
	return runlog.StopSuccess
}

// stopped says whether the loop was cancelled or ran out of time.
func (r *runner) stopped(ctx, runCtx context.Context) *stop {
	switch {
	case ctx.Err() != nil:
		return stopAt(runlog.StopCancelled, r.cancelText())
	case runCtx.Err() != nil:
		return stopAt(runlog.StopTimeout, fmt.Sprintf("max-time of %s reached", config.FormatDuration(r.cfg.MaxTime)))
	}
	return nil
}

// cancelText says who cancelled the run, when the control file says.
func (r *runner) cancelText() string {
	if r.ws.control() == "cancel" {
		return "cancelled with `architect cancel`"
	}
	return "interrupted"
}

// stopAsked stops the loop when a stop was asked (architect stop, the
// view's key).
func (r *runner) stopAsked() *stop {
	if r.ws.control() != runlog.ControlStop {
		return nil
	}
	r.logf("stopping after iteration %d, as asked", len(r.records))
	return stopAt(runlog.StopRequested, fmt.Sprintf("you asked for a stop after iteration %d", len(r.records)))
}

// between asks Deps.Between, before every iteration after the first,
// whether something outside the run ended it.
func (r *runner) between(ctx context.Context, i int) *stop {
	if r.deps.Between == nil || i == 1 {
		return nil
	}
	reason, detail := r.deps.Between(ctx, i-1)
	if reason == "" {
		return nil
	}
	r.logf("stopping after iteration %d: %s", i-1, detail)
	return stopAt(reason, detail)
}

// limitReached says whether iteration i may not start: past
// --max-iterations, or with --max-cost spent.
func (r *runner) limitReached(i int) *stop {
	if i > r.cfg.MaxIterations {
		return stopAt(runlog.StopMaxIterations, fmt.Sprintf("the limit of %d iterations was reached", r.cfg.MaxIterations)+r.testsStopNote()+lastLookFailed(r.records))
	}
	if overBudget(r.cfg, r.res.KnownCost) {
		return stopAt(runlog.StopBudget, fmt.Sprintf("spent $%.4f of the $%.4f budget", r.res.KnownCost, r.cfg.MaxCost))
	}
	return nil
}

// lastLookFailed says, for the stop detail, that the last iteration would
// have succeeded but for its last look; "" otherwise.
func lastLookFailed(records []record) string {
	n := len(records)
	if n == 0 || !records[n-1].FinalCheck.Failed() {
		return ""
	}
	return "; iteration " + fmt.Sprint(n) + "'s success did not stand: the last look " + records[n-1].FinalCheck.Status + ": " + records[n-1].FinalCheck.Reason
}

// overBudget reports whether what the run is known to have spent reached
// --max-cost.
func overBudget(cfg config.Config, spent float64) bool {
	return cfg.MaxCost > 0 && spent >= cfg.MaxCost
}

// interruptStop is why the loop ends after an interrupted iteration: the
// reason that interrupted it.
func (r *runner) interruptStop(ctx, runCtx context.Context, rec record) *stop {
	if rec.Interrupted == runlog.InterruptMaxCost {
		return stopAt(runlog.StopBudget, fmt.Sprintf("spent %s of the $%.4f budget: iteration %d was stopped when it reached it", r.res.Cost(), r.cfg.MaxCost, rec.Iteration.Iteration))
	}
	if s := r.stopped(ctx, runCtx); s != nil {
		return s
	}
	return stopAt(runlog.StopCancelled, "interrupted")
}

// waitEnded says why a wait ended early: cancellation, or max-time.
func (r *runner) waitEnded(ctx context.Context, doing string) *stop {
	if ctx.Err() != nil && !errors.Is(context.Cause(ctx), errTimeUp) {
		return stopAt(runlog.StopCancelled, r.cancelText()+" while "+doing)
	}
	return stopAt(runlog.StopTimeout, fmt.Sprintf("max-time of %s reached while %s", config.FormatDuration(r.cfg.MaxTime), doing))
}

// finalStatus is the state's status for a run that stopped for reason.
func finalStatus(reason string) string {
	switch reason {
	case runlog.StopSuccess, runlog.StopNoChecks:
		return runlog.StatusSucceeded
	case runlog.StopCancelled, runlog.StopRequested, runlog.StopIssueClosed:
		return runlog.StatusStopped
	case runlog.StopWaiting, runlog.StopQuestion:
		return runlog.StatusWaiting
	}
	return runlog.StatusFailed
}

// lastFinalCheck is the last look the run made, if any.
func lastFinalCheck(its []runlog.Iteration) *runlog.FinalCheck {
	for i := len(its) - 1; i >= 0; i-- {
		if its[i].FinalCheck != nil {
			return its[i].FinalCheck
		}
	}
	return nil
}
