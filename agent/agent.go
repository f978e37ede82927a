// Package agent starts the coding agents architect drives: one brand-new
// process per iteration, nothing carried over but the files and the prompt.
// Each adapter knows how to invoke its CLI headless and how to read its
// output into a common Outcome (final message, steps, tokens, cost, errors).
package agent

import (
	"context"
	"io"
	"syscall"
	"time"
)

// Request is everything one agent run gets.
type Request struct {
	Prompt        string   // the full prompt text
	PromptFile    string   // absolute path where Prompt was written
	ResultFile    string   // absolute path where a command agent may write its JSON result
	Dir           string   // the workspace: the agent's working directory
	Iteration     int      // 1-based
	MaxIterations int      // the configured limit
	Env           []string // the complete environment for the process (nil: os.Environ())

	Timeout           time.Duration // per-iteration timeout, 0 = none
	InactivityTimeout time.Duration // no output for this long ends the run, 0 = none
	Grace             time.Duration // SIGTERM → SIGKILL

	// OnActivity, when set, is called with one-line summaries of what the
	// agent is doing (tool calls, messages) as its output is parsed.
	OnActivity func(string)

	// OnSpend, when set, is called with what the run has spent so far each
	// time the CLI reports more before its final event (tokens of each
	// model answer, a step's cost, a command agent's result file rewritten):
	// the loop keeps it, so that the cost of a run stopped or killed in the
	// middle is not lost, and stops a run that reaches the budget. It is
	// called from the adapter's output goroutine.
	OnSpend func(Spend)

	// CompletionTag and DonePattern are what the loop looks for in the final
	// message. An adapter whose final message can be too large to keep (the
	// command agent's stdout) searches it itself as it streams, and says
	// what it found in Outcome.Searched; the others leave it to the loop.
	CompletionTag string
	DonePattern   string

	// CopyStdout and CopyStderr, when set, also get everything the CLI
	// prints on its standard output and error, as it comes, for the
	// iteration's transcript on disk. They must not fail.
	CopyStdout, CopyStderr io.Writer

	// Wrap starts the CLI through the sandbox's helper (proc.Options.Wrap);
	// nil: unconfined.
	Wrap func(name string, args []string, arg0 string) (string, []string, string, error)
	// WrapAttr is what the helper Wrap starts needs to be started with
	// (proc.Options.Attr); nil: nothing.
	WrapAttr func(*syscall.SysProcAttr)
	// TempDir is where the adapter makes the files the CLI writes besides
	// the workspace (aider's chat history): the sandbox's private temporary
	// folder, which a confined CLI may write; "" is the system's.
	TempDir string
}

// Spend is what a run has spent so far.
type Spend struct {
	Usage     Usage
	Cost      float64 // USD, valid when CostKnown
	CostKnown bool
}

// Searched is what an adapter found when it searched the final message
// itself (see Request.CompletionTag).
type Searched struct {
	Tag     bool // a completion declaration (prompt.Detector)
	Pattern bool // a match of Request.DonePattern
}

// ErrorKind classifies why a run failed.
type ErrorKind string

const (
	// ErrNone: the run ended normally (its exit status may still be non-zero).
	ErrNone ErrorKind = ""
	// ErrFatal stops the loop at once: executable not found, permission
	// denied, authentication rejected, invalid model.
	ErrFatal ErrorKind = "fatal"
	// ErrTransient is recorded as the iteration's error and the loop goes
	// on, with backoff: a crashed or timed-out run, a failure the CLI does
	// not explain.
	ErrTransient ErrorKind = "transient"
	// ErrOutage is the provider's service failing (a 5xx answer, overload,
	// the service unreachable): retried with backoff like a transient
	// error, counted by the circuit breaker, and past --outage-retries the
	// loop falls back to the next agent, when one is configured.
	ErrOutage ErrorKind = "outage"
	// ErrUsageLimit means the provider refused for quota reasons (a plan's
	// usage limit, a rate limit: HTTP 429); ResetAt tells when it lifts, if
	// known. Billing (no credit left) is ErrFatal: waiting does not fix it.
	ErrUsageLimit ErrorKind = "usage_limit"
)

// Usage counts tokens.
type Usage struct {
	Input       int64 `json:"input"`
	CachedInput int64 `json:"cached_input"`
	Output      int64 `json:"output"`
}

// Outcome is the common result of one agent run.
type Outcome struct {
	FinalMessage string    // the agent's final message; the only place the completion tag is looked for
	Steps        int       // turns or tool calls
	Usage        Usage     // tokens, where reported
	Cost         float64   // USD, valid when CostKnown
	CostKnown    bool      // false: the cost could not be determined (reported as unknown, not 0)
	ExitCode     int       // process exit status (-1 when killed or never started)
	TimedOut     bool      // the iteration timeout was reached
	Inactive     bool      // the inactivity timeout was reached
	Canceled     bool      // the run was stopped because the loop was cancelled or ran out of time
	ErrKind      ErrorKind // see ErrorKind
	Err          string    // human-readable error, "" when none
	Hint         string    // what the user can do about a fatal error
	ResetAt      time.Time // for ErrUsageLimit: when the limit lifts, zero if unknown
	// ResetWithin is the precision of ResetAt: the limit lifts somewhere
	// in [ResetAt, ResetAt+ResetWithin). A clock time printed to the
	// minute ("try again at 6:19 AM") is within a minute; 0 is exact.
	ResetWithin time.Duration
	Duration    time.Duration
	// Searched, when set, is what the adapter found in a final message it
	// could not keep whole (FinalMessage then holds only its end).
	Searched *Searched
}

// Failed reports whether the run counts as a failed agent run for backoff
// and the circuit breaker: a non-zero exit, a timeout, or an error.
func (o Outcome) Failed() bool {
	return o.ExitCode != 0 || o.TimedOut || o.Inactive || o.ErrKind != ErrNone
}

// Agent runs one iteration. Implementations must start a fresh process per
// call, in its own process group, and must not keep state between calls.
type Agent interface {
	Name() string
	Run(ctx context.Context, req Request) Outcome
}
