package cli

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/architect-dev/architect/ghactions"
	"github.com/architect-dev/architect/loop"
	"golang.org/x/term"
)

// progress is how a run shows itself on stderr while it works. The loop
// writes its own "architect: …" lines to Log; what becomes of them depends
// on where stderr goes:
//
//   - a terminal gets the live view (liveView): it replaces the loop's
//     per-iteration lines ("architect: iteration …"), and prints every other
//     line (warnings, pause, usage limit, hooks) above itself;
//   - anything else (a pipe, a CI log) gets the loop's lines as plain
//     lines, each prefixed with its UTC time;
//   - --quiet gets nothing: only the final result is printed.
type progress struct {
	Log     io.Writer        // for loop.Deps.Log and the hooks
	Observe func(loop.Event) // nil when the view needs no events
	Stop    func()           // ends the view; call before printing the result
}

// liveTick is how often the live view redraws by itself (spinner, clocks).
const liveTick = 100 * time.Millisecond

func newProgress(e *env, quiet bool) progress {
	if quiet {
		return progress{Log: io.Discard, Stop: func() {}}
	}
	// A GitHub Actions log is no terminal, even when a runner (act) gives a pty.
	if f, ok := e.stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) && !ghactions.Enabled(e.lookup) {
		if t, _ := e.lookup("TERM"); t != "dumb" {
			noColor, _ := e.lookup("NO_COLOR")
			v := startLive(f, int(f.Fd()), palette{on: noColor == ""}, time.Now)
			return progress{Log: v, Observe: v.observe, Stop: v.stop}
		}
	}
	return progress{Log: &stampWriter{w: e.stderr, now: time.Now}, Stop: func() {}}
}

// stampWriter prefixes each of the loop's lines with its UTC time:
// "2026-11-22T08:00:00Z architect: iteration 1/25: running the claude agent".
// The "architect:" prefix stays, as on every line architect writes to stderr.
type stampWriter struct {
	mu      sync.Mutex
	w       io.Writer
	now     func() time.Time
	partial []byte
}

func (s *stampWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.partial = append(s.partial, p...)
	for {
		i := bytes.IndexByte(s.partial, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := string(s.partial[:i])
		s.partial = s.partial[i+1:]
		if _, err := io.WriteString(s.w, s.now().UTC().Format(time.RFC3339)+" "+line+"\n"); err != nil {
			return len(p), err
		}
	}
}

// liveView draws the display on a terminal, redrawing it in place as
// events arrive and on every tick.
type liveView struct {
	mu      sync.Mutex
	w       io.Writer
	fd      int
	pal     palette
	now     func() time.Time
	d       display
	tick    int
	drawn   int // lines of the frame on screen
	partial []byte
	done    chan struct{}
	ended   chan struct{}
	once    sync.Once
}

func startLive(w io.Writer, fd int, pal palette, now func() time.Time) *liveView {
	v := &liveView{w: w, fd: fd, pal: pal, now: now, done: make(chan struct{}), ended: make(chan struct{})}
	go v.run()
	return v
}

func (v *liveView) run() {
	defer close(v.ended)
	t := time.NewTicker(liveTick)
	defer t.Stop()
	for {
		select {
		case <-v.done:
			return
		case <-t.C:
			v.mu.Lock()
			v.tick++
			v.redraw()
			v.mu.Unlock()
		}
	}
}

func (v *liveView) observe(ev loop.Event) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.d.apply(ev, v.now())
	v.redraw()
}

// Write takes the loop's log lines: per-iteration ones are dropped (the
// view shows them), others are printed above the view.
func (v *liveView) Write(p []byte) (int, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.partial = append(v.partial, p...)
	var out bytes.Buffer
	for {
		i := bytes.IndexByte(v.partial, '\n')
		if i < 0 {
			break
		}
		line := string(v.partial[:i])
		v.partial = v.partial[i+1:]
		if !strings.HasPrefix(line, "architect: iteration ") {
			out.WriteString(line + "\x1b[K\n")
		}
	}
	if out.Len() > 0 {
		v.clear()
		v.w.Write(out.Bytes())
		v.redraw()
	}
	return len(p), nil
}

// clear moves the cursor to the top of the frame and erases it.
func (v *liveView) clear() {
	if v.drawn > 0 {
		io.WriteString(v.w, "\r\x1b["+itoa(v.drawn)+"A\x1b[J")
		v.drawn = 0
	}
}

func (v *liveView) redraw() {
	width, _, err := term.GetSize(v.fd)
	if err != nil || width <= 0 {
		width = 80
	}
	lines := v.d.frame(v.now(), v.tick, width-1, v.pal)
	var b bytes.Buffer
	if v.drawn > 0 {
		b.WriteString("\r\x1b[" + itoa(v.drawn) + "A")
	}
	for _, l := range lines {
		b.WriteString(l + "\x1b[K\n")
	}
	b.WriteString("\x1b[J")
	v.w.Write(b.Bytes())
	v.drawn = len(lines)
}

// stop ends the ticker and leaves the last frame on screen.
func (v *liveView) stop() {
	v.once.Do(func() {
		close(v.done)
		<-v.ended
		v.mu.Lock()
		defer v.mu.Unlock()
		if v.d.start.IsZero() {
			v.clear() // the run never started: leave the screen to the error
			return
		}
		v.redraw()
		v.drawn = 0
	})
}

func itoa(n int) string { return strconv.Itoa(n) }
