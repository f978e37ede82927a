package loop

import (
	"github.com/architect-dev/architect/runlog"
)

// Steering a run from outside, through the control file (runlog.WriteControl):
// `architect pause` and `resume`, `architect cancel`, and the terminal
// view's keys (p, s). The loop tells the watchers what it did with events,
// so that a view shows a pause asked from another terminal.

// control is the request in the control file: pause, resume, cancel, stop or "".
func (w *workspace) control() string { return runlog.ReadControl(w.state(runlog.ControlFile)) }

func (w *workspace) pauseRequested() bool { return w.control() == runlog.ControlPause }

// emitPaused and emitResumed tell the watchers; a pause's reason is
// "asked" (architect pause, the view's key) or "stall" (--on-stall pause).
func (r *runner) emitPaused(reason, detail string) {
	r.ev.Emit(runlog.Event{Type: runlog.EventPaused, Iteration: len(r.records), Reason: reason, Detail: detail})
}
func (r *runner) emitResumed() {
	r.ev.Emit(runlog.Event{Type: runlog.EventResumed, Iteration: len(r.records)})
}

// startedEvent is loop_started; a resumed run's also says what the earlier
// iterations cost, so that a watcher's figures start right.
func (r *runner) startedEvent() runlog.Event {
	own := r.slots[0]
	ev := runlog.Event{Type: runlog.EventLoopStarted, Iteration: len(r.records), MaxIterations: r.cfg.MaxIterations,
		Agent: own.name, Model: own.model, Fallback: r.fallbackEntries(), Checks: r.shown.Checks, Workspace: r.ws.dir, Branch: r.ws.branch, Resumed: r.resumed,
		NoChecks: r.res.NoChecks}
	if len(r.records) > 0 {
		ev.TotalCost, ev.KnownCost = r.res.TotalCost, ptr(r.res.KnownCost)
	}
	return ev
}
