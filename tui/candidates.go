package tui

// Candidates (--candidates N): a round runs N agents at once and keeps the
// one the checks judge best. This file turns their events and records
// into what the view shows (with events.go, the only place that knows
// runlog's types): the round's candidates side by side while it runs,
// which was kept and why each other lost once it ends, and for a pipe or
// a CI log a plain line per candidate and one for the kept one.

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/architect-dev/architect/runlog"
)

// A candidate's states, as the view names them.
const (
	candRunning    = "running"
	candChecks     = "checks"
	candPassed     = "passed"
	candIncomplete = "incomplete" // its checks pass, it did not declare completion
	candFailed     = "failed"
	candStopped    = "stopped"
	candTimedOut   = "timed out"
	candError      = "error"
)

// cand is one candidate of the round on screen.
type cand struct {
	n             int
	agent         string // "agent (model)"
	state         string
	passed, total int // checks, once run
	cost          *float64
	finished      bool
	kept          bool
	why           string // why it was not kept, once the round ended
}

// round is the candidates of one iteration; ended once the iteration's
// record names the kept one.
type round struct {
	iteration int
	cands     []cand
	ended     bool
}

// active reports whether the round belongs to iteration n and has
// candidates to show.
func (rd *round) active(n int) bool { return rd != nil && rd.iteration == n && len(rd.cands) > 0 }

// find returns candidate n of the round, added when new.
func (rd *round) find(n int) *cand {
	for i := range rd.cands {
		if rd.cands[i].n == n {
			return &rd.cands[i]
		}
	}
	rd.cands = append(rd.cands, cand{n: n, state: candRunning})
	// Kept in their numbers' order whatever order they start in.
	for i := len(rd.cands) - 1; i > 0 && rd.cands[i].n < rd.cands[i-1].n; i-- {
		rd.cands[i], rd.cands[i-1] = rd.cands[i-1], rd.cands[i]
	}
	for i := range rd.cands {
		if rd.cands[i].n == n {
			return &rd.cands[i]
		}
	}
	return nil
}

// cost is what the round's finished candidates cost so far (known costs).
func (rd *round) cost() float64 {
	var sum float64
	for _, c := range rd.cands {
		if c.cost != nil {
			sum += *c.cost
		}
	}
	return sum
}

// candidateState is a finished candidate's state in one word.
func candidateState(c runlog.Candidate) string {
	switch {
	case c.Stopped:
		return candStopped
	case c.TimedOut:
		return candTimedOut
	case c.Success:
		return candPassed
	case c.Error != nil && c.ChecksTotal == 0:
		return candError
	case c.ChecksTotal > 0 && c.ChecksPassed == c.ChecksTotal:
		return candIncomplete
	}
	return candFailed
}

// take copies a candidate's record into what the view shows of it.
func (c *cand) take(rec runlog.Candidate) {
	if rec.Agent != "" {
		c.agent = clean(label(rec.Agent, rec.Model))
	}
	c.state, c.finished = candidateState(rec), true
	c.passed, c.total, c.cost = rec.ChecksPassed, rec.ChecksTotal, rec.Cost
	c.kept, c.why = rec.Kept, clean(firstLine(rec.Why))
}

// candidateStarted adds a candidate to the round of its iteration.
func (r *run) candidateStarted(ev runlog.Event, _ time.Time) {
	if ev.Candidate == nil {
		return
	}
	rd := r.roundFor(ev.Iteration)
	c := rd.find(ev.Candidate.N)
	*c = cand{n: ev.Candidate.N, agent: clean(label(ev.Candidate.Agent, ev.Candidate.Model)), state: candRunning}
}

// candidateFinished takes a candidate's record; the iteration's cost so
// far is what its finished candidates cost.
func (r *run) candidateFinished(ev runlog.Event, _ time.Time) {
	if ev.Candidate == nil {
		return
	}
	rd := r.roundFor(ev.Iteration)
	rd.find(ev.Candidate.N).take(*ev.Candidate)
	r.iterCost = rd.cost()
}

// candidateChecking marks a candidate whose agent ended and whose checks
// run, when the loop tags its agent_finished or check_started event with
// the candidate; it reports whether the event was a candidate's.
func (r *run) candidateChecking(ev runlog.Event) bool {
	if ev.Candidate == nil {
		return false
	}
	if c := r.roundFor(ev.Iteration).find(ev.Candidate.N); !c.finished {
		c.state = candChecks
	}
	return true
}

// roundEnded takes the round's records from the iteration's
// iteration_finished: every candidate, the kept one and why the others lost.
func (r *run) roundEnded(ev runlog.Event) {
	if len(ev.Candidates) == 0 {
		return
	}
	rd := r.roundFor(ev.Iteration)
	for _, rec := range ev.Candidates {
		rd.find(rec.N).take(rec)
	}
	rd.ended = true
}

// candidatePrefix is "#2 " for a candidate's event (when the loop tags
// it with the candidate), "" for any other.
func candidatePrefix(ev runlog.Event) string {
	if ev.Candidate == nil {
		return ""
	}
	return "#" + strconv.Itoa(ev.Candidate.N) + " "
}

// roundFor is the round of iteration n, a new one when the round on
// screen is another iteration's.
func (r *run) roundFor(n int) *round {
	if r.round == nil || r.round.iteration != n {
		r.round = &round{iteration: n}
	}
	return r.round
}

// keptOf is what a history row says of a round: "kept #2 of 3"; "" for
// an iteration without candidates.
func keptOf(cands []runlog.Candidate) (kept, of int) {
	for _, c := range cands {
		if c.Kept {
			kept = c.N
		}
	}
	return kept, len(cands)
}

// roundWord is a history row's note on its round.
func (r Row) roundWord() string {
	if r.Candidates == 0 {
		return ""
	}
	if r.Kept == 0 {
		return fmt.Sprintf("none kept of %d", r.Candidates)
	}
	return fmt.Sprintf("kept #%d of %d", r.Kept, r.Candidates)
}

// candMark is a candidate's state as a sign and a colour.
func (m *Model) candMark(c cand) string {
	switch c.state {
	case candRunning, candChecks:
		return paint(styleInfo, spinner[m.tick%len(spinner)])
	case candPassed:
		return paint(styleGood, "✓")
	case candIncomplete:
		return paint(styleWarn, "✓")
	case candStopped:
		return paint(styleDim, "■")
	case candTimedOut:
		return paint(styleWarn, "⏱")
	}
	return paint(styleBad, "✗")
}

// candFacts are a candidate's checks and cost: "checks 3/5 · $0.0300".
func candFacts(c cand) string {
	checks := "checks -"
	if c.total > 0 {
		checks = fmt.Sprintf("checks %d/%d", c.passed, c.total)
	}
	cost := "cost ?"
	switch {
	case c.cost != nil:
		cost = money(*c.cost)
	case !c.finished:
		cost = ""
	}
	if cost == "" {
		return checks
	}
	return checks + " · " + cost
}

// candidatesHeight is the rows the candidates' pane takes: none without
// a round, else a title and four rows side by side (five once a loser's
// reason is known), or a row per candidate when the columns would be too
// narrow.
func (m *Model) candidatesHeight() int {
	rd := m.run.round
	if !rd.active(m.run.iteration) {
		return 0
	}
	if m.candColumn(len(rd.cands)) > 0 {
		h := 5
		for _, c := range rd.cands {
			if c.why != "" {
				h = 6
			}
		}
		return h
	}
	return len(rd.cands) + 1
}

// minCandColumn is the narrowest a candidate's column may be.
const minCandColumn = 28

// candColumn is the width of each candidate's column side by side, or 0
// when n columns do not fit the terminal.
func (m *Model) candColumn(n int) int {
	if n == 0 {
		return 0
	}
	w := (m.w - 2 - (n - 1)) / n
	if w < minCandColumn {
		return 0
	}
	return w
}

// candidatesPane is the round's candidates in h rows, the title included.
func (m *Model) candidatesPane(h int) []string {
	rd := m.run.round
	if h <= 0 || !rd.active(m.run.iteration) {
		return nil
	}
	t := fmt.Sprintf("Candidates, iteration %d (%d at once)", rd.iteration, len(rd.cands))
	if rd.ended {
		kept := "none kept"
		for _, c := range rd.cands {
			if c.kept {
				kept = "#" + strconv.Itoa(c.n) + " kept"
			}
		}
		t = fmt.Sprintf("Candidates, iteration %d: %s", rd.iteration, kept)
	}
	out := []string{title(t, m.w, false)}
	if cw := m.candColumn(len(rd.cands)); cw > 0 {
		cols := make([][]string, len(rd.cands))
		for i, c := range rd.cands {
			cols[i] = m.candColumnLines(c, cw)
		}
		for row := 0; row < h-1; row++ {
			parts := make([]string, len(cols))
			for i, col := range cols {
				if row < len(col) {
					parts[i] = fit(col[row], cw)
				} else {
					parts[i] = fit("", cw)
				}
			}
			out = append(out, "  "+strings.Join(parts, " "))
		}
		return out
	}
	for i := 0; i < len(rd.cands) && i < h-1; i++ {
		out = append(out, m.candLine(rd.cands[i]))
	}
	return out
}

// candColumnLines is a candidate's column: its number and agent, its
// state, its checks and cost, kept or not, and why it lost.
func (m *Model) candColumnLines(c cand, w int) []string {
	head := paint(styleBold, "#"+strconv.Itoa(c.n)) + " " + c.agent
	lines := []string{cut(head, w), cut(m.candMark(c)+" "+c.state, w), cut(candFacts(c), w)}
	switch {
	case c.kept:
		lines = append(lines, paint(styleGood, "★ kept"))
	case c.why != "":
		lines = append(lines, paint(styleDim, "not kept:"), cut(c.why, w))
	}
	return lines
}

// candLine is a candidate on one line, for a narrow terminal.
func (m *Model) candLine(c cand) string {
	line := "  " + paint(styleBold, "#"+strconv.Itoa(c.n)) + " " + m.candMark(c) + " " + fit(c.state, 10) + " " + candFacts(c)
	if c.agent != "" {
		line += " · " + c.agent
	}
	switch {
	case c.kept:
		line += " " + paint(styleGood, "★ kept")
	case c.why != "":
		line += " · " + paint(styleDim, c.why)
	}
	return cut(line, m.w)
}

// roundPhase is what the phase line says while a round's agents run: how
// many candidates, and how many are running, checking, done.
func (m *Model) roundPhase() (string, bool) {
	r := m.run
	if !r.round.active(r.iteration) || r.round.ended {
		return "", false
	}
	var running, checking, done int
	for _, c := range r.round.cands {
		switch c.state {
		case candRunning:
			running++
		case candChecks:
			checking++
		default:
			done++
		}
	}
	var parts []string
	for _, p := range []struct {
		n    int
		word string
	}{{running, "running"}, {checking, "checking"}, {done, "done"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.word))
		}
	}
	return fmt.Sprintf("%d candidates: %s", len(r.round.cands), strings.Join(parts, ", ")), true
}

// PlainEvents returns what writes, where no screen is drawn, a line for
// each candidate as it finishes and one for the kept candidate when its
// round ends, to w (the writer Plain returns, which stamps them). A run
// without candidates gets no line from it.
func PlainEvents(w io.Writer) func(runlog.Event) {
	p := &plainRounds{w: w}
	return p.observe
}

type plainRounds struct {
	mu  sync.Mutex
	w   io.Writer
	max int // the run's iteration limit, for "iteration 2/25"
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
	prefix := "architect: iteration " + strconv.Itoa(n)
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
	if c.Agent != "" {
		s += " (" + clean(label(c.Agent, c.Model)) + ")"
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

// candidatesShown is the rows the candidates' pane gets: what it needs,
// or none when that would leave the other panes fewer than six rows (the
// phase line still counts the candidates).
func (m *Model) candidatesShown() int {
	h := m.candidatesHeight()
	if m.bodyHeight()-h < 6 {
		return 0
	}
	return h
}

// candidate counts a batch task's candidates on its board row: "3
// candidates: 1 done", and what the finished ones cost. It reports whether
// the event was a candidate's (a candidate's agent or checks, when the
// loop tags them, leave the row to its candidate_finished).
func (t *task) candidate(ev runlog.Event) bool {
	switch ev.Type {
	case runlog.EventCandidateStarted:
		t.cands++
	case runlog.EventCandidateFinished:
		t.candsDone++
		if ev.Candidate != nil && ev.Candidate.Cost != nil {
			t.iterCost += *ev.Candidate.Cost
		}
	default:
		return ev.Candidate != nil
	}
	t.state = fmt.Sprintf("%d candidates: %d done", t.cands, t.candsDone)
	return true
}
