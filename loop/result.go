package loop

import (
	"github.com/architect-dev/architect/checks"
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
)

// Iteration is one iteration of the loop (the seed's LoopIteration).
type Iteration struct {
	Iteration          int             `json:"iteration"`
	StepsTaken         int             `json:"steps_taken"`
	Cost               *float64        `json:"cost"` // null when the agent's cost could not be known
	Duration           float64         `json:"duration"`
	AgentDuration      float64         `json:"agent_duration"`
	ChecksDuration     float64         `json:"checks_duration"`
	CheckResults       []checks.Result `json:"check_results"`
	AllChecksPassed    bool            `json:"all_checks_passed"`
	CompletionTagFound bool            `json:"completion_tag_found"`
	CompletionSignal   string          `json:"completion_signal,omitempty"` // tag, done_file or done_pattern
	AgentTimedOut      bool            `json:"agent_timed_out,omitempty"`   // iteration or inactivity timeout
	Error              *string         `json:"error"`
	ErrorKind          string          `json:"error_kind,omitempty"`
	ExitCode           int             `json:"agent_exit_code"`
	Tokens             *Tokens         `json:"tokens,omitempty"`
	Commit             string          `json:"commit,omitempty"`
	StartedAt          string          `json:"started_at"`
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
}

// FinalMessageLimit bounds the final message kept with each iteration.
const FinalMessageLimit = 4096

// Tokens is an iteration's token usage.
type Tokens struct {
	Input       int64 `json:"input"`
	CachedInput int64 `json:"cached_input"`
	Output      int64 `json:"output"`
}

// Result is the outcome of a whole loop (the seed's RalphLoopResult).
type Result struct {
	Iterations      []Iteration `json:"iterations"`
	TotalCost       float64     `json:"total_cost"`
	TotalCostKnown  bool        `json:"total_cost_known"`
	TotalDuration   float64     `json:"total_duration"`
	TotalIterations int         `json:"total_iterations"`
	Success         bool        `json:"success"`
	StopReason      string      `json:"stop_reason"`
	StopDetail      string      `json:"stop_detail,omitempty"`
	WorktreePath    string      `json:"worktree_path"`
	Branch          string      `json:"branch"`
	InitialRef      string      `json:"initial_ref"`
	Workspace       string      `json:"workspace"`
}

func (r *Result) add(it Iteration) {
	r.Iterations = append(r.Iterations, it)
	r.TotalIterations = len(r.Iterations)
	r.TotalCost, r.TotalCostKnown = 0, true
	for _, x := range r.Iterations {
		if x.Cost == nil {
			r.TotalCostKnown = false
			continue
		}
		r.TotalCost += *x.Cost
	}
}

// Timeouts reports whether the agent run hit a timeout.
func (it Iteration) Timeouts() bool { return it.AgentTimedOut }
