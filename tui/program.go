package tui

import (
	"bytes"
	"errors"
	"io"
	"os"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
)

// Options say where and how to draw.
type Options struct {
	Out *os.File // the terminal drawn on
	// In is where keys come from; nil means standard input when it is a
	// terminal, else the controlling terminal.
	In      *os.File
	Environ []string // TERM, COLORTERM for the colour profile; nil: the process's
	NoColor bool     // NO_COLOR: attributes only
	Now     func() time.Time
	// FPS caps the redraws a second (default 30).
	FPS int
}

// screen runs a Bubble Tea program on a terminal and feeds it messages
// from other goroutines in order, without ever blocking them for long: a
// queue sits between the senders and the program. If the program cannot
// run (no terminal to read keys from) or ends early, fallback takes over.
type screen struct {
	p     *tea.Program
	queue chan tea.Msg
	ended chan struct{} // the program returned
	final tea.Model
	err   error
	out   *os.File
	prof  colorprofile.Profile
}

// queueSize bounds the messages waiting for the program; beyond it a
// sender waits (the program is far faster than any run).
const queueSize = 4096

func startScreen(m tea.Model, o Options) *screen {
	prof := colorprofile.Detect(o.Out, environ(o))
	if o.NoColor && prof > colorprofile.Ascii {
		prof = colorprofile.Ascii
	}
	fps := o.FPS
	if fps <= 0 {
		fps = 30
	}
	opts := []tea.ProgramOption{
		tea.WithOutput(o.Out),
		tea.WithoutSignalHandler(), // the command line owns SIGINT and SIGTERM
		tea.WithEnvironment(environ(o)),
		tea.WithColorProfile(prof),
		tea.WithFPS(fps),
		tea.WithFilter(keepWcWidth),
	}
	if o.In != nil {
		opts = append(opts, tea.WithInput(o.In))
	}
	s := &screen{p: tea.NewProgram(m, opts...), queue: make(chan tea.Msg, queueSize), ended: make(chan struct{}), out: o.Out, prof: prof}
	go func() {
		defer close(s.ended)
		s.final, s.err = s.p.Run()
	}()
	go func() {
		for msg := range s.queue {
			s.p.Send(msg) // returns at once once the program has ended
		}
	}()
	return s
}

func environ(o Options) []string {
	if o.Environ != nil {
		return o.Environ
	}
	return os.Environ()
}

// keepWcWidth keeps the renderer measuring text as wcwidth does, like the
// view (text.go) and terminal multiplexers: a terminal's answer that it
// supports grapheme clustering (mode 2027) would switch the renderer to
// another method, and lines measured one way would be drawn another.
func keepWcWidth(_ tea.Model, msg tea.Msg) tea.Msg {
	if r, ok := msg.(tea.ModeReportMsg); ok && r.Mode == ansi.ModeUnicodeCore {
		return nil
	}
	return msg
}

// send queues msg for the program.
func (s *screen) send(msg tea.Msg) {
	select {
	case <-s.ended:
	case s.queue <- msg:
	}
}

// running reports whether the program still runs.
func (s *screen) running() bool {
	select {
	case <-s.ended:
		return false
	default:
		return true
	}
}

// finish ends the program after the messages already queued, restores
// the terminal, and returns the final model (nil if it never ran).
func (s *screen) finish() (tea.Model, error) {
	s.send(finishMsg{})
	select {
	case <-s.ended:
	case <-time.After(5 * time.Second):
		s.p.Kill()
		<-s.ended
	}
	close(s.queue)
	if s.err != nil && !errors.Is(s.err, tea.ErrProgramKilled) {
		return s.final, s.err
	}
	return s.final, nil
}

// writer returns w downsampling colours to the screen's profile, for the
// lines printed after the program ends.
func (s *screen) writer(w io.Writer) io.Writer {
	return &colorprofile.Writer{Forward: w, Profile: s.prof}
}

// lineBuffer cuts written bytes into lines.
type lineBuffer struct {
	mu      sync.Mutex
	partial []byte
}

// lines appends p and returns the complete lines it ended.
func (b *lineBuffer) lines(p []byte) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.partial = append(b.partial, p...)
	var out []string
	for {
		i := bytes.IndexByte(b.partial, '\n')
		if i < 0 {
			return out
		}
		out = append(out, string(b.partial[:i]))
		b.partial = b.partial[i+1:]
	}
}
