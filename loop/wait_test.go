package loop

import (
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/runlog"
)

// A reset time known to the second is waited for exactly: until it, plus
// a second and a hundredth of the wait (no jitter here), not a doubling
// guess. The wait is an event that says which agent, until when, and that
// it comes from the agent's reset time.
func TestUsageLimitWaitsExactly(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	start := time.Now()
	own := &named{name: "claude", outcomes: []agent.Outcome{limitedUntil(start.Add(3 * time.Second)), done}}
	res, _, events, clock := runFallback(t, cfg, own)
	is.Equal(res.StopReason, runlog.StopSuccess)
	waited := clock.Now().Sub(start)
	is.True(waited >= 4*time.Second && waited < 4100*time.Millisecond) // 3 s + 1 s + 30 ms
	w := eventsOf(events, runlog.EventUsageLimitWait)
	is.Equal(len(w), 1)
	is.Equal(w[0].Agent, "claude")
	is.True(w[0].Exact)
	is.Equal(w[0].ResetAt, stamp(start.Add(3*time.Second)))
	is.True(*w[0].Seconds >= 4 && *w[0].Seconds < 4.1)
	is.Equal(res.UsageLimitWaits, 1)
	is.True(res.UsageLimitWaited >= 4 && res.UsageLimitWaited < 4.1)
	is.Equal(res.Waits[0].Exact, true)
}

// A reset time printed to the minute ("try again at 6:19 AM") leaves a
// window: inside it, the loop looks again every few seconds rather than
// waiting for the minute's end; past it, with the limit still there, it
// no longer trusts the time it was given and falls back on the bounded
// guess.
func TestUsageLimitMinuteWindow(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	start := time.Now()
	shown := start.Add(-20 * time.Second) // the minute shown began 20 s ago
	inWindow := agent.Outcome{ExitCode: 1, ErrKind: agent.ErrUsageLimit, Err: "try again at 6:19 AM", ResetAt: shown, ResetWithin: time.Minute}
	own := &named{name: "codex", outcomes: []agent.Outcome{inWindow, inWindow, done}}
	res, _, events, clock := runFallback(t, cfg, own)
	is.Equal(res.StopReason, runlog.StopSuccess)
	w := eventsOf(events, runlog.EventUsageLimitWait)
	is.Equal(len(w), 2)
	is.Equal(*w[0].Seconds, 5.0) // a minute's window, looked at every 5 s
	is.Equal(*w[1].Seconds, 5.0)
	is.True(clock.Now().Sub(start) < 15*time.Second)

	// The window has passed and the agent still says the same: a guess.
	passed := agent.Outcome{ExitCode: 1, ErrKind: agent.ErrUsageLimit, Err: "resets 6:19am", ResetAt: start.Add(-5 * time.Minute), ResetWithin: time.Minute}
	res, _, events, _ = runFallback(t, testConfig(t), &named{name: "claude", outcomes: []agent.Outcome{passed, done}})
	is.Equal(res.StopReason, runlog.StopSuccess)
	w = eventsOf(events, runlog.EventUsageLimitWait)
	is.Equal(*w[0].Seconds, 60.0)
	is.True(!w[0].Exact)
}

// The margin grows with the wait, and stays small.
func TestMargin(t *testing.T) {
	is := is.New(t)
	r := newRunner(testConfig(t), Deps{Jitter: func(max time.Duration) time.Duration { return max }})
	is.Equal(r.margin(3*time.Second), time.Second+30*time.Millisecond+150*time.Millisecond)
	is.Equal(r.margin(5*time.Hour), time.Second+30*time.Second+30*time.Second) // both parts capped
}
