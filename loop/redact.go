package loop

import (
	"io"
	"slices"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/checks"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/proc"
	"github.com/architect-dev/architect/runlog"
)

// What comes out of an agent or a check is hostile input: it may hold
// terminal escapes, NUL, invalid UTF-8 or a secret from the environment;
// the configuration may hold a secret too (a token in a check command).
// Text is cleaned (proc.Clean) and redacted (Deps.Redact) once, where it
// enters the loop: the agent's outcome and activity (sanitize, cleanText),
// the checks' names and output (sanitizeCheck), the configuration
// (redactConfig), the prompt (which holds the task, the specification, the
// diff and the progress), git's diff stat and messages. Every file and line
// derived from those (records, progress, events, logs, results, state,
// report) is safe by construction; none of them redacts again.

// sanitize cleans and redacts the text of an agent's outcome.
func (r *runner) sanitize(o agent.Outcome) agent.Outcome {
	o.Err = r.cleanText(o.Err)
	o.Hint = r.cleanText(o.Hint)
	o.FinalMessage = r.cleanText(o.FinalMessage)
	return o
}

// cleanText cleans and redacts one text from outside.
func (r *runner) cleanText(s string) string {
	if s == "" {
		return s
	}
	return r.deps.Redact(proc.Clean([]byte(s)))
}

// sanitizeCheck is check idx's result as the records keep it: named as
// the redacted configuration names it, its output (already cleaned by
// proc.Tail) redacted, and its status in words as the checks runner says
// it (which knows what a record does not: the configured timeout, a
// signal, a failure to start).
func (r *runner) sanitizeCheck(idx int, c checks.Result) runlog.CheckResult {
	if idx < len(r.shown.Checks) {
		c.Name = r.shown.Checks[idx]
	}
	c.Output = r.deps.Redact(c.Output)
	return c
}

// redactConfig returns cfg with its secrets masked, for what architect
// writes (state.json, events, prompts), and the keys of the values that
// lost a secret: those must be given again to resume the run, since the
// saved configuration no longer holds them.
func redactConfig(cfg config.Config, redact func(string) string) (config.Config, []string) {
	var masked []string
	one := func(key string, s *string) {
		if r := redact(*s); r != *s {
			*s = r
			masked = append(masked, key)
		}
	}
	list := func(key string, l *[]string) {
		out := slices.Clone(*l)
		changed := false
		for i := range out {
			if r := redact(out[i]); r != out[i] {
				out[i], changed = r, true
			}
		}
		*l = out
		if changed {
			masked = append(masked, key)
		}
	}
	one("task", &cfg.Task)
	list("checks", &cfg.Checks)
	one("agent_cmd", &cfg.AgentCmd)
	list("agent_args", &cfg.AgentArgs)
	one("on_iteration", &cfg.OnIteration)
	one("on_finish", &cfg.OnFinish)
	one("done_pattern", &cfg.DonePattern)
	list("fallback", &cfg.Fallback)
	one("reviewer", &cfg.Reviewer)
	one("worktree_setup.command", &cfg.WorktreeSetup.Command)
	roles := slices.Clone(cfg.Roles) // cfg's copy shares the caller's array
	rolesMasked := false
	for i := range roles {
		for _, s := range []*string{&roles[i].Agent, &roles[i].Model, &roles[i].Prompt} {
			if r := redact(*s); r != *s {
				*s, rolesMasked = r, true
			}
		}
	}
	cfg.Roles = roles
	if rolesMasked {
		masked = append(masked, "roles")
	}
	return cfg, masked
}

// redactWriter redacts each write of the loop's log (stderr), which is no
// file of architect's but often ends up in one (a CI log): a second net
// for a line composed from something not yet redacted.
type redactWriter struct {
	w      io.Writer
	redact func(string) string
}

func (rw redactWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(rw.w, rw.redact(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// resumeNeeds are the keys whose masked value stops a resume: what runs.
var resumeNeeds = []string{"checks", "agent_cmd", "agent_args", "on_iteration", "on_finish", "done_pattern", "fallback", "reviewer", "roles"}
