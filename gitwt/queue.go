package gitwt

import (
	"context"
	"strings"
)

// What the merge queue (package merge) needs beyond the rest: commits with
// several parents, ancestry, and a branch moved only from the value it was
// seen at.

// Identity returns the -c options that supply a fallback for user.name
// and user.email where git has none configured (FallbackName,
// FallbackEmail), for the git commands that commit (rebase, merge).
func (r *Repo) Identity(ctx context.Context) ([]string, error) {
	return r.identity(ctx)
}

// CommitTreeParents makes a commit object of tree with the parents given
// (a merge commit with two), message msg, without moving any ref, and
// returns its hash.
func (r *Repo) CommitTreeParents(ctx context.Context, tree string, parents []string, msg string) (string, error) {
	args, err := r.identity(ctx)
	if err != nil {
		return "", err
	}
	args = append(args, "commit-tree", tree, "-m", msg)
	for _, p := range parents {
		args = append(args, "-p", p)
	}
	var hash strings.Builder
	if err := run(ctx, r.dir, Command{Stdout: &hash}, args...); err != nil {
		return "", err
	}
	return strings.TrimSpace(hash.String()), nil
}

// IsAncestor reports whether commit a is an ancestor of commit b (or b
// itself).
func (r *Repo) IsAncestor(ctx context.Context, a, b string) (bool, error) {
	err := run(ctx, r.dir, Command{}, "merge-base", "--is-ancestor", a, b)
	if err == nil {
		return true, nil
	}
	if ExitCode(err) == 1 {
		return false, nil
	}
	return false, err
}

// MergeBase returns the best common ancestor of commits a and b.
func (r *Repo) MergeBase(ctx context.Context, a, b string) (string, error) {
	return output(ctx, r.dir, "merge-base", a, b)
}

// UpdateBranch points the branch name at commit, only if it points at old
// now ("" for old: only if the branch does not exist yet): `git
// update-ref` with the old value, so that a branch someone else moved in
// between is not overwritten (the update fails instead). No working tree
// or index is touched; reason goes to the branch's reflog.
func (r *Repo) UpdateBranch(ctx context.Context, name, commit, old, reason string) error {
	// An empty old value is git's own "must not exist yet".
	return run(ctx, r.dir, Command{}, "update-ref", "-m", reason, "refs/heads/"+name, commit, old)
}
