package loop

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/architect-dev/architect/changes"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/gitwt"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/usererr"
	"github.com/architect-dev/architect/wtsetup"
)

// The default worktree folder and branch.
const (
	DefaultWorktree   = ".architect-ralph-worktree"
	DefaultBranch     = "architect/ralph-loop"
	NamedWorktreesDir = ".architect-worktrees"
)

// WorktreeFor returns the worktree folder (relative to the repository's top
// level) and branch for a worktree name ("" for the default).
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
	initialRef string      // the run's base: HEAD when it began, or for a run in place with uncommitted changes a commit of them on HEAD ("" for a repo with no commit)
	excludes   []string    // pathspecs kept out of diffs and commits, relative to dir
	worktree   string      // absolute worktree path, when --worktree
	branch     string      // the worktree's branch

	outputs checkOutputs     // files the checks created, left out of commits
	watch   bool             // watch the tree rather than look at all of it every time (config NoWatch)
	commits bool             // iterations are committed (a worktree, or build mode)
	fresh   bool             // the worktree was created by this run and nothing has run in it yet
	changes *changes.Changes // the diff against initialRef, kept up to date
	brought wtsetup.Brought  // what worktree_setup brought into a new worktree
}

// gitChanges returns the run's changes.Changes (the repo must be set); the
// first call starts watching the tree.
func (w *workspace) gitChanges(ctx context.Context) *changes.Changes {
	if w.changes == nil {
		opts := changes.ChangesOptions{Watch: w.watch, Commits: w.commits, Clean: w.fresh}
		w.changes = changes.New(ctx, w.repo, w.initialRef, w.excludes, diffKeep, opts)
	}
	return w.changes
}

// diff returns the working tree's changes since the run began.
func (w *workspace) diff(ctx context.Context) (changes.Diff, error) {
	return w.gitChanges(ctx).Diff(ctx)
}

// untracked lists the untracked files git does not ignore, less the
// excludes: from what changed since the last diff where the tree is
// watched and committed (changes.Changes.Untracked), else from a look at
// the whole tree.
func (w *workspace) untracked(ctx context.Context) ([]string, error) {
	return w.gitChanges(ctx).Untracked(ctx)
}

// commit commits the working tree on the current branch: the tree the
// last diff staged, or nothing (no git at all) when the tree is watched
// and nothing changed since the last commit.
func (w *workspace) commit(ctx context.Context, msg string) (hash string, committed bool, err error) {
	return w.gitChanges(ctx).Commit(ctx, msg, w.outputs.leftOut())
}

// close stops watching the tree.
func (w *workspace) close() { _ = w.changes.Close() }

func (w *workspace) state(parts ...string) string {
	return filepath.Join(append([]string{w.dir, runlog.StateDir}, parts...)...)
}

// WorkspacePlan is where a new run would work, found without changing
// anything: pre-flight and --dry-run show it, and setupWorkspace creates
// it.
type WorkspacePlan struct {
	Dir        string `json:"dir"`                   // absolute: where the agent and the checks would run
	Repo       string `json:"repo,omitempty"`        // the repository's top-level folder; "" outside git
	InitialRef string `json:"initial_ref,omitempty"` // HEAD ("" for a repository with no commit)
	Branch     string `json:"branch,omitempty"`      // the checkout's branch ("" when detached or outside git)
	// Worktree and WorktreeBranch are the worktree and branch a --worktree
	// run would create; "" otherwise.
	Worktree       string `json:"worktree,omitempty"`
	WorktreeBranch string `json:"worktree_branch,omitempty"`
	// Uncommitted lists, for a --worktree or build-mode run, the
	// checkout's changes that are not in HEAD: modified, staged and
	// untracked files (relative to Repo), less architect's own folders and
	// what git ignores.
	Uncommitted []string `json:"uncommitted,omitempty"`
	// Environment lists the ignored environment entries (node_modules,
	// .venv, venv, vendor, .env files; relative to Dir) that the clean last
	// look would bring in as they are at the start (final_check clean; a
	// new worktree has none).
	Environment []string `json:"environment,omitempty"`
}

// PlanWorkspace finds where a new run of cfg would work and refuses, as a
// *usererr.Error, what would stop it: a missing folder, --worktree outside git
// or without a commit, a worktree or branch already there.
func PlanWorkspace(ctx context.Context, cfg config.Config) (WorkspacePlan, error) {
	p, _, err := planWorkspace(ctx, cfg, true)
	return p, err
}

// planWorkspace is PlanWorkspace; Uncommitted is listed only with
// uncommitted (a walk of the whole tree, `git status`: 1.2 s on 100,000
// files), which the pre-flight shows and the run itself does not need.
func planWorkspace(ctx context.Context, cfg config.Config, uncommitted bool) (WorkspacePlan, *gitwt.Repo, error) {
	var p WorkspacePlan
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return p, nil, err
	}
	p.Dir = dir
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return p, nil, &usererr.Error{Msg: fmt.Sprintf("workspace %s is not a directory", dir), Hint: "pass an existing directory with -C DIR"}
	}
	repo, err := gitwt.Open(ctx, dir)
	if errors.Is(err, gitwt.ErrNotRepo) {
		return p, nil, outsideGit(cfg, dir)
	}
	if err != nil {
		return p, nil, err
	}
	if err := planInRepo(ctx, repo, cfg, uncommitted, &p); err != nil {
		return p, nil, err
	}
	return p, repo, nil
}

// planInRepo completes p for a workspace in repo: where the run starts
// from, what it would leave out or take in, and the worktree it would
// create; it refuses what would stop the run.
func planInRepo(ctx context.Context, repo *gitwt.Repo, cfg config.Config, uncommitted bool, p *WorkspacePlan) error {
	var err error
	p.Repo = repo.Dir()
	if p.InitialRef, err = repo.Head(ctx); err != nil {
		return err
	}
	if p.Branch, err = repo.CurrentBranch(ctx); err != nil {
		return err
	}
	if cfg.Mode == config.ModeBuild && !cfg.Worktree {
		if err := refuseInProgress(repo); err != nil {
			return err
		}
	}
	if uncommitted && (cfg.Worktree || cfg.Mode == config.ModeBuild) {
		if p.Uncommitted, err = uncommittedLeft(ctx, repo, cfg, p.Dir); err != nil {
			return err
		}
	}
	if cfg.Worktree {
		return planWorktree(ctx, repo, cfg, p)
	}
	if uncommitted && cfg.FinalCheck == config.FinalCheckClean && len(cfg.Checks) > 0 {
		if p.Environment, err = ignoredEnv(ctx, repo, p.Dir); err != nil {
			return err
		}
	}
	return nil
}

// outsideGit refuses what a workspace outside git cannot do: --worktree,
// and build mode, which promises a commit per iteration (plan mode, and a
// run without --mode, commit nothing outside a worktree).
func outsideGit(cfg config.Config, dir string) error {
	if cfg.Worktree {
		return &usererr.Error{Msg: dir + " is not in a git repository, so --worktree cannot be used", Hint: "run `git init` and make a first commit, or drop --worktree"}
	}
	if n := cfg.CandidateCount(); n > 1 {
		return &usererr.Error{Msg: fmt.Sprintf("--candidates %d needs a git repository: each candidate works in a worktree of its own, and %s is not in one", n, dir), Hint: "run `git init` there and make a first commit, or drop --candidates"}
	}
	if cfg.Mode == config.ModeBuild {
		return &usererr.Error{Msg: "--mode build commits every iteration, and " + dir + " is not in a git repository", Hint: "run `git init` there (and commit what is there), or use --mode plan, which commits nothing"}
	}
	return nil
}

// uncommittedLeft lists the checkout's changes that a worktree would
// leave out, or the first commit of a build-mode run take in, less the
// files earlier checks created (which a build-mode run does not commit).
func uncommittedLeft(ctx context.Context, repo *gitwt.Repo, cfg config.Config, dir string) ([]string, error) {
	files, err := repo.Uncommitted(ctx, []string{runlog.StateDir, DefaultWorktree, NamedWorktreesDir, filepath.Join(relDir(repo.Dir(), dir), runlog.StateDir)})
	if err != nil {
		return nil, err
	}
	if cfg.Mode == config.ModeBuild && !cfg.Worktree && !cfg.CommitCheckOutputs {
		var co checkOutputs
		co.load(filepath.Join(dir, runlog.StateDir, CheckOutputsFile))
		files = slices.DeleteFunc(files, func(f string) bool { _, ok := co.paths[f]; return ok })
	}
	return files, nil
}

// planWorktree puts the worktree and branch a --worktree run would create
// on p, and refuses when it cannot: no commit to start from, or a
// worktree or branch of that name already there.
func planWorktree(ctx context.Context, repo *gitwt.Repo, cfg config.Config, p *WorkspacePlan) error {
	if p.InitialRef == "" {
		return &usererr.Error{Msg: "--worktree needs a commit to start from, and this repository has none", Hint: "make a first commit (git add -A && git commit -m initial), or drop --worktree"}
	}
	wtDir, branch := WorktreeFor(cfg.WorktreeName)
	p.Worktree, p.WorktreeBranch = filepath.Join(p.Repo, wtDir), branch
	_, statErr := os.Lstat(p.Worktree)
	taken, err := repo.BranchExists(ctx, branch)
	if err != nil {
		return err
	}
	if statErr == nil || taken {
		clean := "architect clean"
		if cfg.WorktreeName != "" {
			clean += " " + cfg.WorktreeName
		}
		return &usererr.Error{
			Msg:  fmt.Sprintf("worktree %s or branch %s already exists (from an earlier run?); architect never replaces them", wtDir, branch),
			Hint: fmt.Sprintf("bring it in with `architect merge` (or inspect it: git diff ...%s), remove it with `%s`, or use another --worktree-name", branch, clean),
		}
	}
	// What worktree_setup brings in must be there (or be optional) and
	// inside the repository: refused before anything is created.
	return wtsetup.Check(p.Repo, cfg.WorktreeSetup, func(paths ...string) ([]string, error) { return repo.UntrackedUnder(ctx, paths...) })
}

// refuseInProgress refuses a build-mode run in a checkout where a merge,
// rebase, cherry-pick, revert, git am or bisect waits: each iteration's commit
// would land in the middle of it (a merge committed with one parent, a
// rebase's or a bisect's detached HEAD moved).
func refuseInProgress(repo *gitwt.Repo) error {
	op, ok := repo.InProgress()
	if !ok {
		return nil
	}
	return &usererr.Error{
		Msg:  fmt.Sprintf("--mode build commits every iteration, and a %s is in progress in %s", op.Name, repo.Dir()),
		Hint: fmt.Sprintf("finish it (%s) or give it up (%s) first, or run with --worktree, which works in a checkout of its own", op.Continue, op.Abort),
	}
}

// relDir is dir relative to the repository's top, "." when outside it.
func relDir(top, dir string) string {
	rel, err := filepath.Rel(top, dir)
	if err != nil || strings.HasPrefix(rel, "..") {
		return "."
	}
	return rel
}

// UncommittedCommitMessage is the message of a worktree's first commit
// when --include-uncommitted copies the main checkout's changes into it.
const UncommittedCommitMessage = "architect: uncommitted changes from the main checkout"

// BaseCommitMessage is the message of the commit that holds, for a run in
// place, the checkout as the run found it when it had uncommitted changes:
// the base the run's changes are measured from. It is on no branch.
const BaseCommitMessage = "architect: the checkout as the run found it"

// setupWorkspace finds the repository, records the initial ref, creates the
// worktree when asked, and keeps architect's own folders out of git.
// Everything that can refuse is checked (planWorkspace) before anything is
// written, so a refusal leaves nothing behind.
func setupWorkspace(ctx context.Context, cfg config.Config, warn func(string)) (*workspace, error) {
	p, repo, err := planWorkspace(ctx, cfg, false)
	if err != nil {
		return nil, err
	}
	w := &workspace{dir: p.Dir, initialRef: p.InitialRef, commits: cfg.Worktree || cfg.Mode == config.ModeBuild}
	if repo == nil {
		warn("not a git repository: the prompt will not show the changes made so far (run `git init` to get them)")
		return w, nil
	}
	rel := relDir(p.Repo, p.Dir)
	excludeTop := []string{"/" + DefaultWorktree + "/", "/" + NamedWorktreesDir + "/"}
	if err := repo.Exclude(ctx, append(excludeTop, "/"+filepath.ToSlash(filepath.Join(rel, runlog.StateDir))+"/")...); err != nil {
		return nil, fmt.Errorf("keeping architect's folders out of git status: %w", err)
	}
	w.repo = repo
	w.excludes = []string{runlog.StateDir}
	if rel == "." {
		w.excludes = append(w.excludes, DefaultWorktree, NamedWorktreesDir)
	}
	if !cfg.Worktree {
		if !w.commits {
			// What the checkout held when the run began, committed or not
			// (a PROMPT.md and ralph.yaml just written by architect init,
			// the user's own edits), is the run's base: the changes the
			// prompt, the records and the report show are the agent's
			// alone. The base is a commit of its own, made from a copy of
			// the index: the user's index and branch are left alone. In a
			// repository with no commit yet it is a commit with no parent.
			excludes := []string{runlog.StateDir, DefaultWorktree, NamedWorktreesDir, filepath.Join(rel, runlog.StateDir)}
			snapshot := repo.SnapshotCommit
			if p.InitialRef == "" {
				snapshot = repo.Snapshot
			}
			base, err := snapshot(ctx, BaseCommitMessage, excludes)
			if err != nil {
				return nil, fmt.Errorf("noting the checkout as the run found it: %w", err)
			}
			w.initialRef = base
		}
		return w, nil
	}
	base := p.InitialRef
	if cfg.IncludeUncommitted {
		// The worktree starts from a commit of the checkout as it is (HEAD
		// when nothing is uncommitted); the agent's diff is then its own
		// work only.
		if base, err = repo.SnapshotCommit(ctx, UncommittedCommitMessage, []string{runlog.StateDir, DefaultWorktree, NamedWorktreesDir, filepath.Join(rel, runlog.StateDir)}); err != nil {
			return nil, fmt.Errorf("copying the uncommitted changes: %w", err)
		}
		w.initialRef = base
	}
	if err := repo.AddWorktree(ctx, p.Worktree, p.WorktreeBranch, base); err != nil {
		if errors.Is(err, gitwt.ErrWorktreeExists) || errors.Is(err, gitwt.ErrBranchExists) {
			// Created between the plan and now.
			return nil, &usererr.Error{Msg: err.Error() + "; architect never replaces it", Hint: "remove it with `architect clean`, or use another --worktree-name", Err: err}
		}
		return nil, err
	}
	wtRepo, err := gitwt.Open(ctx, p.Worktree)
	if err != nil {
		return nil, err
	}
	w.repo, w.worktree, w.branch, w.fresh = wtRepo, p.Worktree, p.WorktreeBranch, true
	// The files git ignores that the worktree needs (.env, node_modules),
	// from the main checkout, before anything runs in it.
	if w.brought, err = wtsetup.Bring(p.Repo, p.Worktree, cfg.WorktreeSetup); err != nil {
		return nil, fmt.Errorf("bringing worktree_setup's files into the new worktree %s: %w", p.Worktree, err)
	}
	// A link is a file to git: an ignore pattern for a folder
	// (node_modules/) does not cover it, and the agent's commits would
	// take it in. It is kept out by name.
	var links []string
	for _, l := range w.brought.Linked {
		links = append(links, "/"+l)
	}
	if err := repo.Exclude(ctx, links...); err != nil {
		return nil, fmt.Errorf("keeping the linked files out of git status: %w", err)
	}
	w.dir = filepath.Join(p.Worktree, rel)
	if err := os.MkdirAll(w.dir, 0o755); err != nil {
		return nil, err
	}
	w.excludes = []string{runlog.StateDir}
	return w, nil
}

// reopenWorkspace finds the workspace of a saved run again, for Resume.
func reopenWorkspace(ctx context.Context, st *runlog.State, mode string) (*workspace, error) {
	w := &workspace{dir: st.Workspace, initialRef: st.InitialRef, worktree: st.WorktreePath, branch: st.Branch,
		commits: st.WorktreePath != "" || mode == config.ModeBuild}
	if fi, err := os.Stat(w.dir); err != nil || !fi.IsDir() {
		return nil, &usererr.Error{Msg: "the run's workspace " + w.dir + " is gone", Hint: "start a new run with `architect loop`"}
	}
	repo, err := gitwt.Open(ctx, w.dir)
	if errors.Is(err, gitwt.ErrNotRepo) {
		return w, nil
	}
	if err != nil {
		return nil, err
	}
	if w.commits && w.worktree == "" {
		if err := refuseInProgress(repo); err != nil {
			return nil, err
		}
	}
	w.repo = repo
	w.excludes = []string{runlog.StateDir}
	if w.worktree == "" && filepath.Clean(repo.Dir()) == filepath.Clean(w.dir) {
		w.excludes = append(w.excludes, DefaultWorktree, NamedWorktreesDir)
	}
	return w, nil
}
