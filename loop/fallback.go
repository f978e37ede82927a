package loop

import (
	"slices"
	"strings"
	"time"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/usererr"
)

// The agents a run may use: its own, then the fallbacks (--fallback), in
// order. Each iteration runs on the first of them that is free: one whose
// usage limit has reset, whose outage cool-down has passed, and that has
// not stalled. An agent that hits its usage limit, fails with an outage
// past --outage-retries, or stalls (--on-stall fallback) is set aside, and
// the next iteration runs on the next free one, with the same prompt; the
// run returns to the first as soon as it is free again. When none is
// free, the loop waits for the one that frees first (a usage-limit wait,
// bounded as every wait is). Every switch is an event, a line of the log,
// and an entry of the state and the result.

// slot is an agent of the run, built.
type slot struct {
	runlog.AgentSlot
	agent agent.Agent
	name  string // the agent's name: claude, codex, command
	model string
	until time.Time
}

func (s *slot) free(now time.Time) bool { return !s.Retired && !now.Before(s.until) }

// agents are the run's agents, and which one the next iteration runs on.
type agents struct {
	slots []*slot // the run's agent, then its fallbacks
	cur   int     // the slot the next iteration runs on
}

// newSlots builds the run's agents: deps.Agent, then each fallback, with
// deps.NewAgent (agent.New by default).
func newSlots(cfg config.Config, deps Deps) ([]*slot, error) {
	own := cfg.AgentConfig()
	slots := []*slot{{agent: deps.Agent, name: deps.Agent.Name(), model: own.Model}}
	if own.Name == "command" || deps.Agent.Name() != own.Name {
		slots[0].model = "" // a command, or an agent given directly (tests)
	}
	newAgent := deps.NewAgent
	if newAgent == nil {
		newAgent = agent.New
	}
	for _, ac := range cfg.FallbackAgents() {
		a, err := newAgent(ac)
		if err != nil {
			return nil, &usererr.Error{Msg: "fallback " + config.AgentLabel(ac) + ": " + err.Error(), Hint: "fix --fallback (fallback: in the config file)", Err: err}
		}
		model := ac.Model
		if ac.Name == "command" {
			// A command fallback is told apart by its command (masked: it
			// is written in the records), as --fallback command:CMD names it.
			model = deps.Redact(ac.Cmd)
		}
		slots = append(slots, &slot{agent: a, name: ac.Name, model: model})
	}
	for _, s := range slots {
		s.Agent = agentLabel(s.name, s.model)
	}
	return slots, nil
}

// restoreSlots takes back what a resumed run's state says of its agents,
// by label: the agents set aside stay so until their time.
func (a *agents) restoreSlots(saved []runlog.AgentSlot, current string) {
	for _, s := range a.slots {
		for _, st := range saved {
			if st.Agent != s.Agent {
				continue
			}
			s.AgentSlot = st
			if t, err := time.Parse(time.RFC3339, st.Until); err == nil {
				s.until = t
			}
		}
		if s.Agent == current {
			a.cur = slices.Index(a.slots, s)
		}
	}
}

// agent is the agent the next iteration runs on.
func (a *agents) agent() *slot { return a.slots[a.cur] }

// hasFallback reports whether the run has agents to fall back on.
func (a *agents) hasFallback() bool { return len(a.slots) > 1 }

// firstFree is the first agent that is free now, or nil.
func (a *agents) firstFree(now time.Time) *slot {
	for _, s := range a.slots {
		if s.free(now) {
			return s
		}
	}
	return nil
}

// freeOther reports whether an agent other than the current one is free.
func (a *agents) freeOther(now time.Time) bool {
	for i, s := range a.slots {
		if i != a.cur && s.free(now) {
			return true
		}
	}
	return false
}

// setAside marks the current agent unusable until until (or for the rest
// of the run, retired) for reason.
func (a *agents) setAside(until time.Time, exact bool, reason string, retired bool) {
	s := a.agent()
	s.until, s.Exact, s.Reason, s.Retired = until, exact, reason, retired
	s.Until = ""
	if !until.IsZero() {
		s.Until = stamp(until)
	}
}

// switchTo makes next the current agent, in place of one that is not
// free or that the run goes back from, and says so: a line, an event. It
// returns the switch, for the state.
func (r *runner) switchTo(next *slot) runlog.Switch {
	from := r.agent()
	reason, detail := runlog.SwitchBack, next.Agent+" is free again"
	if next.Reason == runlog.SwitchUsageLimit {
		detail = next.Agent + "'s usage limit has reset"
	}
	if !from.free(r.deps.Now()) {
		reason, detail = from.Reason, asideText(from)
	}
	r.cur = slices.Index(r.slots, next)
	i := len(r.records) + 1
	sw := runlog.Switch{Iteration: i, From: from.Agent, To: next.Agent, Reason: reason, Detail: r.deps.Redact(detail), At: stamp(r.deps.Now())}
	r.logf("switching agents: iteration %d runs on %s instead of %s (%s)", i, next.Agent, from.Agent, sw.Detail)
	r.logEvent("SWITCH", "iteration %d: %s -> %s (%s)", i, from.Agent, next.Agent, reason)
	ev := runlog.Event{Type: runlog.EventAgentSwitched, Iteration: i, Agent: next.name, Model: next.model, From: from.Agent, Reason: reason, Detail: sw.Detail}
	if !from.until.IsZero() {
		ev.Until = stamp(from.until)
	}
	r.ev.Emit(ev)
	return sw
}

// nextFree is the agent that frees first, of those set aside for a
// time; nil when every agent is retired.
func (a *agents) nextFree() *slot {
	var best *slot
	for _, s := range a.slots {
		if !s.Retired && (best == nil || s.until.Before(best.until)) {
			best = s
		}
	}
	return best
}

// asideText says why an agent is set aside, and until when.
func asideText(s *slot) string {
	var what string
	switch s.Reason {
	case runlog.SwitchUsageLimit:
		what = s.Agent + " hit its usage limit"
	case runlog.SwitchOutage:
		what = s.Agent + " failed with an outage"
	case runlog.SwitchStall:
		return "the loop stalled on " + s.Agent
	default:
		what = s.Agent + " is set aside"
	}
	if !s.until.IsZero() {
		what += ", until " + s.until.Local().Format("15:04:05")
	}
	return what
}

// labels lists the run's agents.
func (a *agents) labels() string {
	var l []string
	for _, s := range a.slots {
		l = append(l, s.Agent)
	}
	return strings.Join(l, ", ")
}

// fallbackEntries are the run's fallbacks, for the loop_started event.
func (a *agents) fallbackEntries() []string {
	var l []string
	for _, s := range a.slots[1:] {
		l = append(l, s.Agent)
	}
	return l
}

// outageRun counts the agent runs in a row, at the end of the records,
// that failed with an outage on agent label.
func outageRun(records []record, label string) int {
	n := 0
	for i := len(records) - 1; i >= 0; i-- {
		rec := records[i]
		if rec.agentLabel() != label || rec.ErrorKind != string(agent.ErrOutage) {
			break
		}
		n++
	}
	return n
}

// outageDue says whether the current agent is set aside after an
// outage: it failed more than --outage-retries times in a row (n) and
// another agent is free, so the next iteration runs on it, at once.
func (r *runner) outageDue(o agent.Outcome) (n int, due bool) {
	if o.ErrKind != agent.ErrOutage || !r.freeOther(r.deps.Now()) {
		return 0, false
	}
	n = outageRun(r.records, r.agent().Agent)
	return n, n > r.cfg.OutageRetries
}

// fallBack sets the current agent aside after its n-th outage in a row,
// for a cool-down: the longest backoff.
func (r *runner) fallBack(o agent.Outcome, n int) {
	cool := r.cfg.BackoffCap
	if cool <= 0 {
		cool = 5 * time.Minute
	}
	r.logf("%s failed with an outage %d time%s in a row (%s): falling back", r.agent().Agent, n, plural(n), runlog.FirstLine(o.Err))
	r.setAside(r.deps.Now().Add(cool), false, runlog.SwitchOutage, false)
}

// agentLabel is the label of the agent a record ran on.
func (rec record) agentLabel() string { return agentLabel(rec.Agent, rec.Model) }

// agentLabel names an agent as people read it: "claude", "codex:gpt-5.5",
// and for a command fallback "command:CMD".
func agentLabel(name, model string) string {
	if model == "" {
		return name
	}
	return name + ":" + model
}

// otherAgentLeft reports whether an agent other than the current one has
// not stalled (it may be set aside for a while).
func (a *agents) otherAgentLeft() bool {
	for i, s := range a.slots {
		if i != a.cur && !s.Retired {
			return true
		}
	}
	return false
}
