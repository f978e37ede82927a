package report

import (
	"fmt"
	"strings"

	"github.com/architect-dev/architect/runlog"
)

// steering is what the summary says about the agents a run used, its
// usage-limit waits, its switches, stalls, idleness and the notes of the
// person running it: each a row only when there is something to say.
func steering(r *Run) []field {
	st := r.State
	var out []field
	costs := runlog.AgentCosts(r.Iterations)
	if len(costs) > 1 || len(r.Config.Fallback) > 0 {
		var parts []string
		for _, a := range costs {
			label := a.Agent
			if a.Model != "" {
				label += " (" + a.Model + ")"
			}
			parts = append(parts, fmt.Sprintf("%s: %d iteration%s, %s", label, a.Iterations, plural(a.Iterations), costOf(a.Cost)))
		}
		if len(r.Config.Fallback) > 0 {
			parts = append(parts, "fallback: "+strings.Join(r.Config.Fallback, ", "))
		}
		out = append(out, field{"Agents", strings.Join(parts, "; "), true})
	}
	for _, s := range st.Switches {
		out = append(out, field{fmt.Sprintf("Switch before iteration %d", s.Iteration),
			fmt.Sprintf("%s → %s (%s: %s)", s.From, s.To, s.Reason, s.Detail), true})
	}
	if st.UsageLimitWaits > 0 {
		v := fmt.Sprintf("%d, %s in all", st.UsageLimitWaits, dur(st.UsageLimitWaited))
		var each []string
		for _, w := range st.Waits {
			how := "guessed"
			if w.Exact {
				how = "to its reset time"
			}
			each = append(each, fmt.Sprintf("%s for %s (%s)", dur(w.Seconds), w.Agent, how))
		}
		if len(each) > 0 {
			v += ": " + strings.Join(each, ", ")
		}
		out = append(out, field{"Usage-limit waits", v, true})
	}
	for _, s := range st.Stalls {
		out = append(out, field{fmt.Sprintf("Stall at iteration %d", s.Iteration), fmt.Sprintf("%s on %s: %s", s.Action, s.Agent, s.Detail), true})
	}
	if st.IdleIterations > 0 {
		out = append(out, field{"Idle iterations", fmt.Sprintf("%d in a row at the end (changed nothing, checks as before)", st.IdleIterations), false})
	}
	out = append(out, runJudgeFields(r.Iterations)...)
	notes := 0
	for _, it := range r.Iterations {
		notes += len(it.Notes)
	}
	if notes > 0 {
		out = append(out, field{"Notes from the person", fmt.Sprintf("%d, in the prompts of the iterations marked below", notes), false})
	}
	return out
}

// iterSteering is what an iteration's details say about its agent and
// the notes its prompt carried.
func iterSteering(it runlog.Iteration) []field {
	var out []field
	if it.Agent != "" {
		label := it.Agent
		if it.Model != "" {
			label += " (" + it.Model + ")"
		}
		out = append(out, field{"Ran on", label, false})
	}
	for _, n := range it.Notes {
		out = append(out, field{"Note", n, true})
	}
	if it.Answer != "" {
		out = append(out, field{"Answer carried", it.Answer, true})
	}
	if it.Question != "" {
		out = append(out, field{"Question asked", it.Question, true})
	}
	return out
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
