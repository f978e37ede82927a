package loop

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/checks"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/runlog"
)

// successReason is how a run that succeeds ends: all_checks_passed, or for
// a run without checks, agent_declared_complete_without_checks.
func (r *runner) successReason() string {
	if len(r.cfg.Checks) == 0 {
		return runlog.StopNoChecks
	}
	return runlog.StopSuccess
}

// succeeded reports whether an iteration allows the run to succeed once
// the agent declared completion: its checks all passed (a run without
// checks has none to pass), it changed no protected file, it was not
// interrupted and its agent could run at all. (An agent stopped by a
// timeout declares nothing: see iteration and completionSignal.)
func (r *runner) succeeded(rec record) bool {
	switch {
	case len(rec.ProtectedRestored) > 0, judgeFailed(rec.JudgeChanged), testsFailed(rec), rec.Interrupted != "",
		rec.ErrorKind == string(agent.ErrFatal), rec.ExitCode == agent.ExitWaiting:
		return false
	case len(r.cfg.Checks) == 0:
		return true
	}
	return rec.AllChecksPassed && rec.ChecksRun
}

// verdict is the decision reached before the iteration is recorded, so
// that the record says it: whether the iteration lets the run succeed,
// and which completion signal the agent gave. A successful iteration's
// record names its signal: a run killed before it saves the verdict
// resumes as the success it was.
func (r *runner) verdict(ctx context.Context, x *iteration) {
	x.ok = r.succeeded(x.rec)
	x.signal, x.signalErr = r.completionSignal(x.rec)
	if x.ok && x.signal != "" && x.signalErr == nil {
		// The last look: a success that holds only in the agent's tree
		// is none.
		x.ok = r.finalLook(ctx, x)
	}
	if x.ok && x.signalErr == nil {
		x.rec.CompletionSignal = x.signal
	}
}

// decide applies the verdict and the safety nets after the iteration is
// recorded; it reports whether the loop stops.
func (r *runner) decide(runCtx context.Context, x *iteration) bool {
	rec, o := x.rec, x.o
	it := rec.Iteration
	i := it.Iteration
	if o.ErrKind == agent.ErrFatal {
		// In the agent's own words, with what to do about it.
		msg := o.Err
		if o.Hint != "" {
			msg += " (hint: " + o.Hint + ")"
		}
		r.stop(runlog.StopAgentError, msg)
		r.res.StopHint = o.Hint
		return true
	}
	if o.ExitCode == agent.ExitWaiting {
		r.stop(runlog.StopWaiting, fmt.Sprintf("the agent exited with status %d: waiting without restart; continue with `architect loop --resume`", agent.ExitWaiting))
		return true
	}
	signal, ok := x.signal, x.ok
	if x.signalErr != nil {
		r.stop(runlog.StopError, x.signalErr.Error())
		return true
	}
	if fc := rec.FinalCheck; fc != nil && fc.Status == runlog.FinalError {
		r.logf("iteration %d/%d: completion signalled (%s) but %s", i, r.cfg.MaxIterations, signal, fc.Reason)
		r.stop(runlog.StopError, "the checks passed and the agent declared completion, but "+fc.Reason+
			"; no success is reported without it (--final-check same runs the last look in the workspace instead)")
		return true
	}
	switch {
	case signal != "" && ok:
		r.logf("iteration %d/%d: completion signalled (%s)", i, r.cfg.MaxIterations, signal)
	case signal != "":
		r.logf("iteration %d/%d: completion signalled (%s) but %s", i, r.cfg.MaxIterations, signal, r.notYet(rec))
	default:
		r.logf("iteration %d/%d: no completion signal", i, r.cfg.MaxIterations)
	}
	if signal != "" && ok {
		r.stop(r.successReason(), "")
		return true
	}
	if r.cfg.MaxCost > 0 && it.Cost == nil {
		r.stop(runlog.StopCostUnknown, fmt.Sprintf("the cost of iteration %d is unknown, so the $%.4f budget can no longer be enforced; "+
			"continue with `architect loop --resume --max-cost 0` to go on without a budget", i, r.cfg.MaxCost))
		return true
	}
	if _, err := os.Stat(r.ws.state(runlog.WaitFile)); err == nil {
		r.logEvent("WAIT", "iteration %d: %s present", i, runlog.WaitFile)
		r.stop(runlog.StopWaiting, r.ws.state(runlog.WaitFile)+" is present: waiting without restart; continue with `architect loop --resume`")
		return true
	}
	if n := r.cfg.IdleThreshold; n > 0 && r.st.IdleIterations >= n {
		what := fmt.Sprintf("%d iterations in a row", r.st.IdleIterations)
		if r.st.IdleIterations == 1 {
			what = "the last iteration"
		}
		r.stop(runlog.StopIdle, what+" changed nothing and left the checks as they were")
		return true
	}
	if r.checkStall() {
		return true
	}
	if o.ErrKind == agent.ErrUsageLimit {
		// The run did some work, then met the usage limit: recorded, and
		// waited out (or the next agent takes over) like any usage limit.
		return !r.limitHit(o)
	}
	if !rec.Failed {
		return false
	}
	if r.outageFallback(o) {
		return false // the next iteration runs on another agent, at once
	}
	n := r.st.ConsecutiveErrors
	if limit := r.cfg.MaxConsecutiveErrors; limit > 0 && n >= limit {
		r.logf("%d consecutive failures, stopping loop", n)
		r.stop(runlog.StopCircuitBreaker, fmt.Sprintf("%d agent runs failed in a row (last: %s)", n, firstLine(r.st.LastError)))
		return true
	}
	return !r.backoff(runCtx, rec, o, n)
}

// notYet says why a declared completion does not end the run.
func (r *runner) notYet(rec record) string {
	switch {
	case len(rec.ProtectedRestored) > 0:
		return "the agent changed protected files"
	case judgeFailed(rec.JudgeChanged):
		for _, c := range rec.JudgeChanged {
			if !c.Kept {
				return c.Text()
			}
		}
	case testsFailed(rec):
		return "the agent removed tests that were there at the start: " + listPaths(removedList(rec.TestsRemoved))
	case rec.AgentTimedOut:
		return "the agent was stopped by a timeout"
	case rec.FinalCheck.Failed():
		return "the last look failed: " + rec.FinalCheck.Reason
	}
	return "the checks do not pass yet"
}

// completionSignal returns which completion signal the iteration gave, if
// any: the tag, the DONE file, or the done pattern. An agent stopped by a
// timeout gives none: it did not finish.
func (r *runner) completionSignal(rec record) (string, error) {
	if rec.AgentTimedOut || rec.Interrupted != "" {
		return "", nil
	}
	if rec.CompletionTagFound {
		return "tag", nil
	}
	done, err := r.doneFileExists()
	if err != nil {
		return "", err
	}
	if done {
		return "done_file", nil
	}
	if rec.patternFound {
		return "done_pattern", nil
	}
	return "", nil
}

func (r *runner) donePath() string {
	if r.cfg.DoneFile == "" {
		return r.ws.state(runlog.DoneFile)
	}
	if filepath.IsAbs(r.cfg.DoneFile) {
		return r.cfg.DoneFile
	}
	return filepath.Join(r.ws.dir, r.cfg.DoneFile)
}

func (r *runner) doneFileExists() (bool, error) {
	fi, err := os.Stat(r.donePath())
	switch {
	case err == nil && fi.IsDir():
		return false, fmt.Errorf("the DONE file %s is a directory: remove it (the agent signals completion by creating a file there)", r.donePath())
	case err == nil:
		// A --done-file that was there before the run signals nothing until
		// it changes (see noteDoneFile).
		return r.st.DoneFileAtStart == "" || doneStamp(fi) != r.st.DoneFileAtStart, nil
	case os.IsNotExist(err):
		return false, nil
	}
	return false, err
}

// doneBeforeIteration checks the DONE file before an iteration (seed 001):
// when it is there, the checks run without the agent, and the loop ends
// with success if they all pass.
func (r *runner) doneBeforeIteration(ctx context.Context) bool {
	done, err := r.doneFileExists()
	if err != nil {
		r.stop(runlog.StopError, err.Error())
		return true
	}
	if !done || r.testsGoneBeforeDone() {
		return false
	}
	r.logf("%s is present: running the checks before starting an agent", r.donePath())
	r.save(runlog.PhaseChecks)
	rs := checks.Run(ctx, r.cfg.Checks, checks.Options{Dir: r.ws.dir, Timeout: r.cfg.CheckTimeout, Grace: r.cfg.KillGrace, Shell: r.cfg.CheckShell, Wrap: r.sb.CheckWrap()})
	for _, c := range rs {
		if !c.Passed {
			r.logf("the DONE file is present but %s fails (%s): continuing", c.Name, c.Status())
			return false
		}
	}
	if ctx.Err() != nil {
		return false
	}
	if mode := r.cfg.FinalCheck; mode != "" && mode != config.FinalCheckOff && len(r.cfg.Checks) > 0 {
		fc := r.look(ctx, len(r.records)+1, mode)
		switch {
		case fc.Status == runlog.FinalError:
			r.stop(runlog.StopError, "the DONE file is present and every check passes, but "+fc.Reason+
				"; no success is reported without it (--final-check same runs the last look in the workspace instead)")
			return true
		case fc.Failed():
			r.logf("the DONE file is present and every check passes, but the last look failed: continuing")
			return false
		}
		r.doneLook = fc // the look that let the run succeed
	}
	r.logEvent("DONE", "%s present and every check passes", r.donePath())
	detail := "the DONE file is present and every check passes"
	if len(r.cfg.Checks) == 0 {
		detail = "the DONE file is present (the run has no checks)"
	}
	r.stop(r.successReason(), detail)
	return true
}

// idleRun counts the iterations at the end of records that changed
// nothing: the same working tree as before (for the first iteration, as
// when the run began) and the same check results. A failed agent run is an
// agent error, not idleness, and an interrupted iteration is neither: both
// end the count.
func idleRun(records []record, initialTree string) int {
	n := 0
	for i := len(records) - 1; i >= 0; i-- {
		cur := records[i]
		prevTree, prevChecks := initialTree, cur.ChecksID
		if i > 0 {
			prevTree, prevChecks = records[i-1].Tree, records[i-1].ChecksID
		}
		if cur.Failed || cur.Interrupted != "" || cur.Tree == "" || cur.Tree != prevTree || cur.ChecksID != prevChecks {
			break
		}
		n++
	}
	return n
}
