package loop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/config"
	"github.com/google/renameio/v2"
)

// pollEvery is how often waits look for pause and resume requests.
const pollEvery = 500 * time.Millisecond

// Control is a request written by `architect pause`, `architect resume`
// and `architect cancel` to .architect/control.json.
type Control struct {
	Action string `json:"action"` // pause, resume or cancel
	At     string `json:"at"`
}

// WriteControl asks the loop in workspace to pause or resume.
func WriteControl(workspace, action string) error {
	data, _ := json.Marshal(Control{Action: action, At: stamp(time.Now())})
	return renameio.WriteFile(statePath(workspace, ControlFile), append(data, '\n'), 0o600)
}

func (r *runner) pauseRequested() bool { return r.control() == ControlPause }

// control is the request in the control file: pause, resume, cancel or "".
func (r *runner) control() string {
	data, err := os.ReadFile(r.ws.state(ControlFile))
	if err != nil {
		return ""
	}
	var c Control
	if json.Unmarshal(data, &c) != nil {
		return ""
	}
	return c.Action
}

// pauseIfAsked holds the loop while a pause is requested. It reports
// whether the loop must stop (cancelled or out of time while paused).
func (r *runner) pauseIfAsked(ctx, runCtx context.Context) bool {
	if !r.pauseRequested() {
		return false
	}
	r.st.Status = StatusPaused
	r.nextDiff = nil // the user may change files while the loop is paused
	r.save("paused")
	r.logf("paused: the loop waits for `architect resume`")
	r.emitPaused()
	for r.pauseRequested() {
		if err := r.deps.Sleep(runCtx, pollEvery); err != nil {
			return r.stopped(ctx, runCtx)
		}
	}
	r.st.Status = StatusRunning
	r.save("resumed")
	r.logf("resumed")
	r.emitResumed()
	return false
}

// wait waits d in slices, giving way to a pause or stop request (which
// ends the wait: "pausing during backoff immediately stops the wait"). It never
// waits past ctx's deadline (--max-time), and returns false when ctx ended
// or the deadline came first.
func (r *runner) wait(ctx context.Context, d time.Duration) bool {
	until := r.deps.Now().Add(d)
	dl, hasDeadline := ctx.Deadline()
	pastDeadline := hasDeadline && until.After(dl)
	if pastDeadline {
		until = dl
	}
	r.st.WaitUntil = stamp(until)
	defer func() { r.st.WaitUntil = "" }()
	for {
		left := until.Sub(r.deps.Now())
		if left <= 0 {
			return !pastDeadline
		}
		if a := r.control(); a == ControlPause || a == ControlStop {
			return true // the loop pauses or stops at its next step
		}
		if err := r.deps.Sleep(ctx, min(left, pollEvery)); err != nil {
			return false
		}
	}
}

// backoff waits min(2^(n-1), cap) seconds after the n-th failed agent run
// in a row. It returns false when the loop must stop instead. There is no
// wait when the loop stops anyway: after the last iteration allowed, with
// the budget spent, or when the wait would reach --max-time (then the loop
// stops at once, on timeout).
func (r *runner) backoff(ctx context.Context, rec record, o agent.Outcome, n int) bool {
	i := rec.Iteration.Iteration
	if i >= r.cfg.MaxIterations || r.overBudget() {
		return true // the loop stops at its next check, without waiting for nothing
	}
	d := time.Duration(1<<min(n-1, 30)) * time.Second
	d = min(d, r.cfg.BackoffCap) // a cap of 0: retry at once
	if dl, ok := ctx.Deadline(); ok && !r.deps.Now().Add(d).Before(dl) {
		r.stop(StopTimeout, fmt.Sprintf("max-time of %s would be reached during the %s wait after failed iteration %d: stopping now",
			config.FormatDuration(r.cfg.MaxTime), human(d), i))
		return false
	}
	attempt := fmt.Sprintf("attempt %d", n)
	if r.cfg.MaxConsecutiveErrors > 0 {
		attempt = fmt.Sprintf("attempt %d/%d", n, r.cfg.MaxConsecutiveErrors)
	}
	r.logf("iteration %d failed (%s), retrying in %s (%s)", i, failure(rec, o), human(d), attempt)
	r.ev.emit(Event{Type: EventBackoff, Iteration: i, Seconds: ptr(d.Seconds()), Until: stamp(r.deps.Now().Add(d)), Attempt: n})
	r.save("backoff")
	if !r.wait(ctx, d) {
		r.waitEnded(ctx, "backing off")
		return false
	}
	return true
}

// failure says in a few words why an iteration failed.
func failure(rec record, o agent.Outcome) string {
	switch {
	case len(rec.ProtectedRestored) > 0:
		return "it changed protected files"
	case o.TimedOut:
		return "the agent timed out"
	case o.Inactive:
		return "the agent was inactive"
	}
	return fmt.Sprintf("exit: %d", o.ExitCode)
}

// usageBaseWait and usageMaxWait bound the wait for a usage limit whose
// reset time is unknown: 60 s, doubling, up to 30 min.
const (
	usageBaseWait = 60 * time.Second
	usageMaxWait  = 30 * time.Minute
)

// waitUsageLimit waits for the agent's usage limit to lift, without
// counting an error. Every agent's usage limit or rate limit (429) comes
// here. The waits are counted in the state and bounded: they count against
// --max-time (a wait that would pass the deadline is refused at once), and
// their total over the run may not pass max_usage_wait. It returns false
// when the loop stops.
func (r *runner) waitUsageLimit(ctx context.Context, o agent.Outcome) bool {
	if r.cfg.OnUsageLimit == "stop" {
		r.stop(StopUsageLimit, "the agent hit its usage limit: "+firstLine(o.Err)+resetText(o.ResetAt))
		return false
	}
	var d time.Duration
	if !o.ResetAt.IsZero() {
		d = o.ResetAt.Sub(r.deps.Now())
		d += r.deps.Jitter(min(max(d/20, 5*time.Second), time.Minute))
		r.usageWaits = 0
	} else {
		d = min(usageBaseWait<<min(r.usageWaits, 20), usageMaxWait)
		r.usageWaits++
	}
	d = max(d, time.Second)
	if dl, ok := ctx.Deadline(); ok && r.deps.Now().Add(d).After(dl) {
		r.logf("usage limit reached; it lifts after the max-time deadline, stopping")
		r.stop(StopTimeout, "the agent's usage limit lifts after the max-time deadline"+resetText(o.ResetAt))
		return false
	}
	waited := time.Duration(r.st.UsageLimitWaited * float64(time.Second))
	if limit := r.cfg.MaxUsageWait; limit > 0 && waited+d > limit {
		r.logf("usage limit reached; waiting %s more would pass the %s allowed for usage-limit waits, stopping", human(d), config.FormatDuration(limit))
		r.stop(StopUsageLimit, fmt.Sprintf("the agent hit its usage limit (%s)%s; waiting %s more would take the run's usage-limit waits past max_usage_wait (%s; %s waited so far): continue later with `architect loop --resume`",
			firstLine(o.Err), resetText(o.ResetAt), human(d), config.FormatDuration(limit), human(waited)))
		return false
	}
	until := r.deps.Now().Add(d)
	r.logEvent("WAIT", "usage limit: waiting until %s", until.Format(time.RFC3339))
	r.logf("usage limit reached (%s); waiting %s, until %s (usage-limit wait %d of the run, %s waited before)",
		firstLine(o.Err), human(d), until.Format("15:04:05"), r.st.UsageLimitWaits+1, human(waited))
	r.st.WaitUntil = stamp(until)
	r.save("usage_limit_wait")
	r.ev.emit(Event{Type: EventUsageLimitWait, Iteration: len(r.records) + 1, Seconds: ptr(d.Seconds()), Until: stamp(until), Error: o.Err, Waited: ptr(waited.Seconds())})
	began := r.deps.Now()
	ok := r.wait(ctx, d)
	r.st.UsageLimitWaits++
	r.st.UsageLimitWaited += r.deps.Now().Sub(began).Seconds()
	r.save("usage_limit_waited")
	if !ok {
		r.waitEnded(ctx, "waiting for the usage limit")
		return false
	}
	return true
}

// waitEnded records why a wait ended early: cancellation, or max-time.
func (r *runner) waitEnded(ctx context.Context, doing string) {
	if ctx.Err() != nil && !errors.Is(context.Cause(ctx), errTimeUp) {
		r.stop(StopCancelled, r.cancelText()+" while "+doing)
		return
	}
	r.stop(StopTimeout, fmt.Sprintf("max-time of %s reached while %s", config.FormatDuration(r.cfg.MaxTime), doing))
}

func resetText(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return " (resets " + t.Format(time.RFC3339) + ")"
}
