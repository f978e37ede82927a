package loop

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/architect-dev/architect/checks"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/protect"
	"github.com/architect-dev/architect/runlog"
)

// The judge is the set of files that define the checks (checks.FindJudges):
// the script a check runs, the manifest of its npm script or make target,
// its tool's configuration. An agent that edits one can make a check pass
// without doing the work, so by default (--judge protect) the files are
// recorded when the run starts and, after every agent run, whatever the
// agent changed in them is put back and the iteration fails, its record
// and the next prompt saying which check and which file. --judge warn
// keeps the change and records it; --judge off does not look.
//
// The state guarded is the one the run started from, not the one before
// each iteration: a change that an iteration made and that was not undone
// (architect killed between the agent and the restore) is still undone
// later. It is saved in .architect/judge.json, so a resumed run guards the
// files as its first session found them, not as the interrupted session
// left them. The files the checks define are found again from the resumed
// configuration; one the saved state does not hold (a check added on
// resume) is guarded as it is at the resume.
//
// This is the mechanism of --protect (package protect), on named files
// instead of patterns; a file both protected and in the judge is put back
// by --protect first (to its state before the iteration) and reported as
// protected_restored, as it was before the judge existed.

// judgeGuard is what the run guards of the judge.
type judgeGuard struct {
	mode     string
	snap     *protect.Snapshot   // as the run started (protect), or as the last iteration left it (warn)
	checksOf map[string][]string // file → the checks it defines, as the redacted configuration names them
	files    []string            // the files guarded: inside the workspace, present or not
	// views: the parts of a file that define the checks, when only parts
	// do (package.json's scripts.test); a file named whole is not here.
	views map[string][]string
	// partsOf: for a file with views, each check's parts of it (nil: the
	// check names it whole), to tell which check a change concerns.
	partsOf map[string]map[string][]string
	// present: the files guarded that exist, for people.
	present []string
}

// take records the guarded files (start: see protect.TakeFiles), each
// compared through its parts when it has some.
func (g *judgeGuard) take(dir string, start *protect.Snapshot) (*protect.Snapshot, error) {
	s, err := protect.TakeFiles(dir, g.files, start)
	if err != nil {
		return nil, err
	}
	for f, parts := range g.views {
		if v := checks.JudgeView(f, parts); v != nil {
			s.View(f, v)
		}
	}
	return s, nil
}

// judgeMode is the run's --judge; a run saved before the option existed
// gets the default.
func judgeMode(cfg config.Config) string {
	if cfg.Judge == "" {
		return config.JudgeProtect
	}
	return cfg.Judge
}

// startJudge finds the files that define the run's checks and records
// them: as they are now for a new run, as the run's start saved them for a
// resumed one.
func (r *runner) startJudge(resumed bool) {
	g := r.findGuard()
	if g == nil {
		return
	}
	var start *protect.Snapshot
	if resumed {
		start = r.savedJudge()
	}
	snap, err := g.take(r.ws.dir, start)
	if err != nil {
		r.warn("cannot record the files that define the checks, so they are not guarded: " + err.Error())
		return
	}
	g.snap = snap
	r.judge = g
	if len(g.present) > 0 && !resumed {
		r.logf("the checks are defined by %s: guarded (--judge %s)", listPaths(g.present), g.mode)
	}
	if start != nil {
		r.judgeSinceStart()
	}
	r.saveJudge()
}

// findGuard finds the files that define the run's checks in its
// workspace, without recording them; nil when none is to be guarded.
func (r *runner) findGuard() *judgeGuard {
	mode := judgeMode(r.cfg)
	if mode == config.JudgeOff || len(r.cfg.Checks) == 0 {
		return nil
	}
	judges := checks.FindJudges(r.ws.dir, r.cfg.Checks, r.cfg.JudgeFiles)
	g := &judgeGuard{mode: mode, checksOf: map[string][]string{}, views: map[string][]string{}, partsOf: map[string]map[string][]string{}}
	whole := map[string]bool{}
	for i, j := range judges {
		name := j.Check
		if i < len(r.shown.Checks) {
			name = r.shown.Checks[i]
		}
		for _, f := range j.Files {
			if f.Outside || skipped(f.Path) {
				continue
			}
			if _, ok := g.checksOf[f.Path]; !ok {
				g.files = append(g.files, f.Path)
				if f.Exists {
					g.present = append(g.present, f.Path)
				}
			}
			if len(f.Parts) == 0 {
				whole[f.Path] = true
			}
			for _, p := range f.Parts {
				if !slices.Contains(g.views[f.Path], p) {
					g.views[f.Path] = append(g.views[f.Path], p)
				}
			}
			if !slices.Contains(g.checksOf[f.Path], name) {
				g.checksOf[f.Path] = append(g.checksOf[f.Path], name)
			}
			if g.partsOf[f.Path] == nil {
				g.partsOf[f.Path] = map[string][]string{}
			}
			switch cur, seen := g.partsOf[f.Path][name]; {
			case len(f.Parts) == 0:
				g.partsOf[f.Path][name] = nil // the whole file
			case !seen || cur != nil:
				g.partsOf[f.Path][name] = append(cur, f.Parts...)
			}
		}
	}
	if len(g.files) == 0 {
		return nil
	}
	for f := range whole {
		delete(g.views, f)
	}
	return g
}

// judgeGuardNote tells the agent, before it starts, which files define
// the checks and that a change to them is undone (--judge protect).
func judgeGuardNote(g *judgeGuard) string {
	if g == nil || g.mode != config.JudgeProtect || len(g.present) == 0 {
		return ""
	}
	shown := make([]string, len(g.present))
	for i, f := range g.present {
		shown[i] = f
		if parts := g.views[f]; len(parts) > 0 {
			shown[i] += " (" + strings.Join(parts, ", ") + ")"
		}
	}
	return "These files define the checks and are guarded: " + listPaths(shown) +
		". architect undoes any change to them and fails the iteration; make the checks pass by changing the code."
}

// judgeSinceStart deals with the judge's files that differ, as a run is
// resumed, from the state its start saved: a change made while the run
// was stopped, or one an agent made that architect was killed before
// undoing. Under protect it is undone now, before any agent runs (so no
// iteration is blamed for it); under warn it is kept and said.
func (r *runner) judgeSinceStart() {
	g := r.judge
	if g.mode == config.JudgeWarn {
		if changed := g.snap.Changed(); len(changed) > 0 {
			r.warn("the files that define the checks changed since the run started, kept (--judge warn): " + listPaths(changed))
			if s, err := g.take(r.ws.dir, nil); err == nil {
				g.snap = s
			}
		}
		return
	}
	kept := r.keepJudge(g.snap.Changed())
	changed, err := g.snap.Restore()
	if err != nil {
		r.warn("could not put back every file that defines the checks: " + err.Error())
	}
	if len(changed) > 0 {
		msg := "the files that define the checks changed since the run started, put back as they were (to change a check, start a new run, or resume with --judge warn): " + listPaths(changed)
		if kept != "" {
			msg += "; the versions found are kept in " + kept
		}
		r.warn(msg)
	}
}

// keepJudge copies the files that are about to be put back on resume to
// .architect/judge-kept/, as found: a change made while the run was
// stopped may be a person's work, which putting the file back must not
// lose. It returns the folder, "" when nothing was copied.
func (r *runner) keepJudge(files []string) string {
	dir := r.ws.state("judge-kept")
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(r.ws.dir, filepath.FromSlash(f)))
		if err != nil {
			continue // deleted (or not a file): nothing to keep
		}
		dst := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
			r.warn("cannot keep a copy of " + f + " before putting it back: " + err.Error())
			continue
		}
		if err := os.WriteFile(dst, data, 0o600); err != nil {
			r.warn("cannot keep a copy of " + f + " before putting it back: " + err.Error())
			continue
		}
		n++
	}
	if n == 0 {
		return ""
	}
	return dir
}

// skipped reports whether a path is in a folder never guarded: git's,
// architect's own, the worktrees.
func skipped(rel string) bool {
	top, _, _ := strings.Cut(rel, "/")
	return slices.Contains(protectSkip, top)
}

// savedJudge is the judge as the run's start saved it; nil (and a
// warning) when it cannot be read.
func (r *runner) savedJudge() *protect.Snapshot {
	data, err := os.ReadFile(r.ws.state(runlog.JudgeFile))
	if err == nil {
		s := new(protect.Snapshot)
		if err = json.Unmarshal(data, s); err == nil {
			return s
		}
	}
	if !errors.Is(err, fs.ErrNotExist) {
		r.warn(fmt.Sprintf("cannot read %s (%v): the files that define the checks are guarded as they are now", r.ws.state(runlog.JudgeFile), err))
	} else {
		r.warn("the run did not record the files that define the checks when it started: they are guarded as they are now")
	}
	return nil
}

func (r *runner) saveJudge() {
	if err := runlog.WriteJSON(r.ws.state(runlog.JudgeFile), r.judge.snap); err != nil {
		r.warn("cannot save the files that define the checks (a resumed run would guard them as it finds them): " + err.Error())
	}
}

// guardJudgeIn looks at the judge after agent run i, in dir: under
// protect, every change is undone; under warn, kept, and in the workspace
// (own) the state it left becomes the one the next iteration is compared
// with. In a candidate's worktree the files are compared with, and put
// back to, the run's recorded state, which a candidate never moves on
// (--judge warn moves it on once the kept candidate's change is in the
// workspace: judgeMoveOn). It returns the changes, for the record.
func (r *runner) guardJudgeIn(i int, dir string, own bool) []runlog.JudgeChange {
	g := r.judge
	if g == nil {
		return nil
	}
	if !own {
		return r.guardJudgeCandidate(i, dir)
	}
	var changed []string
	kept := g.mode == config.JudgeWarn
	// The files with views as the agent left them, to tell which check a
	// change concerns once the recorded version is known.
	left := map[string][]byte{}
	for f := range g.views {
		if data, err := os.ReadFile(filepath.Join(r.ws.dir, filepath.FromSlash(f))); err == nil {
			left[f] = data
		}
	}
	recorded := map[string][]byte{}
	for f := range g.views {
		if data, ok := g.snap.Recorded(f); ok {
			recorded[f] = data
		}
	}
	if kept {
		if changed = g.snap.Changed(); len(changed) > 0 {
			if s, err := g.take(r.ws.dir, nil); err == nil {
				g.snap = s
				r.saveJudge()
			}
		}
	} else {
		var err error
		changed, err = g.snap.Restore()
		if err != nil {
			r.warn("could not put back every file that defines the checks: " + err.Error())
		}
		if len(g.views) > 0 {
			r.saveJudge() // the versions to put back may have moved on (see protect.Snapshot.Changed)
		}
	}
	return r.judgeChanges(i, changed, left, recorded, kept)
}

// guardJudgeCandidate is guardJudgeIn for a candidate's worktree dir.
func (r *runner) guardJudgeCandidate(i int, dir string) []runlog.JudgeChange {
	g := r.judge
	kept := g.mode == config.JudgeWarn
	left := map[string][]byte{}
	recorded := map[string][]byte{}
	for f := range g.views {
		if data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f))); err == nil {
			left[f] = data
		}
		if data, ok := g.snap.Recorded(f); ok {
			recorded[f] = data
		}
	}
	s, err := g.take(dir, g.snap)
	if err != nil {
		r.warn("could not look at the files that define the checks in a candidate's worktree: " + err.Error())
		return nil
	}
	var changed []string
	if kept {
		changed = s.Changed()
	} else if changed, err = s.Restore(); err != nil {
		r.warn("could not put back every file that defines the checks: " + err.Error())
	}
	return r.judgeChanges(i, changed, left, recorded, kept)
}

// judgeMoveOn takes the judge's files again from the workspace, when
// --judge warn kept a change the kept candidate made to them.
func (r *runner) judgeMoveOn(changed []runlog.JudgeChange) {
	g := r.judge
	if g == nil || g.mode != config.JudgeWarn || len(changed) == 0 {
		return
	}
	if s, err := g.take(r.ws.dir, nil); err == nil {
		g.snap = s
		r.saveJudge()
	}
}

// judgeChanges makes the record's list of the judge's files changed, and
// says what was done about each.
func (r *runner) judgeChanges(i int, changed []string, left, recorded map[string][]byte, kept bool) []runlog.JudgeChange {
	g := r.judge
	out := make([]runlog.JudgeChange, 0, len(changed))
	for _, f := range changed {
		c := runlog.JudgeChange{File: f, Checks: g.concerned(f, left, recorded), Kept: kept}
		out = append(out, c)
		if kept {
			r.logf("iteration %d/%d: warning: %s (kept: --judge warn)", i, r.cfg.MaxIterations, c.Text())
			r.logEvent("WARN", "iteration %d: %s (kept)", i, c.Text())
		} else {
			r.logf("iteration %d/%d: %s; undone, and the iteration fails", i, r.cfg.MaxIterations, c.Text())
			r.logEvent("FAIL", "iteration %d: %s (undone)", i, c.Text())
		}
	}
	return out
}

// concerned is the checks a change to file f concerns: of a file that
// defines checks in parts (pyproject.toml's [tool.ruff] and
// [tool.pytest]), those whose parts differ between the version recorded
// and the one the agent left; all its checks when that cannot be told.
func (g *judgeGuard) concerned(f string, left, recorded map[string][]byte) []string {
	all := g.checksOf[f]
	now, ok1 := left[f]
	was, ok2 := recorded[f]
	if !ok1 || !ok2 || g.partsOf[f] == nil {
		return all
	}
	var out []string
	for _, name := range all {
		parts := g.partsOf[f][name]
		view := checks.JudgeView(f, parts)
		if view == nil || !bytes.Equal(view(now), view(was)) {
			out = append(out, name)
		}
	}
	if len(out) == 0 {
		return all
	}
	return out
}

// judgeFailed reports whether an iteration failed for changing the judge:
// a change that was undone.
func judgeFailed(cs []runlog.JudgeChange) bool {
	for _, c := range cs {
		if !c.Kept {
			return true
		}
	}
	return false
}

// judgeNote tells the next agent why iteration i failed.
func judgeNote(i int, cs []runlog.JudgeChange) string {
	if !judgeFailed(cs) {
		return ""
	}
	var parts []string
	for _, c := range cs {
		if !c.Kept {
			parts = append(parts, c.Text())
		}
	}
	return runlog.Clip(fmt.Sprintf("Iteration %d failed because %s. architect undid the change. "+
		"The checks, their scripts and their configuration define what done means: do not edit, create or delete them; make the checks pass by changing the code.",
		i, strings.Join(parts, "; ")), 2000)

}
