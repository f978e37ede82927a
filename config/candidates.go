package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/architect-dev/architect/agent"
	"go.yaml.in/yaml/v3"
)

// MaxCandidates bounds candidates: each candidate is an agent process (with
// its checks) and a worktree of its own, all at once.
const MaxCandidates = 16

// candidateKeys are the keys of one entry of the list form of candidates.
var candidateKeys = []string{"agent", "model", "agent_cmd"}

// CandidateCount is how many candidates each round starts: the list's
// length, else Candidates; 1 (one agent, no round) for 0, as a run saved
// before candidates existed holds.
func (c Config) CandidateCount() int {
	if len(c.CandidateAgents) > 0 {
		return len(c.CandidateAgents)
	}
	return max(c.Candidates, 1)
}

// CandidateConfigs returns the agent.Config of each candidate of a round,
// in order: the list's entries, else CandidateCount copies of the run's
// own agent. An entry for the run's own agent (another model of it) runs
// the same executable with the same extra arguments, as a fallback does;
// any other agent its usual executable, found on PATH. Prices are the
// run's.
func (c Config) CandidateConfigs() []agent.Config {
	if len(c.CandidateAgents) == 0 {
		out := make([]agent.Config, c.CandidateCount())
		for i := range out {
			out[i] = c.AgentConfig()
			out[i].Args = slices.Clone(out[i].Args)
		}
		return out
	}
	out := make([]agent.Config, 0, len(c.CandidateAgents))
	for _, ca := range c.CandidateAgents {
		ac := agent.Config{Name: ca.Agent, Model: ca.Model, Prices: c.Prices}
		switch {
		case ca.Agent == "command":
			ac.Cmd = ca.AgentCmd
		case ca.Agent == c.Agent:
			ac.Bin, ac.Args = c.AgentBin, slices.Clone(c.AgentArgs)
		}
		out = append(out, ac)
	}
	return out
}

// CandidatesFinishFirst says whether a candidate that succeeds stops the
// others of its round ("" is the default, as a saved run may hold).
func (c Config) CandidatesFinishFirst() bool {
	mode := c.CandidatesFinish
	if mode == "" {
		mode = Defaults().CandidatesFinish
	}
	return mode == CandidatesFirst
}

// CandidatesLessonsOn says whether the next round's prompt carries what
// the losing candidates showed ("" is the default, as a saved run may
// hold).
func (c Config) CandidatesLessonsOn() bool {
	mode := c.CandidatesLessons
	if mode == "" {
		mode = Defaults().CandidatesLessons
	}
	return mode == LessonsOn
}

// candidateLabel names a list entry as people read it: "claude",
// "codex:gpt-5.5", "command:./my-agent.sh".
func candidateLabel(ca CandidateAgent) string {
	if ca.Agent == "command" {
		return "command:" + ca.AgentCmd
	}
	return AgentLabel(agent.Config{Name: ca.Agent, Model: ca.Model})
}

// candidatesHint shows both forms of candidates.
const candidatesHint = "give a number from 1 to 16 (--candidates 3), or in the file a list such as candidates: [{agent: claude, model: sonnet}, {agent: codex}, {agent: command, agent_cmd: ./my-agent.sh}]"

// loadCandidates reads the list form of candidates (seq; anything but a
// list or a number is refused) into c: one mapping per candidate, with
// agent, model and agent_cmd. Its shape is checked here, where each
// entry's line is known; what the entries say (a known agent, a command
// for the command agent) is checked by validateCandidates.
func loadCandidates(path string, seq *yaml.Node, c *Config) Errors {
	if seq.Kind != yaml.SequenceNode {
		return Errors{{Source: at(path, seq), Key: "candidates", Msg: "must be a number or a list of candidates, not a " + kindName(seq.Kind), Hint: candidatesHint}}
	}
	if len(seq.Content) == 0 {
		return Errors{{Source: at(path, seq), Key: "candidates", Msg: "an empty list names no candidate", Hint: candidatesHint}}
	}
	var errs Errors
	list := []CandidateAgent{} // a new list: a batch task's must not share its defaults'
	for i, item := range seq.Content {
		if item.Kind != yaml.MappingNode {
			errs = append(errs, &Error{Source: at(path, item), Key: "candidates", Msg: fmt.Sprintf("candidate %d must be a mapping with agent (and model or agent_cmd), not a %s", i+1, kindName(item.Kind)), Hint: candidatesHint})
			continue
		}
		var ca CandidateAgent
		for j := 0; j+1 < len(item.Content); j += 2 {
			k, v := item.Content[j], item.Content[j+1]
			var dst *string
			switch k.Value {
			case "agent":
				dst = &ca.Agent
			case "model":
				dst = &ca.Model
			case "agent_cmd":
				dst = &ca.AgentCmd
			default:
				e := unknownKey(path, k, candidateKeys, fmt.Sprintf("candidate %d", i+1))
				e.Key = "candidates"
				errs = append(errs, e)
				continue
			}
			if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
				errs = append(errs, &Error{Source: at(path, v), Key: "candidates", Msg: fmt.Sprintf("candidate %d: %s must be a single value", i+1, k.Value), Hint: candidatesHint})
				continue
			}
			*dst = v.Value
		}
		list = append(list, ca)
	}
	if len(errs) > 0 {
		return errs
	}
	c.CandidateAgents, c.Candidates = list, len(list)
	return nil
}

// checkCandidateValues checks the texts of the list form of candidates as
// the option table's are checked (checkOptionValues).
func (c *Config) checkCandidateValues(ps *problems) {
	for i, ca := range c.CandidateAgents {
		for _, f := range []struct{ key, text string }{{"agent", ca.Agent}, {"model", ca.Model}, {"agent_cmd", ca.AgentCmd}} {
			if msg, hint := textProblem(f.text, f.key); msg != "" {
				ps.add("candidates", fmt.Sprintf("candidate %d: %s %s", i+1, f.key, msg), hint)
			}
		}
	}
}

// ValidateCandidates checks the options of rounds alone, src saying where
// each came from: for a resumed run, whose saved configuration the flags
// given adjust (Override) without the whole validation a new run gets.
func (c *Config) ValidateCandidates(src Sources) error {
	ps := &problems{src: src}
	c.validateCandidates(ps)
	return ps.errs.orNil()
}

// validateCandidates reports the problems of candidates and of the
// options of rounds, and fills in the defaults of the enumerations (a
// saved run may hold ""). It runs after the checks are settled: rounds
// are judged by them.
func (c *Config) validateCandidates(ps *problems) {
	if c.CandidatesFinish == "" {
		c.CandidatesFinish = Defaults().CandidatesFinish
	}
	if c.CandidatesLessons == "" {
		c.CandidatesLessons = Defaults().CandidatesLessons
	}
	switch c.CandidatesFinish {
	case CandidatesFirst, CandidatesAll:
	default:
		ps.add("candidates_finish", fmt.Sprintf("%q is neither first nor all", c.CandidatesFinish), "use --candidates-finish first (a candidate that succeeds stops the others) or all (every candidate runs to its end)")
	}
	switch c.CandidatesLessons {
	case LessonsOn, LessonsOff:
	default:
		ps.add("candidates_lessons", fmt.Sprintf("%q is neither on nor off", c.CandidatesLessons), "use --candidates-lessons on or off")
	}
	n := c.Candidates
	if len(c.CandidateAgents) > 0 || n == 0 && ps.src["candidates"] == "" {
		n = c.CandidateCount() // the list's length; 1 for a saved run's 0
	}
	if n < 1 || n > MaxCandidates {
		what := fmt.Sprintf("%d is out of range (1 to %d)", n, MaxCandidates)
		if len(c.CandidateAgents) > 0 {
			what = fmt.Sprintf("a list of %d is too long (at most %d)", n, MaxCandidates)
		}
		ps.add("candidates", what+": each candidate is an agent process, with its checks, and a worktree of its own, all at once", candidatesHint)
		return
	}
	c.Candidates = n
	for i, ca := range c.CandidateAgents {
		switch {
		case strings.TrimSpace(ca.Agent) == "":
			ps.add("candidates", fmt.Sprintf("candidate %d names no agent", i+1), "give each candidate its agent: {agent: codex}, {agent: claude, model: sonnet} or {agent: command, agent_cmd: ./my-agent.sh}")
		case !agent.Known(ca.Agent):
			ps.add("candidates", fmt.Sprintf("candidate %d: %q names no agent architect knows (%s)", i+1, ca.Agent, strings.Join(agent.Names(), ", ")), "give each candidate's agent as one of: "+strings.Join(agent.Names(), ", "))
		case ca.Agent == "command" && strings.TrimSpace(ca.AgentCmd) == "":
			ps.add("candidates", fmt.Sprintf("candidate %d: the command agent needs its shell command", i+1), "give it as {agent: command, agent_cmd: ./my-agent.sh} (the prompt arrives on stdin)")
		case ca.Agent != "command" && ca.AgentCmd != "":
			ps.add("candidates", fmt.Sprintf("candidate %d: agent_cmd is the command agent's, but the agent is %q", i+1, ca.Agent), "drop agent_cmd, or write {agent: command, agent_cmd: …}")
		}
	}
	if n > 1 && len(c.Checks) == 0 {
		ps.add("candidates", fmt.Sprintf("%d candidates need checks to judge them, and the run has none", n), "candidates are judged by the checks: give one or more with --check CMD, or run one agent (drop --candidates)")
	}
}
