package cli

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"syscall"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/hooks"
	"github.com/architect-dev/architect/loop"
)

// watch sets deps.Log and deps.Events for the ways a run is watched: the
// progress view (progress.go), the event stream copied to --events, and
// the hooks (--on-iteration, --on-finish, --notify, --push). Observers see
// each event in that order. The returned stop ends the view and closes the
// --events file; call it before printing the result.
func watch(ctx context.Context, e *env, cfg config.Config, deps *loop.Deps) (stop func(), err error) {
	pg := newProgress(e, cfg.Quiet)
	deps.Log = pg.Log
	var observers []func(loop.Event)
	if pg.Observe != nil {
		observers = append(observers, pg.Observe)
	}
	closeEvents := func() {}
	if cfg.Events != "" {
		w := e.stdout
		if cfg.Events != "-" {
			// Not blocking: opening a FIFO nobody reads would wait for ever.
			f, err := os.OpenFile(cfg.Events, os.O_CREATE|os.O_TRUNC|os.O_WRONLY|syscall.O_NONBLOCK, 0o644)
			if err != nil {
				pg.Stop()
				msg := unwrapPath(err)
				if errors.Is(err, syscall.ENXIO) {
					msg = "it is a FIFO no process reads"
				}
				return nil, &loop.UsageError{Msg: "cannot write the events to " + cfg.Events + ": " + msg, Hint: "give --events a writable path, or - for standard output"}
			}
			w, closeEvents = f, func() { f.Close() }
		}
		observers = append(observers, streamEvents(w))
	}
	hc := hooks.Config{OnIteration: cfg.OnIteration, OnFinish: cfg.OnFinish, Notify: cfg.Notify, Push: cfg.Push, Log: pg.Log, Bell: e.stderr, Redact: deps.Redact}
	if hc.Active() {
		observers = append(observers, hooks.New(ctx, hc).Observe)
	}
	if len(observers) > 0 {
		deps.Events = func(ev loop.Event) {
			for _, o := range observers {
				o(ev)
			}
		}
	}
	return func() { pg.Stop(); closeEvents() }, nil
}

// streamEvents writes each event as one JSON line, byte for byte as in
// .architect/events.jsonl (the emitter marshals the same value).
func streamEvents(w io.Writer) func(loop.Event) {
	return func(ev loop.Event) {
		data, err := json.Marshal(ev)
		if err != nil {
			return
		}
		w.Write(append(data, '\n'))
	}
}
