package tui

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/architect-dev/architect/usererr"
)

// Live is a run's full-screen view on a terminal. The loop's events go to
// Observe and its log lines to Write; Stop ends the view when the run is
// over, then prints what should stay in the terminal's scrollback: the
// messages of the run and a recap of its iterations under their column
// heads.
type Live struct {
	s     *screen
	model *Model
	buf   lineBuffer
	plain io.Writer // where lines go if the screen could not run
	once  sync.Once
}

// Start shows the run described by info on o.Out.
func Start(info Info, c Controls, l Loader, o Options) *Live {
	m := NewModel(info, c, l, o.Now)
	return &Live{s: startScreen(m, o), model: m, plain: Plain(o.Out, o.Now)}
}

// Write takes the loop's log lines.
func (l *Live) Write(p []byte) (int, error) {
	if !l.s.running() {
		return l.plain.Write(p)
	}
	for _, line := range l.buf.lines(p) {
		l.s.send(logMsg(line))
	}
	return len(p), nil
}

// Stop ends the view (after every event already sent) and prints the
// recap. It is safe to call more than once.
func (l *Live) Stop() {
	l.once.Do(func() {
		final, err := l.s.finish()
		w := l.s.writer(l.s.out)
		if err != nil {
			usererr.Say(l.s.out, usererr.LevelWarning, "the terminal view ended: %v", err)
		}
		m, ok := final.(*Model)
		if !ok {
			return
		}
		for _, line := range m.recap() {
			fmt.Fprintln(w, line)
		}
	})
}

// recapRows is how many of the last iterations the recap lists.
const recapRows = 12

// recap is what stays on the terminal once the view is gone: the loop's
// messages, the header's first line and the last iterations.
func (m *Model) recap() []string {
	out := append([]string(nil), m.run.messages.lines...)
	if m.run.start.IsZero() {
		return out // the run never started: leave the screen to the error
	}
	w := m.w
	if w < 40 {
		w = 80
	}
	saved := m.w
	m.w = w
	defer func() { m.w = saved }()
	out = append(out, m.header()[0])
	rows := m.run.rows
	if len(rows) > recapRows {
		out = append(out, paint(styleDim, fmt.Sprintf("  … %d earlier iterations (architect report shows them all)", len(rows)-recapRows)))
		rows = rows[len(rows)-recapRows:]
	}
	if len(rows) == 0 {
		return out
	}
	nw := len(fmt.Sprint(rows[len(rows)-1].N)) + 1
	diff := false
	for _, r := range rows {
		diff = diff || r.DiffKnown
	}
	out = append(out, strings.TrimRight(cut(historyHead(nw, diff), w), " "))
	for _, r := range rows {
		out = append(out, strings.TrimRight(cut(m.historyRow(r, nw, diff), w), " "))
	}
	return out
}

// Plain returns a writer for the loop's lines where no screen is drawn (a
// pipe, a CI log, --plain): each line is written as it comes, prefixed
// with its UTC time.
func Plain(w io.Writer, now func() time.Time) io.Writer {
	if now == nil {
		now = time.Now
	}
	return &stampWriter{w: w, now: now}
}

// stampWriter prefixes each line with its UTC time:
// "2026-11-22T08:00:00Z architect: iteration 1/25: running the claude agent".
type stampWriter struct {
	mu  sync.Mutex
	w   io.Writer
	now func() time.Time
	buf lineBuffer
}

func (s *stampWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, line := range s.buf.lines(p) {
		if _, err := io.WriteString(s.w, s.now().UTC().Format(time.RFC3339)+" "+line+"\n"); err != nil {
			return len(p), err
		}
	}
	return len(p), nil
}
