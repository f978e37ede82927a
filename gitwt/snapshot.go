package gitwt

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// SnapshotCommit records the working tree as it is, HEAD plus every
// uncommitted change and untracked file that git does not ignore (less
// excludes), as a new commit whose parent is HEAD, and returns its hash.
// Nothing else changes: no branch moves, and the user's index and files are
// untouched (the tree is built in a temporary index). It is how a new
// worktree starts with the main checkout's uncommitted work. With nothing
// uncommitted (the tree is HEAD's) it makes no commit and returns HEAD.
func (r *Repo) SnapshotCommit(ctx context.Context, message string, excludes []string) (string, error) {
	head, err := r.Head(ctx)
	if err != nil {
		return "", err
	}
	if head == "" {
		return "", ErrNoCommits
	}
	tree, err := r.workingTree(ctx, excludes)
	if err != nil {
		return "", err
	}
	headTree, err := output(ctx, r.dir, "rev-parse", "--verify", "--quiet", head+"^{tree}")
	if err != nil {
		return "", err
	}
	if tree == headTree {
		return head, nil
	}
	return r.commitTree(ctx, tree, head, message)
}

// Snapshot commits the working tree as it is (every tracked file as it is
// on disk and every untracked one git does not ignore, less excludes) on
// HEAD, or as a commit with no parent in a repository with none yet,
// without moving any ref or touching the user's index, and returns the
// commit. Unlike SnapshotCommit it always makes a commit.
func (r *Repo) Snapshot(ctx context.Context, message string, excludes []string) (string, error) {
	head, err := r.Head(ctx)
	if err != nil {
		return "", err
	}
	tree, err := r.workingTree(ctx, excludes)
	if err != nil {
		return "", err
	}
	return r.commitTree(ctx, tree, head, message)
}

// workingTree writes the tree of the working tree as it is: every tracked
// file as it is on disk and every untracked file git does not ignore (less
// excludes), staged in a temporary copy of the index, so that the user's
// index is untouched. It returns the tree's hash.
func (r *Repo) workingTree(ctx context.Context, excludes []string) (string, error) {
	tmp, err := os.MkdirTemp("", "architect-index-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	index := filepath.Join(tmp, "index")
	if err := CopyIndex(filepath.Join(r.gitDir, "index"), index); err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	c := Command{Env: []string{"GIT_INDEX_FILE=" + index}}
	if err := r.Add(ctx, c, nil, excludes, "-A"); err != nil {
		return "", err
	}
	var tree strings.Builder
	c.Stdout = &tree
	if err := run(ctx, r.dir, c, "write-tree"); err != nil {
		return "", err
	}
	return strings.TrimSpace(tree.String()), nil
}

// commitTree makes a commit of tree on parent ("" for none) with the
// repository's identity, moving no ref, and returns its hash.
func (r *Repo) commitTree(ctx context.Context, tree, parent, message string) (string, error) {
	args, err := r.identity(ctx)
	if err != nil {
		return "", err
	}
	args = append(args, "commit-tree", tree, "-m", message)
	if parent != "" {
		args = append(args, "-p", parent)
	}
	var hash strings.Builder
	if err := run(ctx, r.dir, Command{Stdout: &hash}, args...); err != nil {
		return "", err
	}
	return strings.TrimSpace(hash.String()), nil
}

// Fallback identity for the commits architect makes where git has none
// configured (CI machines often have none).
const (
	FallbackName  = "architect"
	FallbackEmail = "architect@localhost"
)

// identity returns the -c options that supply a fallback for user.name and
// user.email where git has none configured.
func (r *Repo) identity(ctx context.Context) ([]string, error) {
	var args []string
	for _, kv := range [][2]string{{"user.name", FallbackName}, {"user.email", FallbackEmail}} {
		v, err := output(ctx, r.dir, "config", "--get", kv[0])
		if err != nil && ExitCode(err) != 1 {
			return nil, err
		}
		if strings.TrimSpace(v) == "" {
			args = append(args, "-c", kv[0]+"="+kv[1])
		}
	}
	return args, nil
}
