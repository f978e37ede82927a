package gitwt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A candidate is one of a round's agents' worktrees (--candidates N): a
// linked worktree detached at the loop's current commit, made once per run
// and brought to each round's commit again by touching only what changed.

// AddCandidate makes a detached worktree at path (absolute; its parent
// exists or is created) checked out at commit, registered with git (`git
// worktree add --detach`), with no branch. If path is already a worktree
// of this repository, it is reused: brought to commit like ResetCandidate
// (with nothing kept but what git ignores). A path registered with git
// whose folder is gone is made again. A path that exists and is not one of
// this repository's worktrees is refused (ErrWorktreeExists), changing
// nothing. Hooks do not run: an agent may have written one.
func (r *Repo) AddCandidate(ctx context.Context, path, commit string) error {
	if !filepath.IsAbs(path) {
		return fmt.Errorf("candidate worktree %q: the path must be absolute", path)
	}
	path = filepath.Clean(path)
	if _, err := os.Lstat(path); err == nil {
		if r.isOwnWorktree(path) {
			return r.ResetCandidate(ctx, path, commit, nil)
		}
		// git itself accepts an empty folder; anything else is the user's.
		if entries, err := os.ReadDir(path); err != nil || len(entries) > 0 {
			return fmt.Errorf("%w: %s is not a worktree of this repository", ErrWorktreeExists, path)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	args := []string{"-c", "core.hooksPath=" + os.DevNull, "worktree", "add", "--quiet", "--detach"}
	if r.adminOf(ctx, path) != "" {
		// Registered, its folder gone (a SIGKILL, a user's rm -r): --force
		// is git's own way to make that entry again.
		args = append(args, "--force")
	}
	addingWorktree.Lock() // one add at a time: see addingWorktree
	defer addingWorktree.Unlock()
	return run(ctx, r.dir, Command{}, append(args, "--", path, commit)...)
}

// isOwnWorktree reports whether path is the top of a linked worktree of
// this repository: its .git file names an entry under the common git
// folder's worktrees/, and that entry names path back.
func (r *Repo) isOwnWorktree(path string) bool {
	data, err := os.ReadFile(filepath.Join(path, ".git"))
	if err != nil {
		return false
	}
	admin, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: ")
	if !ok {
		return false
	}
	if !filepath.IsAbs(admin) {
		admin = filepath.Join(path, admin)
	}
	within := ResolvePath(filepath.Join(r.commonDir, "worktrees")) + string(filepath.Separator)
	if !strings.HasPrefix(ResolvePath(admin), within) {
		return false
	}
	back, err := os.ReadFile(filepath.Join(admin, "gitdir"))
	if err != nil {
		return false
	}
	return samePath(filepath.Dir(strings.TrimSpace(string(back))), path)
}

// ResetCandidate brings the worktree at path to commit: tracked files made
// equal to commit's, touching only files that differ; untracked files git
// does not ignore removed, except paths matching keep (paths relative to
// the worktree, e.g. ".architect", taken literally, a folder with all it
// holds); ignored files
// (build caches, node_modules) left alone. HEAD is detached at commit; no
// branch moves, even one checked out there by hand.
//
// `git checkout --force --detach` compares the worktree's index with
// commit's tree and rewrites only the entries that differ or whose file
// changed on disk (one lstat per tracked file, no read of an unchanged
// one), and overwrites untracked files in the way, as `git reset --hard`
// would. `git clean -d` then removes what git does not track or ignore;
// without -x it leaves ignored files, without -ff it leaves nested
// repositories. Hooks do not run.
func (r *Repo) ResetCandidate(ctx context.Context, path, commit string, keep []string) error {
	if !filepath.IsAbs(path) {
		return fmt.Errorf("candidate worktree %q: the path must be absolute", path)
	}
	if !r.isOwnWorktree(filepath.Clean(path)) {
		return fmt.Errorf("candidate worktree %s: not a worktree of this repository", path)
	}
	if err := run(ctx, path, Command{}, "-c", "core.hooksPath="+os.DevNull, "-c", "advice.detachedHead=false",
		"checkout", "--quiet", "--force", "--detach", commit, "--"); err != nil {
		return err
	}
	// keep goes to git clean as ignore patterns (-e), not as exclusion
	// pathspecs: git clean -d removes an untracked folder whole when the
	// folder matches the pathspecs, although an exclusion names a file in
	// it; a file an -e pattern matches is ignored, and its folder stays.
	args := []string{"clean", "-d", "--force", "--quiet"}
	for _, k := range keep {
		args = append(args, "-e", keepPattern(k))
	}
	return run(ctx, path, Command{}, args...)
}

// keepPattern turns a path relative to the top of the worktree into an
// ignore pattern that matches it alone, literally (a folder with
// everything in it): anchored with "/", each wildcard, backslash and space
// escaped.
func keepPattern(path string) string {
	var b strings.Builder
	b.WriteByte('/')
	for _, c := range []byte(strings.Trim(path, "/")) {
		switch c {
		case '\\', '*', '?', '[', ']', ' ', '!', '#':
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// RemoveCandidate removes the worktree at path and its registration (`git
// worktree remove --force`: what was in it goes); a path already gone, or
// registered with its folder gone, is not an error. Where git cannot
// remove it, the folder is deleted and its entry in the git folder removed
// by hand, so that no other worktree's entry is touched (no `git worktree
// prune`, which would forget every missing worktree, not just this one).
func (r *Repo) RemoveCandidate(ctx context.Context, path string) error {
	if !filepath.IsAbs(path) {
		return fmt.Errorf("candidate worktree %q: the path must be absolute", path)
	}
	path = filepath.Clean(path)
	admin := r.adminOf(ctx, path)
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		if admin != "" {
			return os.RemoveAll(admin)
		}
		return nil
	}
	// Registered (admin) although its .git file may be missing: a `git
	// worktree add` killed half way.
	if admin == "" && !r.isOwnWorktree(path) {
		return fmt.Errorf("candidate worktree %s: not a worktree of this repository; left as it is", path)
	}
	err := run(ctx, r.dir, Command{}, "worktree", "remove", "--force", "--", path)
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return err
	}
	if rerr := os.RemoveAll(path); rerr != nil {
		return errors.Join(err, rerr)
	}
	if admin != "" {
		return os.RemoveAll(admin)
	}
	return nil
}

// adminOf returns the entry in the common git folder (worktrees/NAME) whose
// gitdir file names path/.git, or "" when there is none.
func (r *Repo) adminOf(ctx context.Context, path string) string {
	if err := ctx.Err(); err != nil {
		return ""
	}
	base := filepath.Join(r.commonDir, "worktrees")
	entries, err := os.ReadDir(base)
	if err != nil {
		return ""
	}
	for _, e := range entries {
		back, err := os.ReadFile(filepath.Join(base, e.Name(), "gitdir"))
		if err == nil && samePath(filepath.Dir(strings.TrimSpace(string(back))), path) {
			return filepath.Join(base, e.Name())
		}
	}
	return ""
}

// CommitTree makes a commit object of tree with parent (none when ""),
// message msg, without moving any ref (`git commit-tree`), using a fixed
// identity (FallbackName, FallbackEmail) where the user has none
// configured. It returns the commit's hash.
func (r *Repo) CommitTree(ctx context.Context, tree, parent, msg string) (string, error) {
	return r.commitTree(ctx, tree, parent, msg)
}
