package batch

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/architect-dev/architect/loop"
)

// Board is the live display on a terminal: one line per task, redrawn in
// place as the tasks' events arrive (and every second, for the clocks).
type Board struct {
	mu    sync.Mutex
	w     io.Writer
	width int
	ids   []string
	tasks map[string]*taskLine
	drawn int
	stop  chan struct{}
	done  chan struct{}
}

type taskLine struct {
	state     string
	iteration int
	max       int
	cost      float64
	started   time.Time
	ended     time.Duration
	finished  bool
}

// NewBoard draws a line for each task on w, a terminal width columns wide.
func NewBoard(w io.Writer, ids []string, width int) *Board {
	if width < 20 {
		width = 80
	}
	b := &Board{w: w, width: width, ids: ids, tasks: map[string]*taskLine{}, stop: make(chan struct{}), done: make(chan struct{})}
	for _, id := range ids {
		b.tasks[id] = &taskLine{state: "queued"}
	}
	b.redraw()
	go func() {
		defer close(b.done)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-b.stop:
				return
			case <-t.C:
				b.mu.Lock()
				b.redraw()
				b.mu.Unlock()
			}
		}
	}()
	return b
}

// Event updates task id's line with a loop event.
func (b *Board) Event(id string, ev loop.Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.tasks[id]
	if t == nil || t.finished {
		return
	}
	switch ev.Type {
	case loop.EventLoopStarted:
		t.started, t.state, t.iteration, t.max = time.Now(), "starting", ev.Iteration, ev.MaxIterations
	case loop.EventIterationStarted:
		t.iteration, t.state = ev.Iteration, "agent"
		if ev.MaxIterations > 0 {
			t.max = ev.MaxIterations
		}
	case loop.EventAgentFinished, loop.EventCheckStarted:
		t.state = "checks"
	case loop.EventIterationFinished:
		t.state = "iteration done"
		if ev.Cost != nil {
			t.cost += *ev.Cost
		}
	case loop.EventBackoff:
		t.state = "backing off"
	case loop.EventUsageLimitWait:
		t.state = "usage limit: waiting"
	case loop.EventLoopFinished:
		t.state = ev.StopReason
		if !t.started.IsZero() {
			t.ended = time.Since(t.started)
		}
	default:
		return
	}
	b.redraw()
}

// Finish shows a task's outcome on its line.
func (b *Board) Finish(r TaskResult) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.tasks[r.ID]
	if t == nil {
		return
	}
	t.finished, t.state, t.iteration, t.cost = true, r.Outcome, r.Iterations, r.KnownCost
	if r.StopReason != "" && r.Outcome != Succeeded {
		t.state += " (" + r.StopReason + ")"
	}
	if !t.started.IsZero() && t.ended == 0 {
		t.ended = time.Since(t.started)
	}
	b.redraw()
}

// Close stops the clock; the lines stay on the screen.
func (b *Board) Close() {
	close(b.stop)
	<-b.done
}

// redraw rewrites every line in place; b.mu is held.
func (b *Board) redraw() {
	var sb strings.Builder
	if b.drawn > 0 {
		fmt.Fprintf(&sb, "\x1b[%dF", b.drawn) // to the start of the first line
	}
	wid := 0
	for _, id := range b.ids {
		wid = max(wid, len(id))
	}
	for _, id := range b.ids {
		t := b.tasks[id]
		line := fmt.Sprintf("%-*s  %s", wid, id, t.state)
		if t.max > 0 {
			line = fmt.Sprintf("%-*s  iteration %d/%d  %-17s $%.4f", wid, id, t.iteration, t.max, t.state, t.cost)
		}
		switch {
		case t.ended > 0:
			line += "  " + t.ended.Round(time.Second).String()
		case !t.started.IsZero():
			line += "  " + time.Since(t.started).Round(time.Second).String()
		}
		if len(line) > b.width-1 {
			line = line[:b.width-1]
		}
		sb.WriteString("\x1b[2K" + line + "\n")
	}
	b.drawn = len(b.ids)
	_, _ = io.WriteString(b.w, sb.String())
}

// WriteSummary prints the table of the tasks' results.
func WriteSummary(w io.Writer, rs []TaskResult) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tOUTCOME\tSTOP REASON\tITERATIONS\tCOST\tDURATION\tBRANCH")
	for _, r := range rs {
		stop := r.StopReason
		if stop == "" {
			stop = "-"
		}
		cost := fmt.Sprintf("$%.4f", r.KnownCost)
		switch {
		case r.CostKnown || r.Iterations == 0:
		case r.KnownCost == 0:
			cost = "unknown"
		default:
			cost = "≥" + cost // some iterations' cost unknown
		}
		dur := (time.Duration(r.Duration * float64(time.Second))).Round(100 * time.Millisecond).String()
		if r.Result == nil { // never ran
			cost, dur = "-", "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\n", r.ID, r.Outcome, stop, r.Iterations, cost, dur, r.Branch)
	}
	_ = tw.Flush()
}
