package loop

import (
	"fmt"
	"path/filepath"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/protect"
	"github.com/architect-dev/architect/runlog"
)

// Protected files (--protect: tests, check configuration) are recorded
// before the agent runs and restored after it, before the checks: an
// iteration that changed one fails, and the next prompt says why.

// protectSkip are the top-level folders never searched for protected files.
var protectSkip = []string{".git", runlog.StateDir, DefaultWorktree, NamedWorktreesDir}

// snapshotProtected records the protected files in dir (where the agent
// works) before the agent runs; nil when nothing is protected or the
// snapshot failed (then reported).
func (r *runner) snapshotProtected(dir string) *protect.Snapshot {
	if len(r.cfg.Protect) == 0 {
		return nil
	}
	s, err := protect.Take(dir, r.cfg.Protect, protectSkip)
	if err != nil {
		r.warn("cannot record the protected files: " + err.Error())
		return nil
	}
	return s
}

// readOnlyFiles are the files the sandbox makes read-only to the agent
// working in dir, where it can (sandbox.Sandbox.AgentStart): under
// --judge protect the files that define the checks, the ones guarded
// whole (a manifest guarded by one part stays writable: the agent may
// change the rest), then the protected files as snap recorded them. The
// snapshot-and-restore guards them all the same.
func (r *runner) readOnlyFiles(dir string, snap *protect.Snapshot) []string {
	var out []string
	if g := r.judge; g != nil && g.mode == config.JudgeProtect {
		for _, f := range g.present {
			if len(g.views[f]) == 0 {
				out = append(out, filepath.Join(dir, filepath.FromSlash(f)))
			}
		}
	}
	return append(out, snap.Files()...)
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
func listPaths(ps []string) string { return runlog.ListPaths(ps) }
