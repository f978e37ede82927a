package gitwt

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// Temporary versions of the candidate worktree functions (replaced by the
// cand-gitwt branch's).

func (r *Repo) AddCandidate(ctx context.Context, path, commit string) error {
	if _, err := os.Stat(filepath.Join(path, ".git")); err == nil {
		return r.ResetCandidate(ctx, path, commit, nil)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return r.Git(ctx, Command{}, "worktree", "add", "--detach", "-f", path, commit)
}

func (r *Repo) ResetCandidate(ctx context.Context, path, commit string, keep []string) error {
	if err := run(ctx, path, Command{}, "checkout", "-q", "-f", "--detach", commit); err != nil {
		return err
	}
	args := []string{"clean", "-fdq"}
	for _, k := range keep {
		args = append(args, "-e", k)
	}
	return run(ctx, path, Command{}, args...)
}

func (r *Repo) RemoveCandidate(ctx context.Context, path string) error {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return r.Git(ctx, Command{}, "worktree", "prune")
	}
	return r.Git(ctx, Command{}, "worktree", "remove", "--force", path)
}

func (r *Repo) CommitTree(ctx context.Context, tree, parent, msg string) (string, error) {
	args := []string{"-c", "user.name=architect", "-c", "user.email=architect@localhost", "commit-tree", tree, "-m", msg}
	if parent != "" {
		args = append(args, "-p", parent)
	}
	out, err := r.Output(ctx, args...)
	return strings.TrimSpace(out), err
}

func ApplyTrees(ctx context.Context, dir, from, to string) error {
	var patch strings.Builder
	if err := run(ctx, dir, Command{Stdout: &patch}, "diff", "--binary", "--no-color", "--no-ext-diff", from, to); err != nil {
		return err
	}
	if patch.Len() == 0 {
		return nil
	}
	return run(ctx, dir, Command{Stdin: strings.NewReader(patch.String())}, "apply", "--binary", "-")
}
