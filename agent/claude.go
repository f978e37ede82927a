package agent

import (
	"cmp"
	"context"
	"strings"

	"github.com/architect-dev/architect/proc"
)

// claudeMaxLine bounds one line of Claude Code's output held in memory; a
// result line carries the whole final message, so it is generous. Longer
// lines are cut (see claudeStream.line).
const claudeMaxLine = 1 << 20

// claudeStderrTail is how much of Claude Code's stderr is kept, for the
// error of a run that ends without a result line.
const claudeStderrTail = 4096

// claudeInstallHint tells how to get Claude Code.
const claudeInstallHint = "install Claude Code (npm install -g @anthropic-ai/claude-code) or point --agent-bin at it"

// claude drives Claude Code headless: one `claude -p` process per
// iteration, the prompt on stdin, its stream-json output parsed as it
// arrives.
type claude struct{ cliAdapter }

// claudeArgs is the command line after the executable's name. The prompt
// is not on it: it goes on stdin, so that no argument-length limit applies.
func claudeArgs(model string, extra []string) []string {
	return cmdline([]string{"-p", "--output-format", "stream-json", "--verbose", "--dangerously-skip-permissions"}, "--model", model, extra)
}

func (a *claude) Run(ctx context.Context, req Request) Outcome {
	s := &claudeStream{dir: req.Dir, onActivity: req.OnActivity, onSpend: req.OnSpend, prices: a.prices}
	res, stderr := a.run(ctx, req, cliRun{args: claudeArgs(a.model, a.args), line: s.line, longLine: s.longLine,
		maxLine: claudeMaxLine, stderrTail: claudeStderrTail, toFile: "architect-claude-*.jsonl"})
	return a.outcome(res, s, stderr)
}

// outcome turns a finished run into an Outcome: figures from the result
// line (or, without one, from the assistant messages seen), then the
// classification of any failure.
func (a *claude) outcome(res proc.Result, s *claudeStream, stderr string) Outcome {
	return build(res, claudeInstallHint, func(o *Outcome) { a.figures(o, s, res) }, func(o *Outcome) { a.classify(o, s, stderr) })
}

func (a *claude) figures(o *Outcome, s *claudeStream, res proc.Result) {
	o.FinalMessage = s.finalText()
	if r := s.result; r != nil && (!s.truncated || s.tailSeen) {
		o.Steps = r.NumTurns
		o.Usage = r.Usage
		o.Cost, o.CostKnown = r.Cost, r.HasCost
	} else {
		o.Steps = s.messages
		o.Usage = s.usage
		if r != nil && r.NumTurns > 0 {
			o.Steps = r.NumTurns
		}
		if o.Usage != (Usage{}) {
			o.Cost, o.CostKnown = a.prices.Cost(s.model, o.Usage)
		} else if o.Steps == 0 && !res.TimedOut && !res.Inactive && !res.Canceled {
			o.CostKnown = true // it stopped before any answer from the model
		}
	}
}

// classify sets ErrKind, Err, Hint and ResetAt from the structured errors
// only: the rate_limit_event lines, Claude Code's own error messages and
// the result line; never from tool output.
func (a *claude) classify(o *Outcome, s *claudeStream, stderr string) {
	r := s.result
	if r != nil && !r.IsError && o.ExitCode == 0 {
		return
	}
	// The error text: the result's when it is an error, else Claude Code's
	// error message, else the end of stderr (not searched for limits: a
	// tool's child may write there).
	structured := cmp.Or(r.errorText(), s.apiErrorText, r.reasons())
	_, resetAt := claudeParseLimit(structured, a.now())
	text := cmp.Or(structured, r.endedWith(), lastLines(strings.TrimSpace(stderr), 10))
	o.Err = runErr("claude", text, o.ExitCode, r != nil)
	f := failure{text: structured, msg: structured, stderr: stderr, code: s.apiError, now: a.now()}
	if r != nil {
		f.status = r.APIErrorStatus
	}
	if s.limitRejected {
		f.limit = &resetAt
		if !s.limitResetAt.IsZero() {
			f.limit = &Reset{At: s.limitResetAt} // resetsAt: a Unix time
		}
	}
	claudeErrors.apply(o, f)
}

// claudeErrors sorts Claude Code's errors: the rate_limit_event, its
// usage-limit message, its refusal to run as root, then the API's errors
// by status, by the "error" of its synthetic message, or by the API's own
// error type in the text.
var claudeErrors = errTable{
	limitEvent,
	claudeLimit,
	{stderr: []string{"cannot be used with root/sudo privileges"},
		kind: ErrFatal, hint: "running as root: set IS_SANDBOX=1 if this is a sandbox"},
	// A rate limit, as for every agent: waited out (usage-limit wait), not
	// retried at once. Claude Code has already retried it itself.
	{status: []int{429}, code: []string{"rate_limit"}, exact: []string{"rate_limit_error"},
		kind: ErrUsageLimit, reset: retryReset},
	{status: []int{403},
		kind: ErrFatal, hint: "the API key or account is not allowed to do this: check its permissions"},
	{status: []int{401}, code: []string{"authentication_failed", "oauth_org_not_allowed"}, exact: []string{"Invalid API key", "authentication_error"},
		kind: ErrFatal, hint: "check the Anthropic credentials Claude Code uses (ANTHROPIC_API_KEY, or run claude and /login)"},
	{status: []int{404}, code: []string{"model_not_found"},
		kind: ErrFatal, hint: "check --model: give a model Claude Code knows (e.g. sonnet, opus or a full model id)"},
	{code: []string{"billing_error"},
		kind: ErrFatal, hint: claudeBillingHint},
	billing(claudeBillingHint),
	{code: []string{"server_error", "overloaded"}, kind: ErrOutage},
	outage,
}

// errorText is the text of an error result, "" for none.
func (r *claudeResult) errorText() string {
	if r == nil || !r.IsError || !r.HasResult {
		return ""
	}
	return r.Result
}

// reasons are the reasons an error result gives (error_max_turns,
// error_during_execution), "" for none.
func (r *claudeResult) reasons() string {
	if r == nil {
		return ""
	}
	return strings.Join(r.Errors, "; ")
}

// endedWith names the kind of an error result, "" for none.
func (r *claudeResult) endedWith() string {
	if r == nil || !r.IsError {
		return ""
	}
	return "run ended with " + r.Subtype
}

const claudeBillingHint = "the Anthropic account has no credit left: add some (console.anthropic.com, Plans & Billing) or use another key"
