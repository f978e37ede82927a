package loop

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/checks"
)

// decide applies the completion signals and safety nets after a recorded
// iteration; it reports whether the loop stops.
func (r *runner) decide(runCtx context.Context, rec record, o agent.Outcome) bool {
	it := rec.Iteration
	i := it.Iteration
	if o.ErrKind == agent.ErrFatal {
		msg := o.Err
		if o.Hint != "" {
			msg += " (hint: " + o.Hint + ")"
		}
		r.stop(StopAgentError, msg)
		return true
	}
	if o.ExitCode == agent.ExitWaiting {
		r.stop(StopWaiting, fmt.Sprintf("the agent exited with status %d: waiting without restart; continue with `architect loop --resume`", agent.ExitWaiting))
		return true
	}
	signal, err := r.completionSignal(o.FinalMessage, it.CompletionTagFound)
	if err != nil {
		r.stop(StopError, err.Error())
		return true
	}
	if signal != "" {
		r.logf("iteration %d/%d: completion signalled (%s)%s", i, r.cfg.MaxIterations, signal, map[bool]string{true: "", false: " but the checks do not pass yet"}[it.AllChecksPassed])
	} else {
		r.logf("iteration %d/%d: no completion signal", i, r.cfg.MaxIterations)
	}
	if signal != "" && it.AllChecksPassed && len(it.ProtectedRestored) == 0 {
		r.res.Iterations[len(r.res.Iterations)-1].CompletionSignal = signal
		r.stop(StopSuccess, "")
		return true
	}
	if _, err := os.Stat(r.ws.state(WaitFile)); err == nil {
		r.logEvent("WAIT", "iteration %d: %s present", i, WaitFile)
		r.stop(StopWaiting, r.ws.state(WaitFile)+" is present: waiting without restart; continue with `architect loop --resume`")
		return true
	}
	if n := r.cfg.IdleThreshold; n > 0 && r.st.IdleIterations >= n {
		r.stop(StopIdle, fmt.Sprintf("%d iteration(s) in a row changed nothing and left the checks as they were", r.st.IdleIterations))
		return true
	}
	if !rec.Failed {
		return false
	}
	n := r.st.ConsecutiveErrors
	if max := r.cfg.MaxConsecutiveErrors; max > 0 && n >= max {
		r.logf("%d consecutive failures, stopping loop", n)
		r.stop(StopCircuitBreaker, fmt.Sprintf("%d agent runs failed in a row (last: %s)", n, firstLine(r.st.LastError)))
		return true
	}
	return !r.backoff(runCtx, i, o, n)
}

// completionSignal returns which completion signal the iteration gave, if
// any: the tag, the DONE file, or the done pattern.
func (r *runner) completionSignal(final string, tag bool) (string, error) {
	if tag {
		return "tag", nil
	}
	done, err := r.doneFileExists()
	if err != nil {
		return "", err
	}
	if done {
		return "done_file", nil
	}
	if r.cfg.DonePattern != "" {
		if re, err := regexp.Compile(r.cfg.DonePattern); err == nil && re.MatchString(final) {
			return "done_pattern", nil
		}
	}
	return "", nil
}

func (r *runner) donePath() string {
	if r.cfg.DoneFile == "" {
		return r.ws.state(DoneFile)
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
		return true, nil
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
		r.stop(StopError, err.Error())
		return true
	}
	if !done {
		return false
	}
	r.logf("%s is present: running the checks before starting an agent", r.donePath())
	r.save("checks")
	rs := checks.Run(ctx, r.cfg.Checks, checks.Options{Dir: r.ws.dir, Timeout: r.cfg.CheckTimeout, Grace: r.cfg.KillGrace})
	for _, c := range rs {
		if !c.Passed {
			r.logf("the DONE file is present but %s fails (%s): continuing", c.Name, c.Status())
			return false
		}
	}
	if ctx.Err() != nil {
		return false
	}
	r.logEvent("DONE", "%s present and every check passes", r.donePath())
	r.stop(StopSuccess, "the DONE file is present and every check passes")
	return true
}

// idleRun counts the iterations at the end of records that changed nothing:
// the same working tree as before and the same check results.
func idleRun(records []record) int {
	n := 0
	for i := len(records) - 1; i >= 1; i-- {
		cur, prev := records[i], records[i-1]
		if cur.Tree == "" || cur.Tree != prev.Tree || cur.ChecksID != prev.ChecksID {
			break
		}
		n++
	}
	return n
}
