package runlog

import (
	"fmt"
	"strings"
	"time"
)

// Stop reasons, as they appear in the result's stop_reason.
const (
	StopSuccess        = "all_checks_passed"
	StopMaxIterations  = "max_iterations"
	StopBudget         = "budget_exhausted"
	StopTimeout        = "timeout"
	StopCancelled      = "cancelled"
	StopAgentError     = "agent_error"
	StopCircuitBreaker = "circuit_breaker"
	StopWaiting        = "waiting"
	StopIdle           = "idle"
	StopUsageLimit     = "usage_limit"
	StopError          = "error"
	// StopNoChecks is the end of a run without checks (--no-checks, or
	// checks: [] in the file) whose agent declared completion: the run did
	// what was asked, but no check earned it, so it is never reported as
	// all_checks_passed.
	StopNoChecks = "agent_declared_complete_without_checks"
	// StopCostUnknown: --max-cost is set, but an iteration's cost could not
	// be known, so the budget can no longer be enforced.
	StopCostUnknown = "cost_unknown"
	// StopStalled: the loop went round in circles (--stall-threshold) and
	// --on-stall is stop, or no agent was left to fall back on.
	StopStalled = "stalled"
	// StopRequested: the loop stopped between iterations because it was
	// asked to (ControlStop). The run can be resumed.
	StopRequested = "stop_requested"

	// StopIssueClosed: the GitHub issue the run works on was closed while
	// it ran (architect github); the run is saved and resumable.
	StopIssueClosed = "issue_closed"

	// StopQuestion: the agent asked a question that no answer came to
	// within question_timeout, with on_question_timeout stop. The run can
	// be resumed: an answer given meanwhile (architect answer) goes into
	// the next prompt.
	StopQuestion = "question_unanswered"

	// StopSetup: the worktree's setup command (worktree_setup.command)
	// failed or timed out before the first iteration: no agent started.
	// Its output is in SetupLogFile; --resume runs it again.
	StopSetup = "setup_error"
)

// Why an iteration was interrupted before its checks ran (Iteration.Interrupted).
const (
	InterruptMaxTime = "max_time" // --max-time was reached
	InterruptSignal  = "signal"   // SIGINT, SIGTERM or `architect cancel`
	InterruptMaxCost = "max_cost" // the agent's spending reached --max-cost
	InterruptKilled  = "killed"   // architect itself died (found by --resume)
	// InterruptNote: the person running the loop asked for a new iteration
	// with their note at once (architect say --now); the loop goes on.
	InterruptNote = "note"
)

// Iteration is one iteration of the loop, as result.json and the records
// keep it.
type Iteration struct {
	Iteration int `json:"iteration"`
	// Candidates are the round's candidates when the run has several
	// (--candidates): each one's agent, what its checks said, what it
	// cost, whether it was kept and why not. The iteration's own fields
	// are the kept candidate's, except cost and tokens, the round's sum.
	Candidates []Candidate `json:"candidates,omitempty"`
	// Agent and Model are what the iteration ran on (a fallback agent may
	// differ from the run's own).
	Agent      string   `json:"agent,omitempty"`
	Model      string   `json:"model,omitempty"`
	StepsTaken int      `json:"steps_taken"`
	Cost       *float64 `json:"cost"` // null when the agent's cost could not be known
	// ReviewCost is what the reviewer (--reviewer) cost, which Cost
	// includes; absent when no reviewer ran or its cost is unknown.
	ReviewCost *float64 `json:"review_cost,omitempty"`
	// PlanCost is what the planners (roles:) cost, which Cost includes;
	// Plan is their plan as the executor's prompt got it, and
	// PlanFilesRestored says a planner changed files that were put back.
	PlanCost          *float64      `json:"plan_cost,omitempty"`
	Plan              string        `json:"plan,omitempty"`
	PlanFilesRestored bool          `json:"plan_files_restored,omitempty"`
	Duration          float64       `json:"duration"`
	AgentDuration     float64       `json:"agent_duration"`
	ChecksDuration    float64       `json:"checks_duration"`
	CheckResults      []CheckResult `json:"check_results"`
	AllChecksPassed   bool          `json:"all_checks_passed"`
	// ChecksRun is false when the checks did not run to their end: the
	// iteration was interrupted, the agent could not run or is waiting, or
	// the run has no checks (--no-checks).
	ChecksRun bool `json:"checks_run"`
	// Interrupted says why the loop stopped the iteration before its
	// checks could run (Interrupt*); "" for an iteration that ran its course.
	Interrupted        string  `json:"interrupted,omitempty"`
	CompletionTagFound bool    `json:"completion_tag_found"`
	CompletionSignal   string  `json:"completion_signal,omitempty"` // tag, done_file or done_pattern
	AgentTimedOut      bool    `json:"agent_timed_out,omitempty"`   // iteration or inactivity timeout
	Error              *string `json:"error"`
	ErrorKind          string  `json:"error_kind,omitempty"`
	ExitCode           int     `json:"agent_exit_code"`
	Tokens             *Tokens `json:"tokens,omitempty"`
	Commit             string  `json:"commit,omitempty"`
	StartedAt          string  `json:"started_at"`
	// FinalMessage is the tail (at most FinalMessageLimit bytes) of the
	// agent's final message, for reports.
	FinalMessage string `json:"final_message,omitempty"`
	// DiffStat is `git diff --stat` of the changes so far (against the
	// initial ref) after the iteration.
	DiffStat string `json:"diff_stat,omitempty"`
	// ProtectedRestored lists the protected files (--protect) the agent
	// changed, created or deleted, which architect restored; such an
	// iteration failed, whatever the checks said.
	ProtectedRestored []string `json:"protected_restored,omitempty"`
	// SandboxDenied names what the sandbox refused the agent and the
	// checks in this iteration, as their output showed it ("sandbox
	// denied write to PATH", "... connect to HOST:PORT") and as the host
	// proxy refused it.
	SandboxDenied []string `json:"sandbox_denied,omitempty"`
	// JudgeChanged lists the files that define a check (--judge) the agent
	// changed, created or deleted in this iteration: undone, and the
	// iteration failed, unless the run keeps such changes (--judge warn,
	// Kept).
	JudgeChanged []JudgeChange `json:"judge_changed,omitempty"`
	// TestsRemoved says which tests of the run's start the iteration left
	// gone (test files deleted or renamed, test functions removed, tests
	// a check no longer ran), and whether the iteration failed for it.
	TestsRemoved *TestsRemoved `json:"tests_removed,omitempty"`
	// Notes are the notes of the person running the loop (architect say)
	// that the iteration's prompt carried, masked as everything is.
	Notes []string `json:"notes,omitempty"`
	// Question is what the iteration's agent asked the person running the
	// loop (the loop then waited for an answer); Answer is the answer the
	// iteration's prompt carried, to the question of the one before, or
	// "(no answer)" when none came in time and the run went on.
	Question string `json:"question,omitempty"`
	Answer   string `json:"answer,omitempty"`
	// Diff is the size of the iteration's own change, when known exactly
	// (a committed iteration); its diff is in its transcript folder.
	Diff *DiffSize `json:"diff,omitempty"`
	// FinalCheck is the last look before a success (final_check): the
	// checks once more, in a clean checkout of the final tree or in the
	// agent's own; nil when none was made (the iteration did not earn a
	// success to look at, or final_check is off).
	FinalCheck *FinalCheck `json:"final_check,omitempty"`
	// CommitDeferred says why the iteration (worktree runs and build mode)
	// was not committed though it changed files: another git process was
	// using the index. Nothing is lost: its changes stay in the working
	// tree and the next commit takes them.
	CommitDeferred string `json:"commit_deferred,omitempty"`
}

// The outcomes of a last look (FinalCheck.Status).
const (
	FinalPassed = "passed" // every check passed again: the success stands
	FinalFailed = "failed" // a check failed there: no success (Reason says why)
	// FinalError: the look could not be made (the clean checkout failed);
	// the run stops without success.
	FinalError = "error"
	// FinalInterrupted: the run was stopped during the look.
	FinalInterrupted = "interrupted"
)

// FinalCheck is the last look of an iteration that would have ended the
// run with success.
type FinalCheck struct {
	Mode   string `json:"mode"`   // clean or same
	Status string `json:"status"` // FinalPassed, FinalFailed, FinalError, FinalInterrupted
	// Reason says in words why the success does not stand (or, for a look
	// made otherwise than asked, why).
	Reason string `json:"reason,omitempty"`
	// CheckedOut is the commit checked out clean: the final tree, held by
	// no ref (clean only).
	CheckedOut string `json:"checked_out,omitempty"`
	// Duration is the whole look; CheckoutDuration the clean checkout
	// (making the tree, the worktree, bringing the environment in and
	// removing it all again); ChecksDuration the checks. Seconds.
	Duration         float64 `json:"duration"`
	CheckoutDuration float64 `json:"checkout_duration,omitempty"`
	ChecksDuration   float64 `json:"checks_duration"`
	// Environment lists the ignored environment entries (node_modules,
	// .venv, .env files…) brought into the clean tree as they were at the
	// start of the run; EnvironmentChanged those left out because they
	// changed during it.
	Environment        []string      `json:"environment,omitempty"`
	EnvironmentChanged []string      `json:"environment_changed,omitempty"`
	CheckResults       []CheckResult `json:"check_results,omitempty"`
}

// Failed reports whether the look took the success away (failed, error or
// interrupted).
func (f *FinalCheck) Failed() bool { return f != nil && f.Status != FinalPassed }

// DiffSize is the size of an iteration's own change: the files it changed
// and the lines it added and deleted. It is known exactly when the
// iteration was committed (worktree runs, build mode).
type DiffSize struct {
	Files   int `json:"files"`
	Added   int `json:"added"`
	Deleted int `json:"deleted"`
}

// JudgeChange is one file that defines a check, changed by the agent.
type JudgeChange struct {
	File   string   `json:"file"`   // relative to the workspace
	Checks []string `json:"checks"` // the checks it defines, as the configuration names them
	// Kept: the change stays (--judge warn); otherwise it was undone and
	// the iteration failed.
	Kept bool `json:"kept,omitempty"`
}

// Text is the change in words: the agent changed how `CHECK` is judged: FILE.
func (c JudgeChange) Text() string {
	checks := ""
	for i, n := range c.Checks {
		if i > 0 {
			checks += ", "
		}
		checks += "`" + n + "`"
	}
	if checks == "" {
		checks = "the checks"
	}
	return "the agent changed how " + checks + " is judged: " + c.File
}

// FinalMessageLimit bounds the final message kept with each iteration.
const FinalMessageLimit = 4096

// Tokens is an iteration's token usage.
type Tokens struct {
	Input       int64 `json:"input"`
	CachedInput int64 `json:"cached_input"`
	Output      int64 `json:"output"`
}

// Result is the outcome of a whole loop (result.json).
type Result struct {
	Iterations []Iteration `json:"iterations"`
	// TotalCost is the sum of the iterations' costs: null when any of them
	// is unknown (KnownCost is then what is known of it).
	TotalCost             *float64 `json:"total_cost"`
	TotalCostKnown        bool     `json:"total_cost_known"`
	KnownCost             float64  `json:"known_cost"`
	UnknownCostIterations int      `json:"unknown_cost_iterations,omitempty"`
	TotalDuration         float64  `json:"total_duration"`
	TotalIterations       int      `json:"total_iterations"`
	Success               bool     `json:"success"`
	StopReason            string   `json:"stop_reason"`
	StopDetail            string   `json:"stop_detail,omitempty"`
	// NoChecks: the run had no checks (--no-checks): nothing it reports was
	// checked.
	NoChecks bool `json:"no_checks,omitempty"`
	// Sandbox says what the sandbox confined (package sandbox), or that
	// it was off.
	Sandbox string `json:"sandbox,omitempty"`
	// FinalCheck is the run's last look before a success: the last one
	// made (see Iteration.FinalCheck); nil when none was.
	FinalCheck *FinalCheck `json:"final_check,omitempty"`
	// UsageLimitWaits and UsageLimitWaited count the waits for the agent's
	// usage limit and their total, in seconds, over the whole run.
	UsageLimitWaits  int     `json:"usage_limit_waits,omitempty"`
	UsageLimitWaited float64 `json:"usage_limit_waited,omitempty"`
	// Waits lists the usage-limit waits (the last 100): for which agent,
	// how long, and whether at a reset time the agent gave.
	Waits []Wait `json:"waits,omitempty"`
	// Agents is what each agent (and model) did and cost, in the order
	// they first ran; Switches every change of agent, and why.
	Agents   []AgentCost `json:"agents,omitempty"`
	Switches []Switch    `json:"switches,omitempty"`
	// IdleIterations is the run of idle iterations at the end; Stalls the
	// times the loop went round in circles, and what it did.
	IdleIterations int     `json:"idle_iterations,omitempty"`
	Stalls         []Stall `json:"stalls,omitempty"`
	// JudgeChanged is every file that defines a check the agent changed
	// over the run (from the iterations' judge_changed), each once, as its
	// last change left it.
	JudgeChanged []JudgeChange `json:"judge_changed,omitempty"`
	// NotesDelivered counts the notes (architect say) the prompts carried.
	NotesDelivered int `json:"notes_delivered,omitempty"`
	// TestsRemoved is what the last iteration left of the run's tests,
	// when it left less than there was at the start.
	TestsRemoved *TestsRemoved `json:"tests_removed,omitempty"`
	// CommitsDeferred counts the iterations whose commit was deferred
	// (Iteration.CommitDeferred).
	CommitsDeferred int `json:"commits_deferred,omitempty"`
	// StopHint says what to do about the stop (a fatal agent error).
	StopHint     string `json:"stop_hint,omitempty"`
	WorktreePath string `json:"worktree_path"`
	Branch       string `json:"branch"`
	InitialRef   string `json:"initial_ref"`
	Workspace    string `json:"workspace"`
}

// Add appends an iteration and derives the totals again.
func (r *Result) Add(it Iteration) {
	r.Iterations = append(r.Iterations, it)
	r.Recost()
}

// Recost derives the totals from the iterations.
func (r *Result) Recost() {
	r.TotalIterations = len(r.Iterations)
	c := costOf(r.Iterations)
	r.TotalCost, r.TotalCostKnown, r.KnownCost, r.UnknownCostIterations = c.Total(), c.Unknown == 0, c.Known, c.Unknown
	r.Agents = AgentCosts(r.Iterations)
	r.NotesDelivered, r.CommitsDeferred = 0, 0
	r.JudgeChanged = nil
	at := map[string]int{}
	for _, it := range r.Iterations {
		r.NotesDelivered += len(it.Notes)
		if it.CommitDeferred != "" {
			r.CommitsDeferred++
		}
		for _, c := range it.JudgeChanged {
			if i, ok := at[c.File]; ok {
				r.JudgeChanged[i] = c
				continue
			}
			at[c.File] = len(r.JudgeChanged)
			r.JudgeChanged = append(r.JudgeChanged, c)
		}
	}
}

// Cost is the total cost of the run's iterations.
func (r *Result) Cost() Cost {
	return Cost{Known: r.KnownCost, Unknown: r.UnknownCostIterations, Iterations: r.TotalIterations}
}

// Cost is a sum of iteration costs of which some may be unknown.
type Cost struct {
	Known      float64 // the sum of the costs that are known
	Unknown    int     // how many iterations' cost is unknown
	Iterations int
}

func costOf(its []Iteration) Cost {
	c := Cost{Iterations: len(its)}
	for _, it := range its {
		if it.Cost == nil {
			c.Unknown++
			continue
		}
		c.Known += *it.Cost
	}
	return c
}

// Total is the total, or nil when some of it is unknown.
func (c Cost) Total() *float64 {
	if c.Unknown > 0 {
		return nil
	}
	v := c.Known
	return &v
}

// String is the total as people read it: "$1.2500", "unknown", or "at
// least $1.2500 (2 of 5 iterations' cost unknown)".
func (c Cost) String() string {
	switch {
	case c.Unknown == 0:
		return fmt.Sprintf("$%.4f", c.Known)
	case c.Unknown >= c.Iterations && c.Known == 0:
		return "unknown"
	}
	return fmt.Sprintf("at least $%.4f (%d of %d iterations' cost unknown)", c.Known, c.Unknown, c.Iterations)
}

// Timeouts reports whether the agent run hit a timeout.
func (it Iteration) Timeouts() bool { return it.AgentTimedOut }

// CheckResult is one check's result, as the records keep it.
type CheckResult struct {
	Name        string  `json:"name"` // the command
	Passed      bool    `json:"passed"`
	ExitCode    int     `json:"exit_code"` // -1 when killed or never started
	TimedOut    bool    `json:"timed_out"`
	Duration    float64 `json:"duration"`     // seconds
	Output      string  `json:"output"`       // cleaned tail of stdout and stderr combined
	OutputBytes int64   `json:"output_bytes"` // all the output, of which Output is the end

	// Said is how the check ended in words as the checks runner said it
	// (checks.Result.Status: it knows the configured timeout, a signal, a
	// failure to start); it is not written, so a result read back has it
	// empty and Status derives it from the rest.
	Said string `json:"-"`
}

// Status says in a few words how the check ended: "exit status 1",
// "timeout after 120s".
func (c CheckResult) Status() string {
	switch {
	case c.Said != "":
		return c.Said
	case c.TimedOut:
		d := time.Duration(c.Duration * float64(time.Second)).Round(time.Second)
		if d%time.Second == 0 {
			return fmt.Sprintf("timeout after %ds", d/time.Second)
		}
		return "timeout after " + d.String()
	}
	return fmt.Sprintf("exit status %d", c.ExitCode)
}

// AgentCost is what one agent (and model) of a run did and cost.
type AgentCost struct {
	Agent      string   `json:"agent"`
	Model      string   `json:"model,omitempty"`
	Iterations int      `json:"iterations"`
	Cost       *float64 `json:"cost"` // null: some of its iterations' cost is unknown
	KnownCost  float64  `json:"known_cost"`
}

// AgentCosts sums the iterations' costs per agent and model, in the order
// the agents first ran.
func AgentCosts(its []Iteration) []AgentCost {
	var out []AgentCost
	idx := map[string]int{}
	unknown := map[string]bool{}
	for _, it := range its {
		key := it.Agent + "\x00" + it.Model
		i, ok := idx[key]
		if !ok {
			i = len(out)
			idx[key] = i
			out = append(out, AgentCost{Agent: it.Agent, Model: it.Model})
		}
		out[i].Iterations++
		if it.Cost == nil {
			unknown[key] = true
			continue
		}
		out[i].KnownCost += *it.Cost
	}
	for key, i := range idx {
		if !unknown[key] {
			out[i].Cost = ptr(out[i].KnownCost)
		}
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// Text says in one line how the last look went, with its cost in time,
// for the report, the Actions summary and the view.
func (f *FinalCheck) Text() string {
	if f == nil {
		return ""
	}
	where := "in a clean checkout of the final tree"
	times := fmt.Sprintf("checkout %.1fs, checks %.1fs", f.CheckoutDuration, f.ChecksDuration)
	if f.Mode != "clean" {
		where, times = "again in the workspace", fmt.Sprintf("checks %.1fs", f.ChecksDuration)
	}
	if len(f.Environment) > 0 {
		times += "; " + strings.Join(f.Environment, ", ") + " brought in as at the start"
	}
	switch f.Status {
	case FinalPassed:
		s := "passed " + where + " (" + times + ")"
		if f.Reason != "" {
			s += ": " + f.Reason
		}
		return s
	case FinalInterrupted:
		return "interrupted " + where
	}
	return f.Status + ": " + f.Reason + " (" + times + ")"
}

// Candidate is one candidate of a round (Iteration.Candidates).
type Candidate struct {
	N     int    `json:"n"` // 1-based; the agent saw it as ARCHITECT_CANDIDATE
	Agent string `json:"agent,omitempty"`
	Model string `json:"model,omitempty"`
	// Kept: the round's result is this candidate's change. Why says why
	// a candidate was not kept (in words, against the kept one).
	Kept bool   `json:"kept"`
	Why  string `json:"why,omitempty"`
	// Success: its checks all passed and it declared completion.
	Success          bool     `json:"success"`
	CompletionSignal string   `json:"completion_signal,omitempty"`
	ChecksPassed     int      `json:"checks_passed"`
	ChecksTotal      int      `json:"checks_total"`
	FailingLines     int      `json:"failing_lines"` // lines of output of its failing checks
	DiffLines        int      `json:"diff_lines"`    // lines its change added and removed
	DiffStat         string   `json:"diff_stat,omitempty"`
	Cost             *float64 `json:"cost,omitempty"` // absent: unknown
	Tokens           *Tokens  `json:"tokens,omitempty"`
	Duration         float64  `json:"duration"` // seconds, agent and checks
	TimedOut         bool     `json:"timed_out,omitempty"`
	// Stopped: another candidate succeeded first (candidates_finish
	// first), so this one was stopped before its end.
	Stopped bool     `json:"stopped,omitempty"`
	Error   *string  `json:"error,omitempty"`
	Failing []string `json:"failing,omitempty"` // the checks that failed
	// SandboxDenied: what its sandbox refused (see Iteration.SandboxDenied).
	SandboxDenied []string `json:"sandbox_denied,omitempty"`
	Transcript    string   `json:"transcript,omitempty"` // its folder, relative to the state folder
}
