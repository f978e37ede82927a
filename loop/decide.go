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

// succeeded reports whether an iteration allows the run to succeed once
// the agent declared completion: its checks all passed (a run without
// checks has none to pass), it changed no protected file, it was not
// interrupted and its agent could run at all. (An agent stopped by a
// timeout declares nothing: see iteration and completionSignal.)
func succeeded(cfg config.Config, rec record) bool {
	switch {
	case len(rec.ProtectedRestored) > 0, judgeFailed(rec.JudgeChanged), testsFailed(rec), rec.Interrupted != "",
		rec.ErrorKind == string(agent.ErrFatal), rec.ExitCode == agent.ExitWaiting:
		return false
	case len(cfg.Checks) == 0:
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
	x.ok = succeeded(r.cfg, x.rec)
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

// decision is what the decision step concluded on a recorded iteration,
// for the run's loop to carry out (act, run.go): the run stops (stop); the
// last iterations went round in circles (stall: recorded, then acted on
// as --on-stall says); the agent met its usage limit after doing some
// work (limit: set aside like any usage limit); an agent in an outage
// makes way for another (outage: its failures in a row); or the
// backoff-th failure in a row is waited out. The zero value goes on at
// once.
type decision struct {
	stop    *stop
	stall   *runlog.Stall
	limit   bool
	outage  int
	backoff int
	// question: the agent asked the person running the loop a question;
	// the run waits for the answer.
	question bool
}

// decide is the decision step: the verdict and the safety nets, applied
// after the iteration is recorded.
func (r *runner) decide(x *iteration) decision {
	if s := r.iterationStop(x); s != nil {
		return decision{stop: s}
	}
	if x.rec.Question != "" {
		return decision{question: true}
	}
	d := decision{stall: r.stallSeen()}
	rec, o := x.rec, x.o
	switch {
	case o.ErrKind == agent.ErrUsageLimit:
		d.limit = true
	case !rec.Failed:
	default:
		if n, ok := r.outageDue(o); ok {
			d.outage = n
			break
		}
		n := r.st.ConsecutiveErrors
		if limit := r.cfg.MaxConsecutiveErrors; limit > 0 && n >= limit {
			r.logf("%d consecutive failures, stopping loop", n)
			d.stop = stopAt(runlog.StopCircuitBreaker, fmt.Sprintf("%d agent runs failed in a row (last: %s)", n, runlog.FirstLine(r.st.LastError)))
			break
		}
		d.backoff = n
	}
	return d
}

// iterationStop is why the run ends with iteration x: its agent cannot go
// on, it succeeded, or a safety net (an unknown cost under a budget, the
// WAIT file, idleness) holds; nil when none does.
func (r *runner) iterationStop(x *iteration) *stop {
	if s := r.agentStop(x); s != nil {
		return s
	}
	i, signal := x.n, x.signal
	switch {
	case signal != "" && x.ok:
		r.logf("iteration %d/%d: completion signalled (%s)", i, r.cfg.MaxIterations, signal)
		return stopAt(successReason(r.cfg), "")
	case signal != "":
		r.logf("iteration %d/%d: completion signalled (%s) but %s", i, r.cfg.MaxIterations, signal, notYet(x.rec))
	default:
		r.logf("iteration %d/%d: no completion signal", i, r.cfg.MaxIterations)
	}
	return r.safetyStop(x)
}

// agentStop is why the run ends because of what the agent did: a fatal
// error, the exit status that asks to wait, a completion signal that could
// not be looked for, a last look that could not be made.
func (r *runner) agentStop(x *iteration) *stop {
	o := x.o
	switch {
	case o.ErrKind == agent.ErrFatal:
		// In the agent's own words, with what to do about it.
		msg := o.Err
		if o.Hint != "" {
			msg += " (hint: " + o.Hint + ")"
		}
		return &stop{reason: runlog.StopAgentError, detail: msg, hint: o.Hint}
	case o.ExitCode == agent.ExitWaiting:
		return stopAt(runlog.StopWaiting, fmt.Sprintf("the agent exited with status %d: waiting without restart; continue with `architect loop --resume`", agent.ExitWaiting))
	case x.signalErr != nil:
		return stopAt(runlog.StopError, x.signalErr.Error())
	}
	if fc := x.rec.FinalCheck; fc != nil && fc.Status == runlog.FinalError {
		r.logf("iteration %d/%d: completion signalled (%s) but %s", x.n, r.cfg.MaxIterations, x.signal, fc.Reason)
		return stopAt(runlog.StopError, "the checks passed and the agent declared completion, but "+fc.Reason+
			"; no success is reported without it (--final-check same runs the last look in the workspace instead)")
	}
	return nil
}

// safetyStop is why the run ends after an iteration that did not
// succeed: its cost is unknown under a budget, the agent left the WAIT
// file, or the last iterations changed nothing (--idle-threshold).
func (r *runner) safetyStop(x *iteration) *stop {
	i := x.n
	if r.cfg.MaxCost > 0 && x.rec.Cost == nil {
		return stopAt(runlog.StopCostUnknown, fmt.Sprintf("the cost of iteration %d is unknown, so the $%.4f budget can no longer be enforced; "+
			"continue with `architect loop --resume --max-cost 0` to go on without a budget", i, r.cfg.MaxCost))
	}
	if _, err := os.Stat(r.ws.state(runlog.WaitFile)); err == nil {
		r.logEvent("WAIT", "iteration %d: %s present", i, runlog.WaitFile)
		return stopAt(runlog.StopWaiting, r.ws.state(runlog.WaitFile)+" is present: waiting without restart; continue with `architect loop --resume`")
	}
	if n := r.cfg.IdleThreshold; n > 0 && r.st.IdleIterations >= n {
		what := fmt.Sprintf("%d iterations in a row", r.st.IdleIterations)
		if r.st.IdleIterations == 1 {
			what = "the last iteration"
		}
		return stopAt(runlog.StopIdle, what+" changed nothing and left the checks as they were")
	}
	return nil
}

// notYet says why a declared completion does not end the run.
func notYet(rec record) string {
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
	return r.completionSignalIn(rec, r.ws)
}

// completionSignalIn is completionSignal for an agent that ran in ws (a
// candidate's worktree holds its own DONE file).
func (r *runner) completionSignalIn(rec record, ws *workspace) (string, error) {
	if rec.AgentTimedOut || rec.Interrupted != "" {
		return "", nil
	}
	if rec.CompletionTagFound {
		return "tag", nil
	}
	done, err := r.doneFileIn(ws)
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

func donePath(cfg config.Config, ws *workspace) string {
	if cfg.DoneFile == "" {
		return ws.state(runlog.DoneFile)
	}
	if filepath.IsAbs(cfg.DoneFile) {
		return cfg.DoneFile
	}
	return filepath.Join(ws.dir, cfg.DoneFile)
}

func (r *runner) doneFileExists() (bool, error) { return r.doneFileIn(r.ws) }

func (r *runner) doneFileIn(ws *workspace) (bool, error) {
	fi, err := os.Stat(donePath(r.cfg, ws))
	switch {
	case err == nil && fi.IsDir():
		return false, fmt.Errorf("the DONE file %s is a directory: remove it (the agent signals completion by creating a file there)", donePath(r.cfg, ws))
	case err == nil:
		// A --done-file that was there before the run signals nothing until
		// it changes (see noteDoneFile).
		return r.st.DoneFileAtStart == "" || doneStamp(fi) != r.st.DoneFileAtStart, nil
	case os.IsNotExist(err):
		return false, nil
	}
	return false, err
}

// doneBeforeIteration checks the DONE file before an iteration: when it
// is there, the checks run without the agent, and the loop ends with
// success if they all pass (and the last look, when one is made, too).
func (r *runner) doneBeforeIteration(ctx context.Context) *stop {
	done, err := r.doneFileExists()
	if err != nil {
		return stopAt(runlog.StopError, err.Error())
	}
	if !done || r.testsGoneBeforeDone() {
		return nil
	}
	r.logf("%s is present: running the checks before starting an agent", donePath(r.cfg, r.ws))
	r.save(runlog.PhaseChecks)
	rs := checks.Run(ctx, r.cfg.Checks, checks.Options{Dir: r.ws.dir, Timeout: r.cfg.CheckTimeout, Grace: r.cfg.KillGrace, Shell: r.cfg.CheckShell, Env: r.deps.Env, Wrap: r.sb.CheckWrap()})
	for _, c := range rs {
		if !c.Passed {
			r.logf("the DONE file is present but %s fails (%s): continuing", c.Name, c.Status())
			return nil
		}
	}
	if ctx.Err() != nil {
		return nil
	}
	var look *runlog.FinalCheck
	if mode := r.cfg.FinalCheck; mode != "" && mode != config.FinalCheckOff && len(r.cfg.Checks) > 0 {
		fc := r.look(ctx, len(r.records)+1, mode)
		switch {
		case fc.Status == runlog.FinalError:
			return stopAt(runlog.StopError, "the DONE file is present and every check passes, but "+fc.Reason+
				"; no success is reported without it (--final-check same runs the last look in the workspace instead)")
		case fc.Failed():
			r.logf("the DONE file is present and every check passes, but the last look failed: continuing")
			return nil
		}
		look = fc // the look that let the run succeed
	}
	r.logEvent("DONE", "%s present and every check passes", donePath(r.cfg, r.ws))
	detail := "the DONE file is present and every check passes"
	if len(r.cfg.Checks) == 0 {
		detail = "the DONE file is present (the run has no checks)"
	}
	return &stop{reason: successReason(r.cfg), detail: detail, look: look}
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
