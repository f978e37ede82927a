package loop

import (
	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/runlog"
)

func ptr[T any](v T) *T { return &v }

// agentFinished is the agent_finished event of an agent's outcome.
func agentFinished(i int, o agent.Outcome) runlog.Event {
	ev := runlog.Event{Type: runlog.EventAgentFinished, Iteration: i, ExitCode: ptr(o.ExitCode), Steps: o.Steps,
		Duration: ptr(o.Duration.Seconds()), Error: o.Err, ErrorKind: string(o.ErrKind)}
	if o.CostKnown {
		ev.Cost = ptr(o.Cost)
	}
	if o.Usage != (agent.Usage{}) {
		ev.Tokens = &runlog.Tokens{Input: o.Usage.Input, CachedInput: o.Usage.CachedInput, Output: o.Usage.Output}
	}
	return ev
}
