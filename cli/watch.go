package cli

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/hooks"
	"github.com/architect-dev/architect/loop"
	"github.com/architect-dev/architect/merge"
	"github.com/architect-dev/architect/notify"
	"github.com/architect-dev/architect/report"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/tui"
	"github.com/architect-dev/architect/usererr"
)

// watch sets deps.Log and deps.Events for the ways a run is watched: the
// view (view.go), the event stream copied to --events, and the hooks
// (--on-iteration, --on-finish, --notify, --push). Observers see each
// event in that order. The returned stop ends the view and closes the
// --events file; call it before printing the result.
func watch(ctx context.Context, e *env, cfg config.Config, info tui.Info, deps *loop.Deps) (stop func(), err error) {
	run := &runFiles{}
	v := newView(e, cfg, info, run)
	deps.Log = v.log
	observers := []func(runlog.Event){run.observe}
	if v.observe != nil {
		observers = append(observers, v.observe)
	}
	closeEvents := func() {}
	if cfg.Events != "" {
		w := e.stdout
		if cfg.Events != "-" {
			// Not blocking: opening a FIFO nobody reads would wait for ever.
			f, err := os.OpenFile(cfg.Events, os.O_CREATE|os.O_TRUNC|os.O_WRONLY|syscall.O_NONBLOCK, 0o644)
			if err != nil {
				v.stop()
				msg := unwrapPath(err)
				if errors.Is(err, syscall.ENXIO) {
					msg = "it is a FIFO no process reads"
				}
				return nil, &usererr.Error{Msg: "cannot write the events to " + cfg.Events + ": " + msg, Hint: "give --events a writable path, or - for standard output"}
			}
			w, closeEvents = f, func() { f.Close() }
		}
		observers = append(observers, streamEvents(w))
	}
	// The report is written when the loop ends, before the hooks run: an
	// on_finish hook gets its path (ARCHITECT_REPORT_PATH).
	observers = append(observers, writeReportAtEnd(run.workspace, v.log))
	hc := hooks.Config{OnIteration: cfg.OnIteration, OnFinish: cfg.OnFinish, Shell: cfg.CheckShell, Notify: cfg.Notify, Push: cfg.Push, Log: v.log, Bell: e.stderr, Redact: deps.Redact}
	if hc.Active() {
		h := hooks.New(ctx, hc)
		observers = append(observers, h.Observe)
		deps.Confine = h.Confine // the hooks run confined by the run's sandbox, as its checks
	}
	// The notifiers post off the loop's path; at the end, what is still
	// queued (the last message) gets a bounded time to go.
	closeNotify := func() {}
	if len(cfg.Notifiers) > 0 {
		targets, err := notify.Resolve(cfg.Notifiers, os.LookupEnv)
		if err != nil {
			v.stop()
			closeEvents()
			return nil, err
		}
		n := notify.New(notify.Options{Targets: targets, Log: v.log, Redact: deps.Redact, Task: merge.TaskTitle(cfg.Task, cfg.Spec)})
		observers = append(observers, n.Observe)
		closeNotify = func() { n.Close(notifyDrain) }
	}
	deps.Events = func(ev runlog.Event) {
		for _, o := range observers {
			o(ev)
		}
	}
	return func() { closeNotify(); v.stop(); closeEvents() }, nil
}

// notifyDrain bounds the time the notifiers' last posts may take once the
// loop ended.
const notifyDrain = 15 * time.Second

// streamEvents writes each event as one JSON line, byte for byte as in
// .architect/events.jsonl (the emitter marshals the same value).
func streamEvents(w io.Writer) func(runlog.Event) {
	return func(ev runlog.Event) {
		data, err := json.Marshal(ev)
		if err != nil {
			return
		}
		// A reader that went away (a closed pipe) must not stop the run.
		_, _ = w.Write(append(data, '\n'))
	}
}

// runFiles knows where the running loop keeps its records: the workspace
// its loop_started event names (a worktree is made by the loop itself).
type runFiles struct {
	mu sync.Mutex
	ws string
}

func (r *runFiles) observe(ev runlog.Event) {
	if ev.Type == runlog.EventLoopStarted && ev.Workspace != "" {
		r.mu.Lock()
		r.ws = ev.Workspace
		r.mu.Unlock()
	}
}

// workspace is the run's workspace, "" before the loop started.
func (r *runFiles) workspace() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ws
}

// writeReportAtEnd writes the run's report (report.WriteRun) when the
// loop finishes; a failure is a warning on log.
func writeReportAtEnd(workspace func() string, log io.Writer) func(runlog.Event) {
	return func(ev runlog.Event) {
		if ev.Type != runlog.EventLoopFinished || workspace() == "" {
			return
		}
		if _, err := report.WriteRun(workspace(), time.Now()); err != nil {
			usererr.Say(log, usererr.LevelWarning, "could not write the report: %v", err)
		}
	}
}
