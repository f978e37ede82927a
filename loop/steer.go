package loop

import "fmt"

// Steering a run from outside, through the control file (WriteControl):
// `architect pause` and `resume`, `architect cancel`, and the terminal
// view's keys (p, s). The loop tells the watchers what it did with events,
// so that a view shows a pause asked from another terminal.

// Control actions.
const (
	ControlPause  = "pause"
	ControlResume = "resume"
	ControlCancel = "cancel"
	// ControlStop asks the loop to stop once the iteration running is
	// recorded (before the next one starts, or during a wait).
	ControlStop = "stop"
)

// Events of steering: the loop paused (and waits for a resume), or went
// on.
const (
	EventPaused  = "paused"
	EventResumed = "resumed"
)

// StopRequested: the loop stopped between iterations because it was
// asked to (ControlStop). The run can be resumed.
const StopRequested = "stop_requested"

// stopIfAsked stops the loop when a stop was asked; it reports whether it
// did.
func (r *runner) stopIfAsked() bool {
	if r.control() != ControlStop {
		return false
	}
	r.logf("stopping after iteration %d, as asked", len(r.records))
	r.stop(StopRequested, fmt.Sprintf("stopped after iteration %d, as asked", len(r.records)))
	return true
}

// emitPaused and emitResumed tell the watchers; a pause's reason is
// "asked" (architect pause, the view's key) or "stall" (--on-stall pause).
func (r *runner) emitPaused(reason, detail string) {
	r.ev.emit(Event{Type: EventPaused, Iteration: len(r.records), Reason: reason, Detail: detail})
}
func (r *runner) emitResumed() { r.ev.emit(Event{Type: EventResumed, Iteration: len(r.records)}) }

// startedEvent is loop_started; a resumed run's also says what the earlier
// iterations cost, so that a watcher's figures start right.
func (r *runner) startedEvent() Event {
	own := r.slots[0]
	ev := Event{Type: EventLoopStarted, Iteration: len(r.records), MaxIterations: r.cfg.MaxIterations,
		Agent: own.name, Model: own.model, Fallback: r.fallbackEntries(), Checks: r.shown.Checks, Workspace: r.ws.dir, Branch: r.ws.branch, Resumed: r.resumed,
		NoChecks: r.res.NoChecks}
	if len(r.records) > 0 {
		ev.TotalCost, ev.KnownCost = r.res.TotalCost, ptr(r.res.KnownCost)
	}
	return ev
}
