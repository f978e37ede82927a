package loop

import (
	"fmt"
	"io"
	"strings"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/proc"
	"github.com/architect-dev/architect/protect"
)

// What comes out of an agent or a check is hostile input: it may hold
// terminal escapes, NUL, invalid UTF-8 or a secret from the environment.
// It is cleaned (proc.Clean) and redacted (Deps.Redact) once, where it
// enters the loop, so that every file and line derived from it (prompts,
// records, progress, events, logs, results, state) is safe.

// sanitize cleans and redacts the text of an agent's outcome.
func (r *runner) sanitize(o agent.Outcome) agent.Outcome {
	o.Err = r.deps.Redact(proc.Clean([]byte(o.Err)))
	o.Hint = r.deps.Redact(proc.Clean([]byte(o.Hint)))
	o.FinalMessage = r.deps.Redact(proc.Clean([]byte(o.FinalMessage)))
	return o
}

// sanitizeChecks redacts the checks' output (already cleaned by proc.Tail).
func (r *runner) sanitizeChecks(it *Iteration) {
	for i := range it.CheckResults {
		it.CheckResults[i].Output = r.deps.Redact(it.CheckResults[i].Output)
	}
}

// redactWriter redacts each write; the loop writes its log a line at a time.
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

// protectSkip are the top-level folders never searched for protected files.
var protectSkip = []string{".git", StateDir, DefaultWorktree, NamedWorktreesDir}

// snapshotProtected records the protected files before the agent runs; nil
// when nothing is protected or the snapshot failed (then reported).
func (r *runner) snapshotProtected() *protect.Snapshot {
	if len(r.cfg.Protect) == 0 {
		return nil
	}
	s, err := protect.Take(r.ws.dir, r.cfg.Protect, protectSkip)
	if err != nil {
		r.warn("cannot record the protected files: " + err.Error())
		return nil
	}
	return s
}

// restoreProtected undoes the agent's changes to protected files, before
// the checks run. It returns the paths restored and sets the note the next
// prompt carries.
func (r *runner) restoreProtected(s *protect.Snapshot, i int) []string {
	if s == nil {
		return nil
	}
	changed, err := s.Restore()
	if err != nil {
		r.warn("could not restore every protected file: " + err.Error())
	}
	if len(changed) == 0 {
		return nil
	}
	r.logf("iteration %d/%d: the agent changed protected files, restored: %s", i, r.cfg.MaxIterations, listPaths(changed))
	r.logEvent("FAIL", "iteration %d changed protected files: %s", i, listPaths(changed))
	return changed
}

// protectNote tells the next agent why its iteration failed.
func protectNote(i int, changed []string) string {
	if len(changed) == 0 {
		return ""
	}
	return fmt.Sprintf("Iteration %d failed because it changed protected files, which architect restored: %s. "+
		"Do not edit, create or delete files matching the protected patterns (tests, check configuration): make the checks pass by changing the code.",
		i, listPaths(changed))
}

// listPaths joins paths, bounded.
func listPaths(ps []string) string {
	const show = 10
	s := strings.Join(ps[:min(len(ps), show)], ", ")
	if len(ps) > show {
		s += fmt.Sprintf(" and %d more", len(ps)-show)
	}
	return clip(s, 1000)
}
