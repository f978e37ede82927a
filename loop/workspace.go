package loop

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/gitwt"
	"github.com/architect-dev/architect/prompt"
)

// Names from the seed: the default worktree folder and branch.
const (
	StateDir          = ".architect"
	DefaultWorktree   = ".architect-ralph-worktree"
	DefaultBranch     = "architect/ralph-loop"
	NamedWorktreesDir = ".architect-worktrees"
	ProgressFile      = "ralph-progress.md"
)

// UsageError is a problem with what the user asked for (exit status 2).
type UsageError struct{ Msg, Hint string }

func (e *UsageError) Error() string { return e.Msg }

// WorktreeFor returns the worktree folder (relative to the repository's top
// level) and branch for a worktree name ("" for the seed's default).
func WorktreeFor(name string) (dir, branch string) {
	if name == "" {
		return DefaultWorktree, DefaultBranch
	}
	return filepath.Join(NamedWorktreesDir, name), "architect/" + name
}

// workspace is where a run happens.
type workspace struct {
	dir        string      // absolute: where the agent and the checks run
	repo       *gitwt.Repo // nil outside a git repository
	initialRef string      // HEAD when the run began ("" for a repo with no commit)
	excludes   []string    // pathspecs kept out of diffs and commits, relative to dir
	worktree   string      // absolute worktree path, when --worktree
	branch     string      // the worktree's branch

	watch        bool           // watch the tree rather than snapshot it every time (config NoWatch)
	changes      *gitwt.Changes // the diff against initialRef, reused while the tree is unchanged
	committed    bool           // an iteration was committed in this session, at committedGen
	committedGen uint64
}

// diff returns the working tree's changes since the run began (the repo
// must be set). The first call starts watching the tree.
func (w *workspace) diff(ctx context.Context) (gitwt.Diff, error) {
	if w.changes == nil {
		w.changes = w.repo.Changes(ctx, w.initialRef, w.excludes, prompt.DiffLimit, w.watch)
	}
	return w.changes.Diff(ctx)
}

// commit commits the working tree on the current branch (CommitAll),
// unless the tree is watched and nothing changed since the last commit.
func (w *workspace) commit(ctx context.Context, msg string) (hash string, committed bool, err error) {
	if w.changes != nil && w.committed {
		if gen, ok := w.changes.Gen(ctx); ok && gen == w.committedGen {
			return "", false, nil
		}
	}
	hash, committed, err = w.repo.CommitAll(ctx, msg, w.excludes)
	if err == nil && w.changes != nil {
		// After the commit: what it wrote (the index) is not a change.
		w.committedGen, w.committed = w.changes.Gen(ctx)
	}
	return hash, committed, err
}

// close stops watching the tree.
func (w *workspace) close() { _ = w.changes.Close() }

func (w *workspace) state(parts ...string) string {
	return filepath.Join(append([]string{w.dir, StateDir}, parts...)...)
}

// setupWorkspace finds the repository, records the initial ref, creates the
// worktree when asked, and keeps architect's own folders out of git.
func setupWorkspace(ctx context.Context, cfg config.Config, warn func(string)) (*workspace, error) {
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, &UsageError{Msg: fmt.Sprintf("workspace %s is not a directory", dir), Hint: "pass an existing directory with -C DIR"}
	}
	w := &workspace{dir: dir}
	repo, err := gitwt.Open(ctx, dir)
	if errors.Is(err, gitwt.ErrNotRepo) {
		if cfg.Worktree {
			return nil, &UsageError{Msg: dir + " is not in a git repository, so --worktree cannot be used", Hint: "run `git init` and make a first commit, or drop --worktree"}
		}
		warn("not a git repository: the prompt will not show the changes made so far (run `git init` to get them)")
		return w, nil
	}
	if err != nil {
		return nil, err
	}
	top := repo.Dir()
	rel, err := filepath.Rel(top, dir)
	if err != nil || strings.HasPrefix(rel, "..") {
		rel = "."
	}
	if w.initialRef, err = repo.Head(ctx); err != nil {
		return nil, err
	}
	wtDir, branch := WorktreeFor(cfg.WorktreeName)
	excludeTop := []string{"/" + DefaultWorktree + "/", "/" + NamedWorktreesDir + "/"}
	if err := repo.Exclude(ctx, append(excludeTop, "/"+filepath.ToSlash(filepath.Join(rel, StateDir))+"/")...); err != nil {
		return nil, fmt.Errorf("keeping architect's folders out of git status: %w", err)
	}
	w.repo = repo
	w.excludes = []string{StateDir}
	if rel == "." {
		w.excludes = append(w.excludes, DefaultWorktree, NamedWorktreesDir)
	}
	if !cfg.Worktree {
		return w, nil
	}
	if w.initialRef == "" {
		return nil, &UsageError{Msg: "--worktree needs a commit to start from, and this repository has none", Hint: "make a first commit (git add -A && git commit -m initial), or drop --worktree"}
	}
	path := filepath.Join(top, wtDir)
	if err := repo.AddWorktree(ctx, path, branch, w.initialRef); err != nil {
		switch {
		case errors.Is(err, gitwt.ErrWorktreeExists), errors.Is(err, gitwt.ErrBranchExists):
			clean := "architect clean"
			if cfg.WorktreeName != "" {
				clean += " " + cfg.WorktreeName
			}
			return nil, &UsageError{
				Msg:  fmt.Sprintf("worktree %s or branch %s already exists (from an earlier run?); architect never replaces them", wtDir, branch),
				Hint: fmt.Sprintf("merge or inspect it (git merge %s), then remove it with `%s`, or use another --worktree-name", branch, clean),
			}
		}
		return nil, err
	}
	wtRepo, err := gitwt.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	w.repo, w.worktree, w.branch = wtRepo, path, branch
	w.dir = filepath.Join(path, rel)
	if err := os.MkdirAll(w.dir, 0o755); err != nil {
		return nil, err
	}
	w.excludes = []string{StateDir}
	return w, nil
}

// archived is what prepareStateDir moved away from a previous run.
type archived struct {
	dir   string   // .architect/runs/<time>
	names []string // the files and folders moved there
}

// prepareStateDir creates .architect/ for a new run. A previous run's
// files (progress, prompts, records, state, result, and the DONE and WAIT
// signals when they are architect's own) are moved to
// .architect/runs/<time>/, so the agent starts without that history and
// nothing of it is lost; what was moved is returned, to tell the user.
func (w *workspace) prepareStateDir(now time.Time, ownDone bool) (archived, error) {
	var a archived
	if err := os.MkdirAll(w.state("prompts"), 0o700); err != nil {
		return a, err
	}
	_ = os.Chmod(w.state(), 0o700)
	names := []string{ProgressFile, "prompts", resultFileName, RecordsFile, StateFile, IterationsLog, EventsFile, WaitFile,
		AgentResultFile, InflightFile, "report.html"}
	if ownDone {
		names = append(names, DoneFile)
	}
	var newest time.Time
	found := false
	for _, name := range names {
		if fi, err := os.Stat(w.state(name)); err == nil && (name != "prompts" || !emptyDir(w.state(name))) {
			found = true
			if fi.ModTime().After(newest) {
				newest = fi.ModTime()
			}
		}
	}
	if !found {
		return a, nil // no previous run
	}
	fi, err := os.Stat(w.state())
	if err != nil {
		return a, err
	}
	if newest.IsZero() {
		newest = fi.ModTime()
	}
	base := w.state("runs", newest.UTC().Format("20060102T150405.000Z"))
	dir := base
	for n := 2; ; n++ {
		err := os.Mkdir(dir, 0o700)
		if err == nil {
			break
		}
		if os.IsNotExist(err) {
			if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
				return a, err
			}
			continue
		}
		if !os.IsExist(err) {
			return a, err
		}
		dir = fmt.Sprintf("%s-%d", base, n)
	}
	a.dir = dir
	for _, name := range names {
		if _, err := os.Stat(w.state(name)); err == nil {
			if err := os.Rename(w.state(name), filepath.Join(dir, name)); err != nil {
				return a, err
			}
			a.names = append(a.names, name)
		}
	}
	return a, os.MkdirAll(w.state("prompts"), 0o700)
}

func emptyDir(path string) bool {
	ents, err := os.ReadDir(path)
	return err == nil && len(ents) == 0
}

// reopenWorkspace finds the workspace of a saved run again, for Resume.
func reopenWorkspace(ctx context.Context, st *State) (*workspace, error) {
	w := &workspace{dir: st.Workspace, initialRef: st.InitialRef, worktree: st.WorktreePath, branch: st.Branch}
	if fi, err := os.Stat(w.dir); err != nil || !fi.IsDir() {
		return nil, &UsageError{Msg: "the run's workspace " + w.dir + " is gone", Hint: "start a new run with `architect loop`"}
	}
	repo, err := gitwt.Open(ctx, w.dir)
	if errors.Is(err, gitwt.ErrNotRepo) {
		return w, nil
	}
	if err != nil {
		return nil, err
	}
	w.repo = repo
	w.excludes = []string{StateDir}
	if w.worktree == "" && filepath.Clean(repo.Dir()) == filepath.Clean(w.dir) {
		w.excludes = append(w.excludes, DefaultWorktree, NamedWorktreesDir)
	}
	return w, nil
}
