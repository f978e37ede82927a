package gitwt

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/matryer/is"
)

func TestCommitAllWithoutIdentity(t *testing.T) {
	is := is.New(t)
	isolate(t, false) // no user.name, no user.email anywhere
	dir := t.TempDir()
	gitT(t, dir, "init", "--quiet")
	write(t, dir, "a.txt", "a\n")
	ctx := context.Background()
	r := open(t, dir)

	hash, committed, err := r.CommitAll(ctx, "first", nil) // also the first commit
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
	_, committed, err = r.CommitAll(ctx, "second", nil)
	is.NoErr(err)
	is.True(committed)
	is.Equal(gitT(t, dir, "log", "-1", "--format=%an <%ae>"), "Only Name <architect@localhost>")
}

func TestCommitAllDeletesAndExcludes(t *testing.T) {
	is := is.New(t)
	dir, _ := repoWithCommit(t)
	write(t, dir, "old.txt", "old\n")
	commit(t, dir, "old")
	ctx := context.Background()
	r := open(t, dir)

	is.NoErr(os.Remove(filepath.Join(dir, "old.txt")))
	write(t, dir, "skip/me.txt", "no\n")
	_, committed, err := r.CommitAll(ctx, "remove old", []string{"skip"})
	is.NoErr(err)
	is.True(committed)
	is.Equal(gitT(t, dir, "show", "--format=", "--name-status", "HEAD"), "D\told.txt")
	is.Equal(gitT(t, dir, "status", "--porcelain"), "?? skip/")

	_, _, err = r.CommitAll(ctx, "  \n", nil)
	is.True(err != nil) // empty message
}

func TestCommitAllFailingHook(t *testing.T) {
	is := is.New(t)
	dir, _ := repoWithCommit(t)
	write(t, dir, ".git/hooks/pre-commit", "#!/bin/sh\necho 'lint failed' >&2\nexit 1\n")
	is.NoErr(os.Chmod(filepath.Join(dir, ".git/hooks/pre-commit"), 0o755))
	write(t, dir, "a.txt", "a\n")

	_, committed, err := open(t, dir).CommitAll(context.Background(), "try", nil)
	var ge *GitError
	is.True(errors.As(err, &ge))
	is.True(!committed)
	is.Equal(ge.Stderr, "lint failed\n")
	is.Equal(gitT(t, dir, "status", "--porcelain"), "A  a.txt") // staged, not lost
}
