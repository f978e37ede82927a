package tui

// Candidates (--candidates N): a round runs N agents at once and keeps the
// one the checks judge best. This file turns their events and records
// into the round the view shows (candpane.go draws it) and the board's
// count; with events.go and candplain.go it is where the package knows
// runlog's types.

import (
	"fmt"
	"strconv"
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
