package runlog

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

// Event types, as they appear in .architect/events.jsonl. The schema is
// documented in docs/watching.md (Events) and kept stable: fields are only ever added.
const (
	EventLoopStarted       = "loop_started"
	EventIterationStarted  = "iteration_started"
	EventCandidateStarted  = "candidate_started"  // a candidate of a round began (Candidate: its number and agent)
	EventCandidateFinished = "candidate_finished" // a candidate of a round ended, its checks run (Candidate)
	EventAgentActivity     = "agent_activity"
	EventAgentFinished     = "agent_finished"
	EventCheckStarted      = "check_started"
	EventCheckFinished     = "check_finished"
	EventIterationFinished = "iteration_finished"
	EventBackoff           = "backoff"
	EventUsageLimitWait    = "usage_limit_wait"
	EventLoopFinished      = "loop_finished"
	// EventAgentSwitched: the next iteration runs on another agent (a
	// fallback, or back to an earlier one), and why.
	EventAgentSwitched = "agent_switched"
	// EventStall: the loop is going round in circles; action says what it
	// does about it.
	EventStall = "stall"
	// EventNoteReceived: `architect say` queued a note, seen by the loop;
	// EventNoteDelivered: a note went into an iteration's prompt.
	EventNoteReceived  = "note_received"
	EventNoteDelivered = "note_delivered"
	// EventPaused: the loop paused (and waits for a resume); EventResumed:
	// it went on.
	EventPaused  = "paused"
	EventResumed = "resumed"
	// The agent asked a question (Text; Until: when the wait ends
	// without an answer), an answer came (Text; Reason: where from), or
	// none came in time.
	EventQuestion        = "question"
	EventAnswered        = "answered"
	EventQuestionTimeout = "question_timeout"
)

// Event is one line of the event stream. Fields beyond type, time and
// iteration are set by the event types that carry them.
type Event struct {
	Type      string `json:"type"`
	Time      string `json:"time"`
	Iteration int    `json:"iteration"`

	MaxIterations int      `json:"max_iterations,omitempty"` // loop_started, iteration_started
	Agent         string   `json:"agent,omitempty"`          // loop_started, iteration_started, agent_switched, usage_limit_wait, backoff: the agent's name
	Model         string   `json:"model,omitempty"`          // the same events: the agent's model, when one was given
	Fallback      []string `json:"fallback,omitempty"`       // loop_started: the agents to fall back on, in order
	Checks        []string `json:"checks,omitempty"`         // loop_started
	Workspace     string   `json:"workspace,omitempty"`      // loop_started
	Branch        string   `json:"branch,omitempty"`         // loop_started
	Resumed       bool     `json:"resumed,omitempty"`        // loop_started

	Text string `json:"text,omitempty"` // agent_activity: one line

	ExitCode  *int     `json:"exit_code,omitempty"`  // agent_finished, check_finished
	Steps     int      `json:"steps,omitempty"`      // agent_finished
	Tokens    *Tokens  `json:"tokens,omitempty"`     // agent_finished
	Cost      *float64 `json:"cost,omitempty"`       // agent_finished, iteration_finished (absent: unknown)
	Error     string   `json:"error,omitempty"`      // agent_finished
	ErrorKind string   `json:"error_kind,omitempty"` // agent_finished
	Duration  *float64 `json:"duration,omitempty"`   // seconds: agent_finished, check_finished, iteration_finished, loop_finished

	Check    string `json:"check,omitempty"`     // check_started, check_finished: the command
	Index    *int   `json:"index,omitempty"`     // check_started, check_finished: position in the list
	Passed   *bool  `json:"passed,omitempty"`    // check_finished
	TimedOut bool   `json:"timed_out,omitempty"` // check_finished

	AllChecksPassed    *bool     `json:"all_checks_passed,omitempty"`    // iteration_finished
	CompletionTagFound *bool     `json:"completion_tag_found,omitempty"` // iteration_finished
	CompletionSignal   string    `json:"completion_signal,omitempty"`    // iteration_finished
	AgentDuration      *float64  `json:"agent_duration,omitempty"`       // iteration_finished
	ChecksDuration     *float64  `json:"checks_duration,omitempty"`      // iteration_finished
	Commit             string    `json:"commit,omitempty"`               // iteration_finished (worktree runs)
	ChecksRun          *bool     `json:"checks_run,omitempty"`           // iteration_finished
	Interrupted        string    `json:"interrupted,omitempty"`          // iteration_finished: why the run stopped it
	Diff               *DiffSize `json:"diff,omitempty"`                 // iteration_finished: its own change's size, when known
	// JudgeChanged: iteration_finished: the files that define a check the
	// agent changed (undone unless kept).
	JudgeChanged []JudgeChange `json:"judge_changed,omitempty"`
	// TestsRemoved (iteration_finished): the tests of the run's start the
	// iteration left gone (Iteration.TestsRemoved).
	TestsRemoved *TestsRemoved `json:"tests_removed,omitempty"`
	// FinalCheck is the last look of an iteration_finished that would have
	// ended the run with success (see Iteration.FinalCheck).
	FinalCheck *FinalCheck `json:"final_check,omitempty"`

	Seconds *float64 `json:"seconds,omitempty"`  // backoff, usage_limit_wait: how long
	Until   string   `json:"until,omitempty"`    // backoff, usage_limit_wait
	Attempt int      `json:"attempt,omitempty"`  // backoff: failures in a row
	Waited  *float64 `json:"waited,omitempty"`   // usage_limit_wait: seconds waited for usage limits before this wait
	ResetAt string   `json:"reset_at,omitempty"` // usage_limit_wait: the reset time the agent gave
	Exact   bool     `json:"exact,omitempty"`    // usage_limit_wait: the wait ends at that reset time (plus a margin), not at a guess

	From   string `json:"from,omitempty"`   // agent_switched: the agent left (AGENT[:MODEL])
	Reason string `json:"reason,omitempty"` // agent_switched: usage_limit, outage, stall, available; paused: asked, stall
	Detail string `json:"detail,omitempty"` // agent_switched, stall, paused: in words

	StallKind string `json:"stall_kind,omitempty"` // stall: same_failures or reverted
	Count     int    `json:"count,omitempty"`      // stall: iterations in a row
	Action    string `json:"action,omitempty"`     // stall: stop, fallback or pause

	Now bool `json:"now,omitempty"` // note_received, note_delivered: asked for with --now (Text holds the note)

	Success         *bool    `json:"success,omitempty"`          // loop_finished
	StopReason      string   `json:"stop_reason,omitempty"`      // loop_finished
	StopDetail      string   `json:"stop_detail,omitempty"`      // loop_finished
	TotalIterations *int     `json:"total_iterations,omitempty"` // loop_finished
	TotalCost       *float64 `json:"total_cost,omitempty"`       // loop_finished (absent: unknown)
	KnownCost       *float64 `json:"known_cost,omitempty"`       // loop_finished: the part of the total that is known
	NoChecks        bool     `json:"no_checks,omitempty"`        // loop_started, loop_finished: the run has no checks
	Hint            string   `json:"hint,omitempty"`             // loop_finished: what to do about a fatal agent error

	// Candidate: candidate_started, candidate_finished: the candidate as
	// it stands (its record once finished). Candidates: iteration_finished
	// of a round: every candidate and which was kept.
	Candidate  *Candidate  `json:"candidate,omitempty"`
	Candidates []Candidate `json:"candidates,omitempty"`
}

// agent_activity events are bounded by a bucket of activityBurst that
// refills one every activityEvery: a fast agent's burst of steps (a tool
// call, its result and the text after it within a few milliseconds) all
// pass, while an agent printing without end gets at most one line every
// activityEvery, and a line saying how many were skipped (its transcript
// keeps them all). The adapters report steps, not deltas, and a command
// agent's output is sampled at the source, faster than this refills.
const (
	activityEvery = 50 * time.Millisecond
	activityBurst = 64
)

// EventLog writes events to the run's event log (EventsFile), one JSON
// line each, and hands them to the caller's observer (live display,
// --events -). Safe for concurrent use: checks finish concurrently. What
// it is given is already clean: it writes it as it is. A nil *EventLog
// does nothing.
type EventLog struct {
	mu       sync.Mutex
	f        *os.File
	observe  func(Event)
	now      func() time.Time
	lastAct  time.Time
	tokens   float64 // the activity lines that may be emitted now
	skipped  int     // activity lines dropped since the last emitted
	warnOnce sync.Once
	warn     func(string)
}

// OpenEventLog appends to the event log at path. When the file cannot be
// opened it says so through warn, and the events still reach observe.
func OpenEventLog(path string, observe func(Event), now func() time.Time, warn func(string)) *EventLog {
	e := &EventLog{observe: observe, now: now, warn: warn}
	f, err := OpenAppend(path)
	if err != nil {
		warn("cannot write the event log: " + err.Error())
	} else {
		e.f = f
	}
	return e
}

// Emit stamps ev with the time, appends it to the file and hands it to the
// observer.
func (e *EventLog) Emit(ev Event) {
	if e == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	ev.Time = e.now().UTC().Format(time.RFC3339Nano)
	if e.f != nil {
		data, _ := json.Marshal(ev)
		if _, err := e.f.Write(append(data, '\n')); err != nil {
			e.warnOnce.Do(func() { e.warn("cannot write the event log: " + err.Error()) })
		}
	}
	if e.observe != nil {
		e.observe(ev)
	}
}

// Activity emits an agent_activity line, at most every activityEvery once
// a burst is spent; clean makes the agent's text safe (the boundary where
// it enters).
func (e *EventLog) Activity(iteration int, text string, clean func(string) string) {
	e.ActivityOf(iteration, nil, text, clean)
}

// ActivityOf is Activity for a round's candidate (cand: its number, nil
// for the run's own agent), whose events carry it.
func (e *EventLog) ActivityOf(iteration int, cand *Candidate, text string, clean func(string) string) {
	if e == nil {
		return
	}
	e.mu.Lock()
	now := e.now()
	if e.lastAct.IsZero() {
		e.tokens = activityBurst
	} else {
		e.tokens = min(activityBurst, e.tokens+float64(now.Sub(e.lastAct))/float64(activityEvery))
	}
	e.lastAct = now
	if e.tokens < 1 {
		e.skipped++
		e.mu.Unlock()
		return
	}
	e.tokens--
	skipped := e.skipped
	e.skipped = 0
	e.mu.Unlock()
	if skipped > 0 {
		e.Emit(Event{Type: EventAgentActivity, Iteration: iteration, Candidate: cand, Text: fmt.Sprintf("… %d line%s of activity skipped (the transcript has them)", skipped, map[bool]string{true: "s"}[skipped != 1])})
	}
	// Cleaned here, after the bound, not for every line the agent prints.
	e.Emit(Event{Type: EventAgentActivity, Iteration: iteration, Candidate: cand, Text: Clip(strings.TrimSpace(clean(text)), MaxLine)})
}

// Close closes the event log's file.
func (e *EventLog) Close() {
	if e != nil && e.f != nil {
		e.f.Close()
	}
}

// FinishedEvent is the check_finished event of check index (0-based) of
// iteration i.
func (c CheckResult) FinishedEvent(i, index int) Event {
	return Event{Type: EventCheckFinished, Iteration: i, Check: c.Name, Index: ptr(index), Passed: ptr(c.Passed),
		ExitCode: ptr(c.ExitCode), TimedOut: c.TimedOut, Duration: ptr(c.Duration)}
}

// FinishedEvent is the iteration_finished event of it.
func (it Iteration) FinishedEvent() Event {
	return Event{Type: EventIterationFinished, Iteration: it.Iteration, AllChecksPassed: ptr(it.AllChecksPassed),
		CompletionTagFound: ptr(it.CompletionTagFound), CompletionSignal: it.CompletionSignal, Cost: it.Cost,
		Duration: ptr(it.Duration), AgentDuration: ptr(it.AgentDuration), ChecksDuration: ptr(it.ChecksDuration), Commit: it.Commit,
		ChecksRun: ptr(it.ChecksRun), Interrupted: it.Interrupted, Diff: it.Diff, JudgeChanged: it.JudgeChanged, TestsRemoved: it.TestsRemoved,
		FinalCheck: it.FinalCheck, Candidates: it.Candidates}
}
