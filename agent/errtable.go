package agent

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Every adapter sorts a failed run the same way: it reads what went wrong
// from its CLI's own structured errors (never from tool output) into a
// failure, and looks it up in its table of error patterns, top to bottom;
// the first rule that matches says the kind of error, the hint for the
// user and, for a usage limit, when it lifts. A run no rule matches is a
// transient failure. Adding an agent means writing its table, not another
// switch.

// failure is what an adapter read of a failed run.
type failure struct {
	text   string // everything searched for patterns: the error message, and where the CLI prints its errors as plain text, those lines
	msg    string // the error message alone (the outage and limit rules read only this)
	stderr string // the end of the CLI's stderr
	status int    // the HTTP status behind the error, 0 when unknown
	exit   int    // the process's exit status
	code   string // the CLI's own name for the error: Claude Code's "error", aider's litellm exception, opencode's error name
	now    time.Time
	// limit is set when the CLI said in a structured event that a usage
	// limit was hit (Claude Code's rate_limit_event): when it lifts.
	limit   *Reset
	headers map[string]string // the HTTP response headers the CLI passed on

	lower string // text in lower case, made once
}

// errRule is one row of an adapter's table: a rule matches when any of its
// conditions does.
type errRule struct {
	status []int              // the HTTP status is one of these
	exit   []int              // the exit status is one of these
	code   []string           // failure.code is one of these
	text   []string           // failure.text contains one of these, ignoring case
	exact  []string           // failure.text contains one of these, case and all
	stderr []string           // failure.stderr contains one of these, case and all
	when   func(failure) bool // anything else

	kind  ErrorKind
	hint  string
	reset func(failure) Reset // for a usage limit: when it lifts, if the failure says
}

// errTable is an adapter's error patterns, most specific first.
type errTable []errRule

func (r *errRule) matches(f *failure) bool {
	if slices.Contains(r.status, f.status) || slices.Contains(r.exit, f.exit) || slices.Contains(r.code, f.code) {
		return true
	}
	for _, s := range r.text {
		if strings.Contains(f.lower, strings.ToLower(s)) {
			return true
		}
	}
	for _, s := range r.exact {
		if strings.Contains(f.text, s) {
			return true
		}
	}
	for _, s := range r.stderr {
		if strings.Contains(f.stderr, s) {
			return true
		}
	}
	return r.when != nil && r.when(*f)
}

// classify looks f up in the table: the kind of error, the hint for the
// user and when a usage limit lifts.
func (t errTable) classify(f failure) (ErrorKind, string, Reset) {
	f.lower = strings.ToLower(f.text)
	for i := range t {
		r := &t[i]
		if !r.matches(&f) {
			continue
		}
		var reset Reset
		if r.reset != nil {
			reset = r.reset(f)
		}
		return r.kind, r.hint, reset
	}
	return ErrTransient, "", Reset{}
}

// apply classifies f and records the result in o.
func (t errTable) apply(o *Outcome, f failure) {
	var reset Reset
	o.ErrKind, o.Hint, reset = t.classify(f)
	o.setReset(reset)
}

// Rules several tables share.
var (
	// limitEvent: the CLI said so in a structured event.
	limitEvent = errRule{kind: ErrUsageLimit,
		when:  func(f failure) bool { return f.limit != nil },
		reset: func(f failure) Reset { return *f.limit }}
	// claudeLimit: Claude's own usage-limit message ("You've hit your
	// limit · resets 5pm (Europe/Paris)"), which other CLIs pass on.
	claudeLimit = errRule{kind: ErrUsageLimit,
		when:  func(f failure) bool { ok, _ := claudeParseLimit(f.msg, f.now); return ok },
		reset: func(f failure) Reset { _, r := claudeParseLimit(f.msg, f.now); return r }}
	// planLimit: a plan's usage limit as an API says it (see usageLimit).
	planLimit = errRule{kind: ErrUsageLimit,
		when:  func(f failure) bool { ok, _ := usageLimit(f.text, f.headers, f.now); return ok },
		reset: func(f failure) Reset { _, r := usageLimit(f.text, f.headers, f.now); return r }}
	// outage: the provider's service failed (see isOutage).
	outage = errRule{kind: ErrOutage, when: func(f failure) bool { return isOutage(f.status, f.msg) }}
)

// billing is the rule for an account out of credit or quota, which waiting
// does not fix.
func billing(hint string) errRule {
	return errRule{status: []int{402}, exact: []string{"insufficient_quota", "billing_error"},
		text: []string{"credit balance is too low", "exceeded your current quota"}, kind: ErrFatal, hint: hint}
}

// refusedArgs is the rule for a CLI that refused its command line, in the
// words of commander.js, which the Node CLIs parse their flags with.
func refusedArgs(hint string) errRule {
	return errRule{text: []string{"unknown option", "unknown command", "too many arguments"}, kind: ErrFatal, hint: hint}
}

// runErr is the error of a failed run: the CLI's words, or when it said
// nothing, its exit status and whether it ended without a result.
func runErr(cli, text string, exit int, result bool) string {
	switch {
	case text != "":
		return cli + ": " + text
	case result:
		return fmt.Sprintf("%s exited with status %d", cli, exit)
	}
	return fmt.Sprintf("%s exited with status %d without a result", cli, exit)
}

// retryReset is when to try again by the delay the message asks for.
func retryReset(f failure) Reset {
	if d, ok := retryDelay(f.text); ok {
		return exactReset(f.now.Add(d))
	}
	return Reset{}
}

// headerOrRetryReset is when to try again by the response headers, else
// by the delay the message asks for.
func headerOrRetryReset(f failure) Reset {
	if t := headerReset(f.headers, f.now); !t.IsZero() {
		return exactReset(t)
	}
	return retryReset(f)
}
