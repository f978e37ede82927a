package cli

import (
	"errors"
	"io"
	"os"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/ghactions"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/tui"
	"golang.org/x/term"
)

// view is how a run shows itself while it works. The loop writes its own
// "architect: …" lines to log; what becomes of them depends on where the
// output goes:
//
//   - a terminal (stdout and stderr both, TERM not dumb, not --plain) gets
//     the full-screen view (package tui), drawn on stderr, with keys;
//   - anything else (a pipe, a CI log, --plain) gets the loop's lines as
//     plain lines, each prefixed with its UTC time, and a line for each
//     candidate of a round as it finishes;
//   - --quiet gets nothing: only the final result is printed.
type view struct {
	log     io.Writer
	observe func(runlog.Event) // nil when the view needs no events
	stop    func()             // ends the view; call before printing the result
}

func newView(e *env, cfg config.Config, info tui.Info, run *runFiles) view {
	if cfg.Quiet {
		return view{log: io.Discard, stop: func() {}}
	}
	// The event stream on a terminal's stdout would be drawn over the view.
	if out, in, ok := e.terminal(); ok && !cfg.Plain && cfg.Events != "-" {
		control := func(action string) error {
			ws := run.workspace()
			if ws == "" {
				return errors.New("the loop has not started yet")
			}
			return runlog.WriteControl(ws, action)
		}
		c := tui.Controls{
			Interrupt: e.interrupt.key,
			Pause: func(pause bool) error {
				if pause {
					return control(runlog.ControlPause)
				}
				return control(runlog.ControlResume)
			},
			StopAfter: func() error { return control(runlog.ControlStop) },
			Say: func(text string) error {
				ws := run.workspace()
				if ws == "" {
					return errors.New("the loop has not started yet")
				}
				if asked, err := answerFromView(ws, text); asked {
					return err
				}
				return sayFromView(ws, text)
			},
		}
		live := tui.Start(info, c, loader{run}, tui.Options{Out: out, In: in, NoColor: e.noColor()})
		restore := e.interrupt.say(live)
		return view{log: live, observe: live.Observe, stop: func() {
			restore()
			live.Stop()
			if in != nil && in != e.stdin {
				in.Close()
			}
		}}
	}
	// The loop's lines, and from its events a line per candidate of a
	// round (--candidates) and one for the kept one.
	plain := tui.Plain(e.stderr, nil)
	return view{log: plain, observe: tui.PlainEvents(plain), stop: func() {}}
}

// terminal returns the terminal a full-screen view is drawn on (stderr)
// and where its keys come from (stdin, else the controlling terminal),
// when architect talks to a person at a terminal: stdout and stderr are
// terminals, TERM is not dumb, and this is not a GitHub Actions log (act
// gives its runs a pseudo-terminal).
func (e *env) terminal() (out, in *os.File, ok bool) {
	if ghactions.Enabled(e.lookup) {
		return nil, nil, false
	}
	if t, _ := e.lookup("TERM"); t == "dumb" {
		return nil, nil, false
	}
	out, ok1 := e.stderr.(*os.File)
	stdout, ok2 := e.stdout.(*os.File)
	if !ok1 || !ok2 || !term.IsTerminal(int(out.Fd())) || !term.IsTerminal(int(stdout.Fd())) {
		return nil, nil, false
	}
	if f, ok := e.stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return out, f, true
	}
	tty, err := os.Open("/dev/tty")
	if err != nil {
		return nil, nil, false
	}
	return out, tty, true
}

// isTerminal reports whether a person watches at a terminal (see terminal).
func (e *env) isTerminal() bool {
	_, in, ok := e.terminal()
	if in != nil && in != e.stdin {
		in.Close()
	}
	return ok
}

// noColor reports NO_COLOR: set and not empty (https://no-color.org).
func (e *env) noColor() bool {
	v, _ := e.lookup("NO_COLOR")
	return v != ""
}
