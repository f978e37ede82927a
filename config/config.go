// Package config holds the loop's configuration and builds it from its four
// sources, in order of precedence: built-in defaults, the YAML file
// (`-c ralph.yaml`, section `ralph_loop:`), ARCHITECT_* environment
// variables, and the flags the user set. One table of options (options.go)
// drives all four, so a key, its flag and its variable never drift apart.
package config

import (
	"strings"
	"time"

	"github.com/architect-dev/architect/agent"
)

// Config is everything one loop run needs. JSON names are the YAML keys;
// the whole configuration is saved in the run's state for --resume.
type Config struct {
	Task   string   `json:"task,omitempty"`
	Spec   string   `json:"spec,omitempty"`
	Checks []string `json:"checks"`
	// NoChecks says that the run has no checks on purpose (--no-checks, or
	// checks: [] in the file): without it, a run with no check is refused.
	// The agent's completion alone then ends it, reported as such.
	NoChecks      bool          `json:"no_checks,omitempty"`
	CheckTimeout  time.Duration `json:"check_timeout"`
	CheckShell    string        `json:"check_shell,omitempty"` // what runs checks and hooks (proc.ResolveShell); "": the default
	MaxIterations int           `json:"max_iterations"`
	MaxCost       float64       `json:"max_cost,omitempty"`
	MaxTime       time.Duration `json:"max_time,omitempty"`
	CompletionTag string        `json:"completion_tag"`
	// Mode is "", "plan" (gap analysis into IMPLEMENTATION_PLAN.md) or
	// "build" (implement the plan, one commit per iteration).
	Mode string `json:"mode,omitempty"`
	// Preset names the preset whose prompt, checks and limits were the
	// layer under the file's keys (package starter), and PresetParams its
	// parameters, as KEY=VALUE.
	Preset       string   `json:"preset,omitempty"`
	PresetParams []string `json:"preset_params,omitempty"`

	Agent     string       `json:"agent"`
	AgentCmd  string       `json:"agent_cmd,omitempty"`
	AgentArgs []string     `json:"agent_args,omitempty"`
	AgentBin  string       `json:"agent_bin,omitempty"`
	Model     string       `json:"model,omitempty"`
	Prices    agent.Prices `json:"prices,omitempty"`
	// AgentReportsCost says that the command agent reports its cost in its
	// result file every run, which --max-cost needs.
	AgentReportsCost bool `json:"agent_reports_cost,omitempty"`
	// Fallback lists the agents tried, in order, when the current one hits
	// its usage limit, fails with an outage past OutageRetries, or stalls
	// (OnStall "fallback"): each "AGENT" or "AGENT:MODEL" ("command:CMD"
	// for a shell command). See FallbackAgents.
	Fallback []string `json:"fallback,omitempty"`
	// Reviewer is the agent ("AGENT", "AGENT:MODEL", "command:CMD") that
	// reviews an iteration whose checks all passed; its verdict is one
	// more check (loop/review.go). Empty: no reviewer.
	Reviewer string `json:"reviewer,omitempty"`

	// Candidates is how many agents each iteration (a round) starts at
	// once, each in its own worktree at the loop's current state; the
	// checks pick the one kept (0 or 1: one agent, no round). With
	// CandidateAgents, it is their number.
	Candidates int `json:"candidates,omitempty"`
	// CandidateAgents are the candidates of the list form of candidates
	// (different agents and models in one round); nil: Candidates copies
	// of the run's agent.
	CandidateAgents []CandidateAgent `json:"candidate_agents,omitempty"`
	// CandidatesFinish: CandidatesFirst (a candidate that succeeds stops
	// the others) or CandidatesAll (every candidate runs to its end).
	CandidatesFinish string `json:"candidates_finish,omitempty"`
	// CandidatesLessons: "on" puts what each losing candidate of a round
	// showed (its diff stat, its failing checks' first lines) into the
	// next prompt; "off" does not.
	CandidatesLessons string `json:"candidates_lessons,omitempty"`
	// Parallel bounds how many candidates' checks run at once (0: all).
	Parallel int `json:"parallel,omitempty"`
	// ResolveMaxIterations and ResolveMaxCost limit the merge queue's
	// resolution loop for this task (architect merge --batch): 0 means
	// DefaultResolveIterations, and the task's own MaxCost.
	ResolveMaxIterations int     `json:"resolve_max_iterations,omitempty"`
	ResolveMaxCost       float64 `json:"resolve_max_cost,omitempty"`

	Worktree     bool   `json:"worktree,omitempty"`
	WorktreeName string `json:"worktree_name,omitempty"`
	// IncludeUncommitted copies the main checkout's uncommitted changes
	// into the worktree's first commit (--worktree only).
	IncludeUncommitted bool `json:"include_uncommitted,omitempty"`
	// WorktreeSetup makes each new worktree ready to work in
	// (worktreesetup.go); YAML only: worktree_setup.
	WorktreeSetup WorktreeSetup `json:"worktree_setup,omitzero"`
	// CommitCheckOutputs lets architect's commits include the new files the
	// checks created; by default they are left out.
	CommitCheckOutputs bool `json:"commit_check_outputs,omitempty"`

	IterationTimeout     time.Duration `json:"iteration_timeout"`
	InactivityTimeout    time.Duration `json:"inactivity_timeout"`
	KillGrace            time.Duration `json:"kill_grace"`
	BackoffCap           time.Duration `json:"backoff_cap"`
	MaxConsecutiveErrors int           `json:"max_consecutive_errors"`
	OnUsageLimit         string        `json:"on_usage_limit"`
	// OutageRetries is how many times an agent whose run failed with an
	// outage (5xx, overload, unreachable) is tried again before the next
	// fallback agent takes over.
	OutageRetries int `json:"outage_retries"`
	// MaxUsageWait caps the total time a run waits for usage limits to
	// lift, over all its sessions.
	MaxUsageWait  time.Duration `json:"max_usage_wait"`
	DoneFile      string        `json:"done_file,omitempty"`
	DonePattern   string        `json:"done_pattern,omitempty"`
	IdleThreshold int           `json:"idle_threshold"`
	// StallThreshold is how many iterations in a row may go round in
	// circles (the same failing checks with the same output, or the tree
	// back to an earlier state) before OnStall acts: stop, fallback (the
	// next fallback agent) or pause (and ask the person). 0: never.
	StallThreshold int    `json:"stall_threshold"`
	OnStall        string `json:"on_stall,omitempty"`
	// FinalCheck is the last look before a success is declared: clean (the
	// checks run once more in a fresh checkout of the final tree), same
	// (once more in the agent's tree) or off.
	FinalCheck string `json:"final_check,omitempty"`
	// NoWatch snapshots the working tree after every iteration instead of
	// watching it for changes (changes.Watcher).
	NoWatch bool `json:"no_watch,omitempty"`

	// Protect lists globs of files the agent must not change (package
	// protect); Redact, regular expressions masked in everything written
	// (package redact), on top of secret environment values.
	Protect []string `json:"protect,omitempty"`
	// Judge is what happens when the agent changes a file that defines a
	// check (its script, the manifest of its npm script or make target,
	// its tool's configuration; see checks.FindJudges): JudgeProtect undoes
	// the change and fails the iteration, JudgeWarn keeps it and records
	// it, JudgeOff does not look. JudgeFiles are more such files, relative
	// to the workspace.
	Judge      string   `json:"judge,omitempty"`
	JudgeFiles []string `json:"judge_files,omitempty"`
	// Tests is what happens when the agent removes a test that was there
	// at the start: keep (the iteration fails), warn (recorded, and the
	// next prompt told) or off; "" is keep unless the task speaks of
	// changing tests (TestsMode).
	Tests string `json:"tests,omitempty"`
	// TranscriptLimit bounds, in bytes, each stream an iteration keeps in
	// .architect/transcripts/ (the agent's output, each check's): past it
	// the first and the last halves are kept, and the cut is said.
	TranscriptLimit int      `json:"transcript_limit,omitempty"`
	Redact          []string `json:"redact,omitempty"`
	// RedactKnown is on (credentials of a known format, GitHub, Anthropic,
	// OpenAI, AWS, Slack and cloud tokens, private keys, passwords in
	// URLs, are masked like Redact's matches; "" is on too) or off.
	RedactKnown string `json:"redact_known,omitempty"`
	// Broker is on (the agent's model API key is held by architect's
	// credential broker: the agent gets a made-up key and the broker's
	// URL; checks and hooks get no model key; "" is on too) or off.
	// CheckEnv names model key variables the checks and hooks still get.
	Broker   string   `json:"broker,omitempty"`
	CheckEnv []string `json:"check_env,omitempty"`

	// Sandbox is how the agent and the checks are confined (package
	// sandbox): off, workspace, strict or auto ("" is auto). SandboxWrite
	// and SandboxRead are more paths they may write, or (strict) read;
	// SandboxNet is all, none, a list of TCP ports or hosts:NAME,...
	Sandbox      string   `json:"sandbox,omitempty"`
	SandboxWrite []string `json:"sandbox_write,omitempty"`
	SandboxRead  []string `json:"sandbox_read,omitempty"`
	SandboxNet   string   `json:"sandbox_net,omitempty"`

	// Acting on the loop's events (package hooks). YAML: hooks.on_iteration
	// and hooks.on_finish.
	OnIteration string `json:"on_iteration,omitempty"`
	OnFinish    string `json:"on_finish,omitempty"`
	Notify      bool   `json:"notify,omitempty"`
	Push        bool   `json:"push,omitempty"`
	// Notifiers are the services the run's events are posted to (package
	// notify); YAML only.
	Notifiers []Notifier `json:"notifiers,omitempty"`
	// Roles are the steps of each iteration (roles.go): planners before
	// the executor, a reviewer after the checks.
	Roles []Role `json:"roles,omitempty"`
	// Questions (QuestionsOn, QuestionsOff) lets the agent ask the person
	// running the loop a question and wait for the answer, at most
	// QuestionTimeout; then OnQuestionTimeout (QuestionStop,
	// QuestionContinue) says what follows.
	Questions         string        `json:"questions,omitempty"`
	QuestionTimeout   time.Duration `json:"question_timeout,omitempty"`
	OnQuestionTimeout string        `json:"on_question_timeout,omitempty"`

	// Errorformat names, as FORMAT=COMMAND, the formats that read a
	// check's output into GitHub Actions annotations, for checks whose
	// command does not name the tool (ghactions.SplitFormatChoice).
	Errorformat []string `json:"errorformat,omitempty"`

	// Presentation: not part of a run's identity.
	Quiet bool   `json:"-"`
	Plain bool   `json:"-"` // plain lines even on a terminal
	JSON  bool   `json:"-"`
	Dir   string `json:"-"` // -C: the workspace
	// Events is where the event stream is also written: "-" is stdout.
	Events string `json:"-"`
	// New starts a new run even though the workspace's last run was
	// interrupted (which is then archived).
	New bool `json:"-"`
}

// What happens when the agent changes how a check is judged (judge).
const (
	JudgeProtect = "protect" // the change is undone and the iteration fails
	JudgeWarn    = "warn"    // the change is kept, recorded and reported
	JudgeOff     = "off"     // nothing is looked at
)

// Whether architect's credential broker holds the model keys (broker).
const (
	BrokerOn  = "on"
	BrokerOff = "off"
)

// Whether credentials of a known format are masked (redact_known).
const (
	RedactKnownOn  = "on"
	RedactKnownOff = "off"
)

// Defaults returns the built-in defaults (the seed's table).
// DefaultResolveIterations is the merge queue's resolution loop's
// iteration limit when resolve_max_iterations is not set.
const DefaultResolveIterations = 3

func Defaults() Config {
	return Config{
		CheckTimeout:         120 * time.Second,
		MaxIterations:        25,
		CompletionTag:        "COMPLETE",
		Agent:                agent.Default,
		IterationTimeout:     30 * time.Minute,
		InactivityTimeout:    10 * time.Minute,
		KillGrace:            5 * time.Second,
		BackoffCap:           300 * time.Second,
		MaxConsecutiveErrors: 5,
		OnUsageLimit:         "wait",
		MaxUsageWait:         6 * time.Hour,
		OutageRetries:        2,
		TranscriptLimit:      8 << 20,
		IdleThreshold:        3,
		StallThreshold:       5,
		OnStall:              StallStop,
		Judge:                JudgeProtect,
		FinalCheck:           FinalCheckClean,
		RedactKnown:          RedactKnownOn,
		Broker:               BrokerOn,
		Candidates:           1,
		CandidatesFinish:     CandidatesFirst,
		CandidatesLessons:    LessonsOff,
		Questions:            QuestionsOff,
		QuestionTimeout:      30 * time.Minute,
		OnQuestionTimeout:    QuestionStop,
		Dir:                  ".",
	}
}

// Error is one configuration problem. Key names the option (YAML key),
// Source where it came from ("ralph.yaml:12", "ARCHITECT_MAX_COST",
// "--max-cost"), Hint what to do about it.
type Error struct {
	Source string
	Key    string
	Msg    string
	Hint   string
	// Err is the error Msg tells, when one caused the problem: kept for
	// errors.Is and errors.As.
	Err error
}

// Unwrap returns the error that caused the problem, if any.
func (e *Error) Unwrap() error { return e.Err }

// errorOf is the problem err, which says it in full, at source and key.
func errorOf(source, key string, err error, hint string) *Error {
	return &Error{Source: source, Key: key, Msg: err.Error(), Hint: hint, Err: err}
}

// Error names the option once: by the flag or variable that set it
// ("--max-cost: ..."), or by file, line and key ("ralph.yaml:12:
// max_cost: ..."), or by key when the value is a default.
func (e *Error) Error() string {
	s := e.Msg
	named := strings.HasPrefix(e.Source, "-") || strings.HasPrefix(e.Source, "ARCHITECT_")
	if e.Key != "" && !named {
		s = e.Key + ": " + s
	}
	if e.Source != "" {
		s = e.Source + ": " + s
	}
	return s
}

// Errors is every problem found at once.
type Errors []*Error

func (es Errors) Error() string {
	if len(es) == 0 {
		return "no errors"
	}
	s := es[0].Error()
	if len(es) > 1 {
		s += " (and more)"
	}
	return s
}

// orNil returns es as an error, or nil when empty.
func (es Errors) orNil() error {
	if len(es) == 0 {
		return nil
	}
	return es
}

// CandidateAgent is one candidate of the list form of candidates: its
// agent (a name, or "command" with AgentCmd) and model.
type CandidateAgent struct {
	Agent    string `json:"agent" yaml:"agent"`
	Model    string `json:"model,omitempty" yaml:"model,omitempty"`
	AgentCmd string `json:"agent_cmd,omitempty" yaml:"agent_cmd,omitempty"`
}

// The values of candidates_finish and candidates_lessons.
const (
	CandidatesFirst = "first"
	CandidatesAll   = "all"
	LessonsOn       = "on"
	LessonsOff      = "off"
)
