package tui

import (
	"time"
)

// Info is what the header says about a run that is known before it
// starts: from the configuration, and for a resumed run from its records.
type Info struct {
	Task          string // the task, or the specification's first line
	Agent, Model  string
	Workspace     string
	Branch        string // worktree runs
	MaxIterations int
	Budget        float64       // --max-cost; 0: none
	MaxTime       time.Duration // --max-time; 0: none
	// Earlier sessions of a resumed run: their time, and the iterations
	// they recorded (Rows turns records into rows).
	Elapsed time.Duration
	History []Row
}

// Row is one finished iteration in the history.
type Row struct {
	N                  int
	Duration, Agent    float64 // seconds
	Checks             float64 // seconds
	Cost               *float64
	Passing, Total     int // checks
	ChecksRun          bool
	AllPassed          bool
	Completion         string // the completion signal that ended the run; "" when none
	Declared           string // a completion the agent declared that did not count ("tag"); "" when none
	Ran                string // the agent it ran on, "agent (model)"; "" when unknown
	Error, Interrupted string
	Added, Deleted     int // lines changed by the iteration
	Files              int
	DiffKnown          bool
	Commit             string
	// Judge says which files that define a check the agent changed
	// (--judge); JudgeKept: kept (--judge warn), not undone.
	Judge     string
	JudgeKept bool
	// TestsRemoved counts the tests of the run's start the iteration left
	// gone; TestsFailed, that the iteration failed for it (tests: keep).
	TestsRemoved int
	TestsFailed  bool
	// FinalText says how the last look went ("" when none was made);
	// FinalFailed: it took the success away.
	FinalText   string
	FinalFailed bool
	// Candidates is how many candidates the iteration's round ran
	// (--candidates), 0 without; Kept the number of the one kept, 0: none.
	Candidates, Kept int
}

// Phases of the current iteration.
const (
	phaseStarting = "starting"
	phaseAgent    = "agent"
	phaseChecks   = "checks"
	phaseBetween  = "between" // an iteration recorded, the next not started
	phaseBackoff  = "backoff"
	phaseUsage    = "usage limit"
	phaseFinished = "finished"
)

type checkState int

const (
	checkPending checkState = iota
	checkRunning
	checkPassed
	checkFailed
)

// check is one check of the current iteration.
type check struct {
	name     string
	state    checkState
	started  time.Time
	duration float64 // seconds, once finished
	timedOut bool
	exit     int
	lastFail int  // the last iteration it failed in; 0: none
	failing  bool // its latest result is a failure
}

// maxActivity and maxMessages bound what the view keeps of the agent's
// activity and of architect's own messages: a run of days stays small.
const (
	maxActivity = 2000
	maxMessages = 200
	maxRows     = 100000
)

// run is everything the view shows, built only from events, log lines and
// the Info it started with: the view never reads the loop's state.
type run struct {
	info       Info
	start      time.Time // this session's first event
	iteration  int
	phase      string
	phaseStart time.Time
	until      time.Time // end of a backoff or usage-limit wait
	attempt    int
	cost       float64 // known cost of the whole run so far
	costGaps   bool    // an iteration's cost is unknown
	iterCost   float64 // the running iteration's cost so far, when reported
	steps      int
	activity   ring
	checks     []check
	passing    map[int]int // iteration → checks passed (from check_finished)
	rows       []Row
	messages   ring
	finished   bool
	success    bool
	stopReason string
	stopDetail string
	end        time.Time
	paused     bool // the loop said it paused
	// agent is the agent the current (or next) iteration runs on, which a
	// fallback changes; waitFor the one a backoff or usage-limit wait is
	// for; switched the last switch, in words, and the iteration it is
	// for (the phase line says it while that iteration runs).
	agent, waitFor string
	switched       string
	switchedFor    int
	// round is the candidates of the iteration running or just recorded
	// (--candidates); nil without.
	round *round
}

// label names an agent and its model as the view shows them: "codex
// (gpt-5.5)".
func label(agent, model string) string {
	if model == "" {
		return agent
	}
	return agent + " (" + model + ")"
}

// current is the agent the run is on now.
func (r *run) current() string {
	if r.agent != "" {
		return r.agent
	}
	return label(r.info.Agent, r.info.Model)
}

// ring keeps the last n lines.
type ring struct {
	lines []string
	max   int
	total int // lines ever added
}

func (r *ring) add(s string) {
	if r.max == 0 {
		r.max = maxActivity
	}
	r.total++
	if len(r.lines) >= r.max {
		// Drop the oldest quarter at once, so adding stays cheap.
		n := copy(r.lines, r.lines[r.max/4:])
		r.lines = r.lines[:n]
	}
	r.lines = append(r.lines, s)
}

func newRun(info Info) *run {
	r := &run{info: info, phase: phaseStarting, passing: map[int]int{}, messages: ring{max: maxMessages}}
	for _, row := range info.History {
		r.addRow(row)
	}
	return r
}

// addRow adds or replaces iteration row.N, keeping the rows in order.
func (r *run) addRow(row Row) {
	if n := len(r.rows); n > 0 && r.rows[n-1].N == row.N {
		r.rows[n-1] = row
	} else {
		if len(r.rows) >= maxRows {
			r.rows = r.rows[1:]
		}
		r.rows = append(r.rows, row)
	}
	r.cost, r.costGaps = 0, false
	for _, x := range r.rows {
		if x.Cost == nil {
			r.costGaps = true
			continue
		}
		r.cost += *x.Cost
	}
}

// elapsed is the run's time at now, earlier sessions included.
func (r *run) elapsed(now time.Time) time.Duration {
	if r.start.IsZero() {
		return r.info.Elapsed
	}
	if r.finished {
		now = r.end
	}
	return r.info.Elapsed + now.Sub(r.start)
}

// slowest is the index of the slowest check of the iteration so far (a
// running one counts with the time it has taken), or -1: with fewer than
// two checks, or before any has finished, none is marked.
func (r *run) slowest(now time.Time) int {
	best, at, finished := 0.0, -1, 0
	for i, c := range r.checks {
		d := c.duration
		switch c.state {
		case checkPending:
			continue
		case checkRunning:
			d = now.Sub(c.started).Seconds()
		default:
			finished++
		}
		if d > best {
			best, at = d, i
		}
	}
	if len(r.checks) < 2 || finished == 0 {
		return -1
	}
	return at
}
