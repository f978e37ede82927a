package runlog

// Event types, as they appear in .architect/events.jsonl. The schema is
// documented in the README and kept stable: fields are only ever added.
const (
	EventLoopStarted       = "loop_started"
	EventIterationStarted  = "iteration_started"
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
}

// emitter writes events to the run's event log and hands them to the
// caller's observer (live display, --events -). Safe for concurrent use:
// checks finish concurrently. What it is given is already clean (see
