package gitwt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"
)

// repoWithCommit makes a repository with one commit and returns it and the
// commit's hash.
func repoWithCommit(t *testing.T) (string, string) {
	t.Helper()
	dir := newRepo(t)
	write(t, dir, "README.md", "hello\n")
	return dir, commit(t, dir, "first")
}

func TestAddWorktreeRefusesExistingFolder(t *testing.T) {
	is := is.New(t)
	dir, base := repoWithCommit(t)
	ctx := context.Background()
	r := open(t, dir)
	path := filepath.Join(t.TempDir(), "wt")
	write(t, path, "precious.txt", "keep me\n")

	err := r.AddWorktree(ctx, path, "architect/x", base)
	is.True(errors.Is(err, ErrWorktreeExists))
	is.True(strings.Contains(err.Error(), path)) // names the folder
	is.True(exists(filepath.Join(path, "precious.txt")))
	ok, err := r.BranchExists(ctx, "architect/x")
	is.NoErr(err)
	is.True(!ok) // no branch left behind

	// An empty folder is refused too, and so is a registered worktree
	// whose folder was deleted by hand.
	empty := filepath.Join(t.TempDir(), "empty")
	is.NoErr(os.Mkdir(empty, 0o755))
	is.True(errors.Is(r.AddWorktree(ctx, empty, "architect/y", base), ErrWorktreeExists))
	gone := filepath.Join(t.TempDir(), "gone")
	is.NoErr(r.AddWorktree(ctx, gone, "architect/gone", base))
	is.NoErr(os.RemoveAll(gone))
	err = r.AddWorktree(ctx, gone, "architect/z", base)
	is.True(errors.Is(err, ErrWorktreeExists))
	is.True(strings.Contains(err.Error(), "prune"))
}

func TestAddWorktreeRefusesExistingBranch(t *testing.T) {
	is := is.New(t)
	dir, base := repoWithCommit(t)
	ctx := context.Background()
	gitT(t, dir, "branch", "architect/taken")
	r := open(t, dir)
	path := filepath.Join(t.TempDir(), "wt")

	err := r.AddWorktree(ctx, path, "architect/taken", base)
	is.True(errors.Is(err, ErrBranchExists))
	is.True(strings.Contains(err.Error(), "architect/taken")) // names the branch
	is.True(!exists(path))                                    // no folder left behind
	is.Equal(gitT(t, dir, "rev-parse", "architect/taken"), base)
}

func TestAddWorktreeNoCommits(t *testing.T) {
	is := is.New(t)
	dir := newRepo(t)
	path := filepath.Join(t.TempDir(), "wt")
	err := open(t, dir).AddWorktree(context.Background(), path, "architect/x", "HEAD")
	is.True(errors.Is(err, ErrNoCommits))
	is.True(!exists(path))
}

func TestRemoveWorktreeKeepsUncommittedWork(t *testing.T) {
	is := is.New(t)
	dir, base := repoWithCommit(t)
	ctx := context.Background()
	r := open(t, dir)
	path := filepath.Join(t.TempDir(), "wt")
	is.NoErr(r.AddWorktree(ctx, path, "architect/x", base))
	write(t, path, "wip.txt", "uncommitted\n")

	err := r.RemoveWorktree(ctx, path, false)
	var ge *GitError
	is.True(errors.As(err, &ge))
	is.True(exists(filepath.Join(path, "wip.txt")))

	is.NoErr(r.RemoveWorktree(ctx, path, true))
	is.True(!exists(path))
}

func TestUnmergedCommitsAndDeleteBranch(t *testing.T) {
	is := is.New(t)
	dir, _ := repoWithCommit(t)
	ctx := context.Background()
	r := open(t, dir)

	gitT(t, dir, "checkout", "--quiet", "-b", "work")
	for _, name := range []string{"one", "two"} {
		write(t, dir, name, name+"\n")
		commit(t, dir, name)
	}
	gitT(t, dir, "checkout", "--quiet", "main")
	write(t, dir, "main-only", "x\n")
	commit(t, dir, "main moves on") // does not count

	n, err := r.UnmergedCommits(ctx, "work", "main")
	is.NoErr(err)
	is.Equal(n, 2)
	n, err = r.UnmergedCommits(ctx, "main", "work")
	is.NoErr(err)
	is.Equal(n, 1)

	var ge *GitError
	is.True(errors.As(r.DeleteBranch(ctx, "work", false), &ge)) // not merged: refused
	ok, err := r.BranchExists(ctx, "work")
	is.NoErr(err)
	is.True(ok)
	is.NoErr(r.DeleteBranch(ctx, "work", true))
	ok, err = r.BranchExists(ctx, "work")
	is.NoErr(err)
	is.True(!ok)
}

// A worktree another task is adding at the same moment (its entry made,
// its files not yet written: git 2.39 then fails to list any worktree)
// does not fail this task's look: the list is asked for again once the
// entry is whole.
func TestWorktreesWhileAnotherIsHalfMade(t *testing.T) {
	is := is.New(t)
	dir, base := repoWithCommit(t)
	ctx := context.Background()
	r := open(t, dir)
	entry := filepath.Join(dir, ".git", "worktrees", "other")
	is.NoErr(os.MkdirAll(entry, 0o755))
	is.NoErr(os.WriteFile(filepath.Join(entry, "gitdir"), []byte(filepath.Join(t.TempDir(), "other", ".git")+"\n"), 0o644))
	is.NoErr(os.WriteFile(filepath.Join(entry, "commondir"), nil, 0o644)) // created, not written yet
	_, err := output(ctx, dir, "worktree", "list", "--porcelain")
	is.True(err != nil && strings.Contains(err.Error(), halfMade)) // what git does meanwhile
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(300 * time.Millisecond) // the other add goes on
		os.WriteFile(filepath.Join(entry, "commondir"), []byte("../..\n"), 0o644)
		os.WriteFile(filepath.Join(entry, "HEAD"), []byte(base+"\n"), 0o644)
	}()
	wts, err := r.Worktrees(ctx)
	<-done
	is.NoErr(err)
	is.Equal(len(wts), 2)
	is.True(samePath(wts[0].Path, dir))
}

// A batch adds its tasks' worktrees at once: every add succeeds (git 2.39
// fails one that reads another's entry half made), and each has its
// branch.
func TestAddWorktreesAtOnce(t *testing.T) {
	is := is.New(t)
	dir, base := repoWithCommit(t)
	ctx := context.Background()
	r := open(t, dir)
	root := t.TempDir()
	const n = 12
	errs := make(chan error, n)
	for i := range n {
		go func() {
			errs <- r.AddWorktree(ctx, filepath.Join(root, fmt.Sprint("wt", i)), fmt.Sprint("architect/wt", i), base)
		}()
	}
	for range n {
		is.NoErr(<-errs)
	}
	wts, err := r.Worktrees(ctx)
	is.NoErr(err)
	is.Equal(len(wts), n+1)
}
