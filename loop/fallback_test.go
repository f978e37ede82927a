package loop

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/runlog"
)

// named is an in-process agent with a name of its own (a fallback), whose
// i-th run gives outcomes[i] (the last one repeats) after calling before.
type named struct {
	name     string
	outcomes []agent.Outcome
	before   func(req agent.Request, run int)
	runs     int
	prompts  []string
}

func (n *named) Name() string { return n.name }

func (n *named) Run(_ context.Context, req agent.Request) agent.Outcome {
	k := min(n.runs, len(n.outcomes)-1)
	if n.before != nil {
		n.before(req, n.runs)
	}
	n.runs++
	n.prompts = append(n.prompts, req.Prompt)
	return n.outcomes[k]
}

// fallbacks makes Deps.NewAgent hand out the given agents by name.
func fallbacks(agents ...*named) func(agent.Config) (agent.Agent, error) {
	return func(c agent.Config) (agent.Agent, error) {
		for _, a := range agents {
			if a.name == c.Name {
				return a, nil
			}
		}
		return agent.New(c)
	}
}

// runFallback runs cfg with own as the run's agent and the others as its
// fallbacks, on a fake clock; it returns the result, the log, the events
// and the clock.
func runFallback(t *testing.T, cfg config.Config, own agent.Agent, others ...*named) (*runlog.Result, string, []runlog.Event, *fakeClock) {
	t.Helper()
	clock := &fakeClock{now: time.Now()}
	var log bytes.Buffer
	var events []runlog.Event
	res, err := Run(context.Background(), cfg, Deps{Agent: own, Log: &log, Now: clock.Now, Sleep: clock.Sleep,
		Jitter: func(time.Duration) time.Duration { return 0 }, NewAgent: fallbacks(others...),
		Events: func(ev runlog.Event) { events = append(events, ev) }})
	if err != nil {
		t.Fatal(err)
	}
	return res, log.String(), events, clock
}

func limitedUntil(t time.Time) agent.Outcome {
	return agent.Outcome{ExitCode: 1, ErrKind: agent.ErrUsageLimit, Err: "You've hit your limit", ResetAt: t}
}

func eventsOf(evs []runlog.Event, typ string) []runlog.Event {
	var out []runlog.Event
	for _, ev := range evs {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

// A usage limit on the run's agent: the same iteration runs at once on the
// fallback, with the same prompt, and succeeds there; the switch is an
// event, in the state and in the result, and each iteration says which
// agent it ran on.
func TestFallbackOnUsageLimit(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	cfg.Fallback = []string{"codex:gpt-5.5"}
	start := time.Now()
	own := &named{name: "claude", outcomes: []agent.Outcome{limitedUntil(start.Add(time.Hour))}}
	codex := &named{name: "codex", outcomes: []agent.Outcome{costly(0.5, "<promise>COMPLETE</promise>")}}
	res, log, events, clock := runFallback(t, cfg, own, codex)
	is.Equal(res.StopReason, runlog.StopSuccess)
	is.Equal(res.TotalIterations, 1)
	is.Equal(res.Iterations[0].Agent, "codex")
	is.Equal(res.Iterations[0].Model, "gpt-5.5")
	is.True(clock.Now().Sub(start) < time.Minute) // no wait: the fallback was free
	is.Equal(own.prompts[0], codex.prompts[0])    // the same prompt
	is.Equal(len(res.Switches), 1)
	is.Equal(res.Switches[0].From, "claude")
	is.Equal(res.Switches[0].To, "codex:gpt-5.5")
	is.Equal(res.Switches[0].Reason, runlog.SwitchUsageLimit)
	is.Equal(res.Switches[0].Iteration, 1)
	sw := eventsOf(events, runlog.EventAgentSwitched)
	is.Equal(len(sw), 1)
	is.Equal(sw[0].Agent, "codex")
	is.Equal(sw[0].From, "claude")
	is.True(sw[0].Until != "") // when claude may be used again
	is.True(strings.Contains(log, "switching agents: iteration 1 runs on codex:gpt-5.5 instead of claude"))
	is.Equal(len(res.Agents), 1)
	is.Equal(res.Agents[0], runlog.AgentCost{Agent: "codex", Model: "gpt-5.5", Iterations: 1, Cost: ptr(0.5), KnownCost: 0.5})
	st, err := runlog.ReadState(cfg.Dir)
	is.NoErr(err)
	is.Equal(len(st.Switches), 1)
	is.Equal(st.Agent, "codex:gpt-5.5")
	is.Equal(st.Agents[0].Reason, runlog.SwitchUsageLimit)
}

// Once the first agent's reset time has passed, the run goes back to it;
// the cost is counted per agent.
func TestFallbackReturnsToTheFirstAgent(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	cfg.Checks = []string{"test -f ok"}
	cfg.Fallback = []string{"gemini"}
	clock := &fakeClock{now: time.Now()}
	reset := clock.Now().Add(10 * time.Minute)
	own := &named{name: "claude", outcomes: []agent.Outcome{limitedUntil(reset), costly(1, "<promise>COMPLETE</promise>")},
		before: func(req agent.Request, run int) {
			if run == 1 {
				_ = writeFileT(req.Dir, "ok")
			}
		}}
	// The fallback's run takes a quarter of an hour.
	gemini := &named{name: "gemini", outcomes: []agent.Outcome{costly(0.25, "not yet")},
		before: func(agent.Request, int) { _ = clock.Sleep(context.Background(), 15*time.Minute) }}
	var log bytes.Buffer
	res, err := Run(context.Background(), cfg, Deps{Agent: own, Log: &log, Now: clock.Now, Sleep: clock.Sleep,
		Jitter: func(time.Duration) time.Duration { return 0 }, NewAgent: fallbacks(gemini)})
	is.NoErr(err)
	is.Equal(res.StopReason, runlog.StopSuccess)
	is.Equal(res.TotalIterations, 2)
	is.Equal(res.Iterations[0].Agent, "gemini")
	is.Equal(res.Iterations[1].Agent, "claude") // back to the first once its limit reset
	is.Equal(len(res.Switches), 2)
	is.Equal(res.Switches[1].Reason, runlog.SwitchBack)
	is.True(strings.Contains(res.Switches[1].Detail, "claude's usage limit has reset"))
	is.Equal(res.Agents, []runlog.AgentCost{{Agent: "gemini", Iterations: 1, Cost: ptr(0.25), KnownCost: 0.25}, {Agent: "claude", Iterations: 1, Cost: ptr(1.0), KnownCost: 1}})
	is.Equal(res.UsageLimitWaits, 0) // nobody waited
}

// Every agent limited: the loop waits for the one that frees first (a
// usage-limit wait, exact to its reset time), and runs on it.
func TestAllLimitedWaitsForTheFirstFree(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	cfg.Fallback = []string{"codex"}
	start := time.Now()
	own := &named{name: "claude", outcomes: []agent.Outcome{limitedUntil(start.Add(time.Hour))}}
	codex := &named{name: "codex", outcomes: []agent.Outcome{limitedUntil(start.Add(5 * time.Minute)), done}}
	res, log, events, clock := runFallback(t, cfg, own, codex)
	is.Equal(res.StopReason, runlog.StopSuccess)
	is.Equal(res.Iterations[0].Agent, "codex")
	is.Equal(res.UsageLimitWaits, 1)
	waited := clock.Now().Sub(start)
	is.True(waited >= 5*time.Minute && waited < 5*time.Minute+5*time.Second) // to codex's reset, plus a small margin
	w := eventsOf(events, runlog.EventUsageLimitWait)
	is.Equal(len(w), 1)
	is.Equal(w[0].Agent, "codex")
	is.True(w[0].Exact)
	is.True(strings.Contains(log, "for codex (no agent of the run is free)"))
	is.Equal(len(res.Waits), 1)
	is.Equal(res.Waits[0].Agent, "codex")
}

// An outage is retried (--outage-retries), then the next agent takes
// over at once; the circuit breaker counts each agent's failures.
func TestOutageFallsBackPastItsRetries(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	cfg.Fallback = []string{"codex"}
	cfg.OutageRetries = 1
	outage := agent.Outcome{ExitCode: 1, ErrKind: agent.ErrOutage, Err: "API Error: 500"}
	own := &named{name: "claude", outcomes: []agent.Outcome{outage}}
	codex := &named{name: "codex", outcomes: []agent.Outcome{done}}
	res, log, _, _ := runFallback(t, cfg, own, codex)
	is.Equal(res.StopReason, runlog.StopSuccess)
	is.Equal(res.TotalIterations, 3)
	is.Equal(res.Iterations[0].ErrorKind, "outage")
	is.Equal(res.Iterations[1].ErrorKind, "outage")
	is.Equal(res.Iterations[2].Agent, "codex")
	is.Equal(waits(log), []string{"1s 1/5"}) // one retry with backoff, then no wait before the switch
	is.Equal(res.Switches[0].Reason, runlog.SwitchOutage)

	// Both down: the fallback's own failures trip the breaker.
	cfg = testConfig(t)
	cfg.Fallback = []string{"codex"}
	cfg.OutageRetries = 1
	cfg.MaxConsecutiveErrors = 3
	res, _, _, _ = runFallback(t, cfg, &named{name: "claude", outcomes: []agent.Outcome{outage}}, &named{name: "codex", outcomes: []agent.Outcome{outage}})
	is.Equal(res.StopReason, runlog.StopCircuitBreaker)
	is.Equal(res.TotalIterations, 5) // 2 on claude, 3 on codex
}

// Without a fallback, an outage is what it was: retried with backoff
// until the circuit breaker.
func TestOutageWithoutFallback(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	res, _, _, _ := runFallback(t, cfg, &named{name: "claude", outcomes: []agent.Outcome{{ExitCode: 1, ErrKind: agent.ErrOutage, Err: "500"}}})
	is.Equal(res.StopReason, runlog.StopCircuitBreaker)
	is.Equal(res.TotalIterations, 5)
	is.Equal(len(res.Switches), 0)
}

// Authentication and billing stop at once, in the CLI's words, with the
// hint, even with a fallback: they are faults to fix, not limits.
func TestFatalStopsEvenWithAFallback(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	cfg.Fallback = []string{"codex"}
	fatal := agent.Outcome{ExitCode: 1, ErrKind: agent.ErrFatal, Err: "claude: Credit balance is too low", Hint: "add credit"}
	codex := &named{name: "codex", outcomes: []agent.Outcome{done}}
	res, _, events, _ := runFallback(t, cfg, &named{name: "claude", outcomes: []agent.Outcome{fatal}}, codex)
	is.Equal(res.StopReason, runlog.StopAgentError)
	is.True(strings.Contains(res.StopDetail, "Credit balance is too low"))
	is.Equal(res.StopHint, "add credit")
	is.Equal(codex.runs, 0)
	fin := eventsOf(events, runlog.EventLoopFinished)
	is.Equal(fin[0].Hint, "add credit")
}

// --on-usage-limit stop stops only when no other agent is free.
func TestUsageLimitStopWithFallback(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	cfg.Fallback = []string{"codex"}
	cfg.OnUsageLimit = "stop"
	start := time.Now()
	res, _, _, _ := runFallback(t, cfg, &named{name: "claude", outcomes: []agent.Outcome{limitedUntil(start.Add(time.Hour))}},
		&named{name: "codex", outcomes: []agent.Outcome{limitedUntil(start.Add(time.Hour))}})
	is.Equal(res.StopReason, runlog.StopUsageLimit)
	is.True(strings.Contains(res.StopDetail, "every agent (claude, codex)"))
	is.Equal(len(res.Switches), 1) // it did try codex
}

// A resumed run remembers which agents are set aside, and until when.
func TestResumeKeepsAgentsSetAside(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	cfg.Checks = []string{"false"}
	cfg.MaxIterations = 1
	cfg.Fallback = []string{"codex"}
	clock := &fakeClock{now: time.Now()}
	own := &named{name: "claude", outcomes: []agent.Outcome{limitedUntil(clock.Now().Add(time.Hour)), costly(1, "claude")}}
	codex := &named{name: "codex", outcomes: []agent.Outcome{costly(1, "codex")}}
	deps := Deps{Agent: own, Now: clock.Now, Sleep: clock.Sleep, NewAgent: fallbacks(codex)}
	res, err := Run(context.Background(), cfg, deps)
	is.NoErr(err)
	is.Equal(res.StopReason, runlog.StopMaxIterations)
	res, err = Resume(context.Background(), cfg.Dir, func(c *config.Config) { c.MaxIterations = 2 }, deps)
	is.NoErr(err)
	is.Equal(res.Iterations[1].Agent, "codex") // claude's limit has not reset yet
	is.Equal(own.runs, 1)
}

func writeFileT(dir, name string) error {
	return runlog.WriteJSONQuick(dir+"/"+name, "x")
}
