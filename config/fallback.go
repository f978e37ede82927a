package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/architect-dev/architect/agent"
)

// The last look before a success is declared (final_check).
const (
	FinalCheckClean = "clean" // the checks again, in a fresh checkout of the final tree
	FinalCheckSame  = "same"  // the checks again, in the agent's tree
	FinalCheckOff   = "off"   // no last look
)

// What the loop does when it goes round in circles (on_stall).
const (
	StallStop     = "stop"     // the run stops, stop reason stalled
	StallFallback = "fallback" // the next fallback agent takes over
	StallPause    = "pause"    // the loop pauses until `architect say` or `architect resume`
)

// AgentConfig is the agent.Config of the run's own agent.
func (c Config) AgentConfig() agent.Config {
	return agent.Config{Name: c.Agent, Cmd: c.AgentCmd, Bin: c.AgentBin, Model: c.Model, Args: c.AgentArgs, Prices: c.Prices}
}

// ParseFallback reads one fallback entry: "AGENT" or "AGENT:MODEL", and
// for the command agent "command:CMD" (everything after the first colon is
// its shell command).
func ParseFallback(entry string) (name, model string, err error) {
	e := strings.TrimSpace(entry)
	name, model, hasModel := strings.Cut(e, ":")
	name, model = strings.TrimSpace(name), strings.TrimSpace(model)
	switch {
	case e == "":
		return "", "", fmt.Errorf("an empty entry")
	case !agent.Known(name):
		return "", "", fmt.Errorf("%q names no agent architect knows (%s)", entry, strings.Join(agent.Names(), ", "))
	case hasModel && model == "":
		return "", "", fmt.Errorf("%q has a colon but no model after it", entry)
	case name == "command" && model == "":
		return "", "", fmt.Errorf("%q: the command agent needs its shell command after the colon, as command:CMD", entry)
	case strings.ContainsAny(model, "\x00\n\r"):
		return "", "", fmt.Errorf("%q: the model holds a line break or a NUL", entry)
	}
	return name, model, nil
}

// FallbackAgents returns the agent.Config of each fallback entry, in
// order. An entry for the run's own agent (another model of it) runs the
// same executable with the same extra arguments; any other agent runs its
// usual executable, found on PATH, with none. Prices are the run's.
// Entries that do not parse are left out (Validate reports them).
func (c Config) FallbackAgents() []agent.Config {
	var out []agent.Config
	for _, e := range c.Fallback {
		name, model, err := ParseFallback(e)
		if err != nil {
			continue
		}
		ac := agent.Config{Name: name, Model: model, Prices: c.Prices}
		switch {
		case name == "command":
			ac.Cmd, ac.Model = model, ""
		case name == c.Agent:
			ac.Bin, ac.Args = c.AgentBin, slices.Clone(c.AgentArgs)
		}
		out = append(out, ac)
	}
	return out
}

// ReviewerAgent is the agent.Config of the reviewer (false: none, or one
// that does not parse, which Validate reports). Like a fallback entry, the
// run's own agent (another model of it) runs the same executable with the
// same extra arguments.
func (c Config) ReviewerAgent() (agent.Config, bool) {
	spec := c.reviewerSpec()
	if strings.TrimSpace(spec) == "" {
		return agent.Config{}, false
	}
	name, model, err := ParseFallback(spec)
	if err != nil {
		return agent.Config{}, false
	}
	ac := agent.Config{Name: name, Model: model, Prices: c.Prices}
	switch {
	case name == "command":
		ac.Cmd, ac.Model = model, ""
	case name == c.Agent:
		ac.Bin, ac.Args = c.AgentBin, slices.Clone(c.AgentArgs)
	}
	return ac, true
}

// validateReviewer reports the problems of the reviewer: an entry that
// does not parse, and what it cannot be combined with yet.
func (c *Config) validateReviewer(ps *problems) {
	spec := c.reviewerSpec()
	if strings.TrimSpace(spec) == "" {
		return
	}
	name, _, err := ParseFallback(spec)
	switch {
	case err != nil && strings.TrimSpace(c.Reviewer) == "":
		ps.addErr("roles", err, "give the reviewer entry agent: AGENT and model: MODEL, e.g. {role: reviewer, agent: codex, model: gpt-5.5} (agent: command, model: CMD for a shell command)")
	case err != nil:
		ps.addErr("reviewer", err, "give the reviewer as AGENT or AGENT:MODEL, e.g. --reviewer codex:gpt-5.5 (command:CMD for a shell command)")
	case len(c.Checks) == 0:
		ps.add("reviewer", "a reviewer needs at least one check: it reviews only the iterations whose checks all pass", "add a check with --check 'CMD' (the tests stay the first judge), or drop --reviewer")
	case c.CandidateCount() > 1:
		ps.add("reviewer", "a reviewer does not work with candidates yet", "drop --candidates or --reviewer")
	case c.MaxCost > 0 && name == "command" && !c.AgentReportsCost:
		ps.add("reviewer", "a budget needs the cost of every agent run, and a command reviewer reports none unless it writes it to $ARCHITECT_RESULT_FILE",
			`have the reviewer write {"cost_usd": N} to "$ARCHITECT_RESULT_FILE" and say so with --agent-reports-cost (YAML agent_reports_cost: true), or drop --max-cost`)
	}
}

// AgentLabel names an agent and its model as people and records read it:
// "claude", "codex:gpt-5.5", "command".
func AgentLabel(ac agent.Config) string {
	if ac.Model == "" || ac.Name == "command" {
		return ac.Name
	}
	return ac.Name + ":" + ac.Model
}

// validateFallback reports the problems of the fallback list and of the
// stall options that depend on it.
func (c *Config) validateFallback(ps *problems) {
	seen := map[string]bool{AgentLabel(c.AgentConfig()): true}
	if c.Agent == "command" {
		seen["command:"+c.AgentCmd] = true
	}
	for _, e := range c.Fallback {
		name, model, err := ParseFallback(e)
		if err != nil {
			ps.addErr("fallback", err, "give each fallback as AGENT or AGENT:MODEL, e.g. --fallback codex:gpt-5.5 (command:CMD for a shell command)")
			continue
		}
		key := AgentLabel(agent.Config{Name: name, Model: model})
		if name == "command" {
			key = "command:" + model
		}
		if seen[key] {
			ps.add("fallback", fmt.Sprintf("%q is already in the list (or is the run's own agent)", e), "give each agent (and model) once")
			continue
		}
		seen[key] = true
	}
	switch c.OnStall {
	case StallStop, StallPause:
	case StallFallback:
		if len(c.Fallback) == 0 {
			ps.add("on_stall", "fallback needs an agent to fall back on, and none is given", "add one with --fallback AGENT[:MODEL], or use --on-stall stop or pause")
		}
	default:
		ps.add("on_stall", fmt.Sprintf("%q is none of stop, fallback, pause", c.OnStall), "use --on-stall stop, fallback or pause")
	}
	switch c.FinalCheck {
	case FinalCheckClean, FinalCheckSame, FinalCheckOff:
	default:
		ps.add("final_check", fmt.Sprintf("%q is none of clean, same, off", c.FinalCheck), "use --final-check clean, same or off")
	}
	if c.OutageRetries < 0 || c.OutageRetries > 100 {
		ps.add("outage_retries", fmt.Sprintf("%d is out of range", c.OutageRetries), "use a number from 0 to 100")
	}
	if c.StallThreshold < 0 || c.StallThreshold > 1000 {
		ps.add("stall_threshold", fmt.Sprintf("%d is out of range", c.StallThreshold), "use a number from 0 (never) to 1000")
	}
}
