package loop

import (
	"context"
	"fmt"
	"time"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/runlog"
)

// pollEvery is how often waits look for pause and resume requests.
const pollEvery = 500 * time.Millisecond

// holdPaused waits while a pause is requested; for a pause the loop made
// itself on a stall (forStall), a note (architect say) also ends it. It
// reports false when the run was cancelled or ran out of time meanwhile.
func (r *runner) holdPaused(runCtx context.Context, forStall bool) bool {
	for r.ws.pauseRequested() {
		if forStall && len(r.pendingNotes()) > 0 {
			r.logf("a note arrived: going on with it")
			if err := runlog.WriteControl(r.ws.dir, "resume"); err != nil {
				r.warn("could not clear the pause: " + err.Error())
			}
			break
		}
		if err := r.deps.Sleep(runCtx, pollEvery); err != nil {
			return false
		}
	}
	return true
}

// How a wait ended.
type waitEnd int

const (
	waitDone    waitEnd = iota // the time passed
	waitCut                    // a pause request, or a note for now (architect say --now), ended it early
	waitStopped                // the run was cancelled or ran out of time
)

// wait waits d in slices, giving way to a pause or stop request or a
// note that asks for the next iteration now (any ends the wait: "pausing
// during backoff immediately stops the wait"; the loop pauses or stops at
// its next step). It never waits past ctx's deadline
// (--max-time): it reports waitStopped when ctx ended or the deadline came
// first.
func (r *runner) wait(ctx context.Context, d time.Duration) waitEnd {
	until := r.deps.Now().Add(d)
	dl, hasDeadline := ctx.Deadline()
	pastDeadline := hasDeadline && until.After(dl)
	if pastDeadline {
		until = dl
	}
	for {
		left := until.Sub(r.deps.Now())
		if left <= 0 {
			if pastDeadline {
				return waitStopped
			}
			return waitDone
		}
		if a := r.ws.control(); a == runlog.ControlPause || a == runlog.ControlStop || r.noteForNow() {
			return waitCut
		}
		if err := r.deps.Sleep(ctx, min(left, pollEvery)); err != nil {
			return waitStopped
		}
	}
}

// backoff waits min(2^(n-1), cap) seconds after the n-th failed agent run
// in a row. It returns false when the loop must stop instead. There is no
// wait when the loop stops anyway: after the last iteration allowed, with
// the budget spent, or when the wait would reach --max-time (then the loop
// stops at once, on timeout). It returns why the run stops, or nil.
func (r *runner) backoff(ctx context.Context, rec record, o agent.Outcome, n int) *stop {
	i := rec.Iteration.Iteration
	if i >= r.cfg.MaxIterations || overBudget(r.cfg, r.res.KnownCost) {
		return nil // the loop stops at its next check, without waiting for nothing
	}
	d := time.Duration(1<<min(n-1, 30)) * time.Second
	d = min(d, r.cfg.BackoffCap) // a cap of 0: retry at once
	if dl, ok := ctx.Deadline(); ok && !r.deps.Now().Add(d).Before(dl) {
		return stopAt(runlog.StopTimeout, fmt.Sprintf("max-time of %s would be reached during the %s wait after failed iteration %d: stopping now",
			config.FormatDuration(r.cfg.MaxTime), human(d), i))
	}
	attempt := fmt.Sprintf("attempt %d", n)
	if r.cfg.MaxConsecutiveErrors > 0 {
		attempt = fmt.Sprintf("attempt %d/%d", n, r.cfg.MaxConsecutiveErrors)
	}
	r.logf("iteration %d failed (%s), retrying in %s (%s)", i, failure(rec, o), human(d), attempt)
	r.ev.Emit(runlog.Event{Type: runlog.EventBackoff, Iteration: i, Seconds: ptr(d.Seconds()), Until: stamp(r.deps.Now().Add(d)), Attempt: n,
		Agent: r.agent().name, Model: r.agent().model, ErrorKind: string(o.ErrKind)})
	r.save("backoff")
	if r.wait(ctx, d) == waitStopped {
		return r.waitEnded(ctx, "backing off")
	}
	return nil
}

// failure says in a few words why an iteration failed.
func failure(rec record, o agent.Outcome) string {
	switch {
	case len(rec.ProtectedRestored) > 0:
		return "it changed protected files"
	case judgeFailed(rec.JudgeChanged):
		return "it changed how a check is judged"
	case testsFailed(rec):
		return "it removed tests that were there at the start"
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

// limitHit sets the current agent aside after it met its usage limit or a
// rate limit (every agent's 429 comes here), without counting an error,
// until the limit lifts (usageUntil). The next iteration runs on the next
// free fallback agent, or waits (pickAgent). With --on-usage-limit stop
// and no other agent free, the loop stops instead: it returns why, or nil
// to go on.
func (r *runner) limitHit(o agent.Outcome) *stop {
	cur := r.agent()
	until, exact := r.usageUntil(cur, o)
	r.lastLimit = o
	r.setAside(until, exact, runlog.SwitchUsageLimit, false)
	if r.cfg.OnUsageLimit == "stop" && !r.freeOther(r.deps.Now()) {
		who := "the agent"
		if r.hasFallback() {
			who = "every agent (" + r.labels() + ")"
		}
		return stopAt(runlog.StopUsageLimit, who+" hit its usage limit: "+runlog.FirstLine(o.Err)+resetText(o.ResetAt))
	}
	how := "until " + until.Local().Format("15:04:05")
	if !exact {
		how += " (no reset time given: a guess)"
	}
	r.logf("%s hit its usage limit (%s)%s: set aside %s", cur.Agent, runlog.FirstLine(o.Err), resetText(o.ResetAt), how)
	return nil
}

// usageUntil is when to try agent s again after it met its usage limit,
// and whether that comes from a reset time it gave (exact) or is a guess:
//
//   - before the reset time it gave: that time plus a small margin (its
//     clock and ours may differ by a second, and a reset given to the
//     second may lift at its end);
//   - inside the window a reset time printed to the minute leaves ("try
//     again at 6:19 AM": any time before 6:20): a short look again;
//   - without a reset time, or after it passed with the limit still there
//     (resets that do not take effect on time are reported), the bounded
//     guess: 60 s, doubling, up to 30 min.
func (r *runner) usageUntil(s *slot, o agent.Outcome) (time.Time, bool) {
	now := r.deps.Now()
	if at := o.ResetAt; !at.IsZero() {
		switch end := at.Add(o.ResetWithin); {
		case now.Before(at):
			s.Guesses = 0
			return at.Add(r.margin(at.Sub(now))), true
		case now.Before(end):
			s.Guesses = 0
			step := min(max(o.ResetWithin/12, 2*time.Second), 5*time.Minute)
			return minTime(now.Add(step), end.Add(time.Second)), true
		}
	}
	d := min(usageBaseWait<<min(s.Guesses, 20), usageMaxWait)
	s.Guesses++
	return now.Add(d), false
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// margin is added to a wait of d for a reset time: a second (a reset
// given to the second may lift at its end; clocks differ), a hundredth of
// d (at most 30 s), and a random part of up to a twentieth of d (at most
// 30 s), so that the loops of a batch do not all call at the same instant.
func (r *runner) margin(d time.Duration) time.Duration {
	return time.Second + min(d/100, 30*time.Second) + r.deps.Jitter(min(d/20, 30*time.Second))
}

// usageWaitRefused says why the run stops rather than wait d more for a
// usage limit to lift, with waited already waited: the wait would pass
// the --max-time deadline, or max_usage_wait. nil when it may wait.
func (r *runner) usageWaitRefused(runCtx context.Context, d, waited time.Duration) *stop {
	o := r.lastLimit
	if dl, ok := runCtx.Deadline(); ok && r.deps.Now().Add(d).After(dl) {
		r.logf("usage limit reached; it lifts after the max-time deadline, stopping")
		return stopAt(runlog.StopTimeout, "the agent's usage limit lifts after the max-time deadline"+resetText(o.ResetAt))
	}
	if limit := r.cfg.MaxUsageWait; limit > 0 && waited+d > limit {
		r.logf("usage limit reached; waiting %s more would pass the %s allowed for usage-limit waits, stopping", human(d), config.FormatDuration(limit))
		return stopAt(runlog.StopUsageLimit, fmt.Sprintf("the agent hit its usage limit (%s)%s; waiting %s more would take the run's usage-limit waits past max_usage_wait (%s; %s waited so far): continue later with `architect loop --resume`",
			runlog.FirstLine(o.Err), resetText(o.ResetAt), human(d), config.FormatDuration(limit), human(waited)))
	}
	return nil
}

// announceUsageWait says that the run waits d, until until, for agent s
// (the run's nth usage-limit wait, waited before it): a line, a line of
// the iterations log. It returns the event that tells the watchers.
func (r *runner) announceUsageWait(s *slot, d time.Duration, until time.Time, waited time.Duration, nth int) runlog.Event {
	o := r.lastLimit
	who := ""
	if r.hasFallback() {
		who = " for " + s.Agent + " (no agent of the run is free)"
	}
	how := "the reset time the agent gave"
	if !s.Exact {
		how = "no reset time given: a guess"
	}
	r.logEvent("WAIT", "usage limit: waiting until %s%s", until.Format(time.RFC3339), who)
	r.logf("usage limit reached (%s); waiting %s, until %s%s, %s (usage-limit wait %d of the run, %s waited before)",
		runlog.FirstLine(o.Err), human(d), until.Format("15:04:05"), who, how, nth, human(waited))
	ev := runlog.Event{Type: runlog.EventUsageLimitWait, Iteration: len(r.records) + 1, Seconds: ptr(d.Seconds()), Until: stamp(until), Error: o.Err,
		Waited: ptr(waited.Seconds()), Agent: s.name, Model: s.model, Exact: s.Exact}
	if !o.ResetAt.IsZero() {
		ev.ResetAt = stamp(o.ResetAt)
	}
	return ev
}

// usageWaitEnded is what follows a usage-limit wait for agent s that
// ended with end: a stop when the run was stopped meanwhile; after a note
// for now, the agent is tried at once.
func (r *runner) usageWaitEnded(ctx context.Context, s *slot, end waitEnd) *stop {
	switch end {
	case waitStopped:
		return r.waitEnded(ctx, "waiting for the usage limit")
	case waitCut:
		if r.noteForNow() {
			// The person asked for an iteration now: try the agent now.
			s.until = r.deps.Now()
			r.logf("a note asks for the next iteration now: trying %s without waiting more", s.Agent)
		}
	}
	return nil
}

func resetText(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return " (resets " + t.Format(time.RFC3339) + ")"
}
