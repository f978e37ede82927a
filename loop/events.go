package loop

import (
	"time"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/runlog"
)

// emitter is the run's event log (runlog.EventLog) under the names the
// runner calls it by; a nil *emitter does nothing.
type emitter runlog.EventLog

func newEmitter(path string, observe func(runlog.Event), now func() time.Time, warn func(string)) *emitter {
	return (*emitter)(runlog.OpenEventLog(path, observe, now, warn))
}

func (e *emitter) emit(ev runlog.Event) { (*runlog.EventLog)(e).Emit(ev) }

// activity emits agent_activity, bounded; clean makes the agent's text
// safe (the boundary where it enters).
func (e *emitter) activity(iteration int, text string, clean func(string) string) {
	(*runlog.EventLog)(e).Activity(iteration, text, clean)
}

func (e *emitter) close() { (*runlog.EventLog)(e).Close() }

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

func checkFinished(i, index int, c runlog.CheckResult) runlog.Event { return c.FinishedEvent(i, index) }

func iterationFinished(it runlog.Iteration) runlog.Event { return it.FinishedEvent() }
