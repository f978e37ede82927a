package tui

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/architect-dev/architect/runlog"
	"github.com/charmbracelet/x/ansi"
	"github.com/matryer/is"
)

func boardScreen(b *BoardModel) string {
	lines := strings.Split(ansi.Strip(b.render()), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// The board stays within the screen however many tasks there are, keeps
// the running ones in view, and totals every task.
func TestBoardBoundedWithTotals(t *testing.T) {
	is := is.New(t)
	now := t0
	var ids []string
	for i := 1; i <= 100; i++ {
		ids = append(ids, fmt.Sprintf("task-%03d", i))
	}
	interrupts := 0
	b := NewBoardModel(ids, func() { interrupts++ }, func() time.Time { return now })
	b.Update(tea.WindowSizeMsg{Width: 90, Height: 20})
	ev := func(id string, e runlog.Event) {
		e.Time = now.Format(time.RFC3339Nano)
		b.Update(boardEvent{id: id, eventMsg: eventMsg{e}})
	}
	// A resumed batch: the first 40 succeeded before (skipped), 41 failed.
	for i := 0; i < 40; i++ {
		b.Update(boardDone{ID: ids[i], Outcome: "skipped", Success: true, StopReason: "all_checks_passed", Iterations: 2, Cost: 0.25, CostKnown: true, Duration: 60})
	}
	b.Update(boardDone{ID: ids[40], Outcome: "failed", StopReason: "max_iterations", Iterations: 5, Cost: 1, CostKnown: true, Duration: 300})
	for _, id := range ids[41:43] {
		ev(id, runlog.Event{Type: runlog.EventLoopStarted, Iteration: 0, MaxIterations: 5})
		ev(id, runlog.Event{Type: runlog.EventIterationStarted, Iteration: 1, MaxIterations: 5})
		ev(id, runlog.Event{Type: runlog.EventAgentActivity, Iteration: 1, Text: "Edit 日本語.go"})
		ev(id, runlog.Event{Type: runlog.EventAgentFinished, Iteration: 1, Cost: ptr(0.125)})
	}
	now = now.Add(75 * time.Second)
	s := boardScreen(b)
	lines := strings.Split(s, "\n")
	is.Equal(len(lines), 20)
	is.Equal(lines[0], "architect batch · 41/100 done · 40 passing · 2 running · 57 queued · $11.25 · 1m15s")
	is.True(strings.Contains(s, "  task-042  ⠋ checks                          1/5    $0.1250   1m15s  Edit 日本語.go\n"))
	is.True(!strings.Contains(s, "task-001")) // scrolled to the first unfinished task
	is.True(strings.Contains(s, "more: ↑ ↓ pgup pgdn scroll"))
	is.True(strings.HasPrefix(lines[19], "q stop all"))

	b.key("home")
	is.True(regexp.MustCompile(`task-001 +✓ skipped +2 +\$0\.2500 +1m00s\n`).MatchString(boardScreen(b)))
	b.key("pgdown")
	b.key("pgdown")
	is.True(regexp.MustCompile(`task-041 +✗ failed \(max_iterations\) +5 +\$1\.00 +5m00s\n`).MatchString(boardScreen(b)))
	b.key("end")
	is.True(!strings.Contains(boardScreen(b), "task-001"))

	b.Update(tea.KeyPressMsg{Code: 'q', Text: "q"})
	is.Equal(interrupts, 1)
	is.True(strings.Contains(boardScreen(b), "stopping every task gracefully"))
	b.Update(logMsg("architect: sigint received: stopping"))
	is.True(strings.Contains(boardScreen(b), "architect: sigint received: stopping"))

	// A resumed task starts from what its earlier iterations cost.
	ev(ids[43], runlog.Event{Type: runlog.EventLoopStarted, Iteration: 3, MaxIterations: 5, Resumed: true, KnownCost: ptr(0.5)})
	b.key("end")
	is.True(regexp.MustCompile(`architect batch · 41/100 done · 40 passing · 3 running · 56 queued · \$11\.75\+ · `).MatchString(boardScreen(b)))
	is.True(regexp.MustCompile(`task-044 +. starting +3/5 +\$0\.5000\+ `).MatchString(boardScreen(b)))

	for _, w := range []int{1, 20, 60, 200} {
		for _, h := range []int{1, 4, 30} {
			b.Update(tea.WindowSizeMsg{Width: w, Height: h})
			lines := strings.Split(b.render(), "\n")
			is.Equal(len(lines), h)
			for _, l := range lines {
				is.Equal(ansi.StringWidthWc(l), w)
			}
		}
	}
}

func TestPlainLinesAreStamped(t *testing.T) {
	is := is.New(t)
	var out bytes.Buffer
	w := Plain(&out, func() time.Time { return t0 })
	w.Write([]byte("architect: iteration 1/25: running the command agent\narchitect: warn"))
	w.Write([]byte("ing: slow\n"))
	is.Equal(out.String(), "2026-11-22T08:00:00Z architect: iteration 1/25: running the command agent\n2026-11-22T08:00:00Z architect: warning: slow\n")
}
