package gitwt

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// CleanTree is a fresh linked worktree of the working tree as it was when
// it was made: architect's last look before it declares a success runs the
// checks there, away from everything git ignores or does not see that the
// agent left behind. It is detached at a commit that no branch or ref
// holds, in a private temporary folder; Remove takes it away again, with
// its entry in git's worktree list.
type CleanTree struct {
	Dir    string // the worktree's top-level folder
	Commit string // the commit it is detached at
	parent string // the temporary folder that holds Dir
	admin  string // its entry in the git folder (.git/worktrees/NAME)
	repo   *Repo
}

// CheckoutClean checks out the working tree as it is (the tracked files
// and the untracked files git does not ignore, less the pathspecs of
// excludes, relative to the top-level folder) into a new linked worktree in
// a temporary folder. The tree is built in a temporary index, from a copy
// of the working tree's own (so only the files changed since it are read
// again), and committed with `git commit-tree` (its parent is HEAD, if
// any): the user's branch, index and files are untouched. Hooks do not
// run: an agent may have written one.
func (r *Repo) CheckoutClean(ctx context.Context, excludes []string) (*CleanTree, error) {
	commit, err := r.Snapshot(ctx, "architect: the final tree, checked out clean", excludes)
	if err != nil {
		return nil, err
	}
	parent, err := os.MkdirTemp("", "architect-clean-")
	if err != nil {
		return nil, err
	}
	// The repository's own name: tools that name a project after its
	// folder see the same name.
	t := &CleanTree{Dir: filepath.Join(parent, filepath.Base(r.dir)), Commit: commit, parent: parent, repo: r}
	addingWorktree.Lock()
	err = run(ctx, r.dir, Command{}, "-c", "core.hooksPath="+os.DevNull, "worktree", "add", "--quiet", "--detach", "--", t.Dir, commit)
	addingWorktree.Unlock()
	t.admin = t.adminDir()
	if err != nil {
		_ = t.Remove(context.WithoutCancel(ctx))
		return nil, err
	}
	return t, nil
}

// Remove deletes the clean worktree and forgets it (`git worktree remove
// --force`: what the checks wrote there goes with it). Where git cannot,
// the folder is deleted and its entry in the git folder is removed by
// hand, so that no other worktree's entry is touched (no `git worktree
// prune`).
func (t *CleanTree) Remove(ctx context.Context) error {
	admin := t.admin
	err := run(ctx, t.repo.dir, Command{}, "worktree", "remove", "--force", "--", t.Dir)
	if err != nil && admin != "" {
		_ = os.RemoveAll(admin)
	}
	if rerr := os.RemoveAll(t.parent); rerr != nil && err == nil {
		err = rerr
	}
	if _, serr := os.Lstat(t.Dir); serr == nil || admin != "" && pathExists(admin) {
		return errors.Join(err, errors.New("the clean worktree "+t.Dir+" could not be removed"))
	}
	return nil
}

// adminDir is the worktree's entry in the git folder
// (.git/worktrees/NAME), read from its .git file; "" when it cannot be
// read or lies anywhere else.
func (t *CleanTree) adminDir() string {
	data, err := os.ReadFile(filepath.Join(t.Dir, ".git"))
	if err != nil {
		return ""
	}
	dir, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: ")
	if !ok {
		return ""
	}
	within := filepath.Join(t.repo.commonDir, "worktrees") + string(filepath.Separator)
	if !strings.HasPrefix(filepath.Clean(dir), within) {
		return ""
	}
	return filepath.Clean(dir)
}

func pathExists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
