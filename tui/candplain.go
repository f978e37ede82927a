package tui

// Plain lines of a round where no screen is drawn: a line per candidate as
// it finishes, one for the kept candidate and one per loser with its reason.

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/architect-dev/architect/runlog"
)

// PlainEvents returns what writes, where no screen is drawn, a line for
// each candidate as it finishes and one for the kept candidate when its
// round ends, to w (the writer Plain returns, which stamps them). A run
// without candidates gets no line from it.
func PlainEvents(w io.Writer) func(runlog.Event) {
	p := &plainRounds{w: w}
	return p.observe
}

// PlainTaskEvents is PlainEvents for a batch's tasks: each line names its
// task after "architect: ", as the batch's own lines do ("architect:
// [fix-auth] iteration 2/5: …").
func PlainTaskEvents(w io.Writer) func(id string, ev runlog.Event) {
	var mu sync.Mutex
	shared := &lockedWriter{w: w}
	tasks := map[string]*plainRounds{}
	return func(id string, ev runlog.Event) {
		mu.Lock()
		p := tasks[id]
		if p == nil {
			p = &plainRounds{w: shared, task: "[" + clean(id) + "] "}
			tasks[id] = p
		}
		mu.Unlock()
		p.observe(ev)
	}
}

// lockedWriter keeps the lines of several tasks whole.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

type plainRounds struct {
	mu   sync.Mutex
	w    io.Writer
	task string // "[ID] " for a batch's task; "" for a run
	max  int    // the run's iteration limit, for "iteration 2/25"
}

func (p *plainRounds) observe(ev runlog.Event) {
	switch ev.Type {
	case runlog.EventLoopStarted, runlog.EventIterationStarted:
		if ev.MaxIterations > 0 {
			p.mu.Lock()
			p.max = ev.MaxIterations
			p.mu.Unlock()
		}
	case runlog.EventCandidateFinished:
		if ev.Candidate != nil {
			p.say(ev.Iteration, candidateLine(*ev.Candidate))
		}
	case runlog.EventIterationFinished:
		if len(ev.Candidates) == 0 {
			return
		}
		lines := []string{keptLine(ev.Candidates)}
		for _, c := range ev.Candidates {
			if !c.Kept {
				why := clean(firstLine(c.Why))
				if why == "" {
					why = "no reason recorded"
				}
				lines = append(lines, fmt.Sprintf("candidate %d not kept: %s", c.N, why))
			}
		}
		p.say(ev.Iteration, lines...)
	}
}

// say writes lines as the loop writes its own: "architect: iteration
// 2/25: …".
func (p *plainRounds) say(n int, lines ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	prefix := "architect: " + p.task + "iteration " + strconv.Itoa(n)
	if p.max > 0 {
		prefix += "/" + strconv.Itoa(p.max)
	}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(prefix + ": " + l + "\n")
	}
	_, _ = io.WriteString(p.w, b.String())
}

// who names a candidate: "candidate 2 (claude, sonnet)".
func who(c runlog.Candidate) string {
	s := "candidate " + strconv.Itoa(c.N)
	switch {
	case c.Agent != "" && c.Model != "":
		s += " (" + clean(c.Agent+", "+c.Model) + ")"
	case c.Agent != "":
		s += " (" + clean(c.Agent) + ")"
	}
	return s
}

// candidateLine is a finished candidate in one plain line: its state, its
// checks, cost and time.
func candidateLine(c runlog.Candidate) string {
	state := candidateState(c)
	var what string
	switch state {
	case candStopped:
		what = "stopped: another candidate succeeded first"
	case candTimedOut:
		what = "timed out"
	case candError:
		what = "agent error"
		if c.Error != nil {
			what += ": " + clean(firstLine(*c.Error))
		}
	case candPassed:
		what = "passed: its checks pass and it declared completion"
	case candIncomplete:
		what = "checks pass, completion not declared"
	default:
		what = "failed"
		if len(c.Failing) > 0 {
			what += ": " + clean(strings.Join(c.Failing, ", "))
		}
	}
	facts := []string{}
	if c.ChecksTotal > 0 {
		facts = append(facts, fmt.Sprintf("checks %d/%d", c.ChecksPassed, c.ChecksTotal))
	}
	if c.Cost != nil {
		facts = append(facts, money(*c.Cost))
	} else {
		facts = append(facts, "cost unknown")
	}
	facts = append(facts, secs(c.Duration))
	return who(c) + " " + what + " · " + strings.Join(facts, " · ")
}

// keptLine says which candidate a round kept.
func keptLine(cands []runlog.Candidate) string {
	for _, c := range cands {
		if c.Kept {
			return fmt.Sprintf("kept %s of %d", who(c), len(cands))
		}
	}
	return fmt.Sprintf("kept none of the %d candidates", len(cands))
}
