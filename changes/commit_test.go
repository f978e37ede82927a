package changes

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/architect-dev/architect/gitwt"
	"github.com/matryer/is"
)

func TestCommitWithoutIdentity(t *testing.T) {
	is := is.New(t)
	isolate(t, false) // no user.name, no user.email anywhere
	dir := t.TempDir()
	gitT(t, dir, "init", "--quiet")
	write(t, dir, "a.txt", "a\n")
	ctx := context.Background()
	r := open(t, dir)

	hash, committed, err := commitAll(ctx, r, "first", nil) // also the first commit
	is.NoErr(err)
	is.True(committed)
	is.Equal(len(hash), 40)
	is.Equal(gitT(t, dir, "log", "-1", "--format=%an <%ae>|%cn <%ce>"),
		"architect <architect@localhost>|architect <architect@localhost>")
	_, err = os.Stat(filepath.Join(dir, ".git", "config"))
	is.NoErr(err)
	out, _ := runGit(dir, "config", "--get", "user.name")
	is.Equal(out, "") // nothing was written to any config

	// A configured name is kept; only the missing email is supplied.
	gitT(t, dir, "config", "user.name", "Only Name")
	write(t, dir, "a.txt", "b\n")
	_, committed, err = commitAll(ctx, r, "second", nil)
	is.NoErr(err)
	is.True(committed)
	is.Equal(gitT(t, dir, "log", "-1", "--format=%an <%ae>"), "Only Name <architect@localhost>")
}

func TestCommitDeletesAndExcludes(t *testing.T) {
	is := is.New(t)
	dir, _ := repoWithCommit(t)
	write(t, dir, "old.txt", "old\n")
	commit(t, dir, "old")
	ctx := context.Background()
	r := open(t, dir)

	is.NoErr(os.Remove(filepath.Join(dir, "old.txt")))
	write(t, dir, "skip/me.txt", "no\n")
	_, committed, err := commitAll(ctx, r, "remove old", []string{"skip"})
	is.NoErr(err)
	is.True(committed)
	is.Equal(gitT(t, dir, "show", "--format=", "--name-status", "HEAD"), "D\told.txt")
	is.Equal(gitT(t, dir, "status", "--porcelain"), "?? skip/")

	_, _, err = commitAll(ctx, r, "  \n", nil)
	is.True(err != nil) // empty message
}

func TestCommitFailingHook(t *testing.T) {
	is := is.New(t)
	dir, _ := repoWithCommit(t)
	write(t, dir, ".git/hooks/pre-commit", "#!/bin/sh\necho 'lint failed' >&2\nexit 1\n")
	is.NoErr(os.Chmod(filepath.Join(dir, ".git/hooks/pre-commit"), 0o755))
	write(t, dir, "a.txt", "a\n")

	_, committed, err := commitAll(context.Background(), open(t, dir), "try", nil)
	var ge *gitwt.GitError
	is.True(errors.As(err, &ge))
	is.True(!committed)
	is.Equal(ge.Stderr, "lint failed\n")
	is.Equal(gitT(t, dir, "status", "--porcelain"), "A  a.txt") // staged, not lost
}

func TestWorktreeCommitMerge(t *testing.T) {
	is := is.New(t)
	dir, base := repoWithCommit(t)
	ctx := context.Background()
	r := open(t, dir)
	is.NoErr(r.Exclude(ctx, "/.architect/", "/.architect-worktrees/"))

	wtPath := filepath.Join(r.Dir(), ".architect-worktrees", "run1")
	is.NoErr(r.AddWorktree(ctx, ".architect-worktrees/run1", "architect/run1", base))
	got, err := r.WorktreeOf(ctx, "architect/run1")
	is.NoErr(err)
	is.Equal(got, wtPath)
	none, err := r.WorktreeOf(ctx, "nope")
	is.NoErr(err)
	is.Equal(none, "")

	w := open(t, wtPath)
	branch, err := w.CurrentBranch(ctx)
	is.NoErr(err)
	is.Equal(branch, "architect/run1")
	write(t, wtPath, "feature.go", "package feature\n")
	write(t, wtPath, "README.md", "hello\nworld\n")
	write(t, wtPath, ".architect/state.json", "{}\n") // excluded
	hash, committed, err := commitAll(ctx, w, "#1: add feature\n\nbody", []string{".architect/"})
	is.NoErr(err)
	is.True(committed)
	is.Equal(gitT(t, wtPath, "rev-parse", "HEAD"), hash)
	is.Equal(gitT(t, wtPath, "log", "-1", "--format=%B"), "#1: add feature\n\nbody") // "#" lines kept
	is.Equal(gitT(t, wtPath, "show", "--format=", "--name-only", "HEAD"), "README.md\nfeature.go")
	is.Equal(gitT(t, wtPath, "log", "-1", "--format=%an <%ae>"), "Test User <test@example.com>")

	again, committed, err := commitAll(ctx, w, "nothing", []string{".architect/"})
	is.NoErr(err)
	is.True(!committed)
	is.Equal(again, hash)

	// The main checkout was not touched, and merging brings the work in.
	is.Equal(gitT(t, dir, "status", "--porcelain"), "")
	n, err := r.UnmergedCommits(ctx, "architect/run1", "main")
	is.NoErr(err)
	is.Equal(n, 1)
	gitT(t, dir, "merge", "--quiet", "--no-edit", "architect/run1")
	content, err := os.ReadFile(filepath.Join(dir, "feature.go"))
	is.NoErr(err)
	is.Equal(string(content), "package feature\n")
	n, err = r.UnmergedCommits(ctx, "architect/run1", "main")
	is.NoErr(err)
	is.Equal(n, 0)

	// Clean up as `architect clean` would.
	is.NoErr(r.RemoveWorktree(ctx, wtPath, false))
	is.True(!exists(wtPath))
	is.NoErr(r.DeleteBranch(ctx, "architect/run1", false))
	ok, err := r.BranchExists(ctx, "architect/run1")
	is.NoErr(err)
	is.True(!ok)
}

// commitAll commits the working tree less excludes as an iteration does,
// with Changes.Commit, its configuration read afresh.
func commitAll(ctx context.Context, r *gitwt.Repo, message string, excludes []string) (string, bool, error) {
	base, err := r.Head(ctx)
	if err != nil {
		return "", false, err
	}
	c := New(ctx, r, base, excludes, 0, ChangesOptions{})
	defer c.Close()
	return c.Commit(ctx, message, nil)
}
