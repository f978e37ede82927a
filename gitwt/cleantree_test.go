package gitwt

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/matryer/is"
)

// The clean checkout holds the tracked files as they are in the working
// tree and the untracked ones git does not ignore, never what git ignores
// or the excludes; making and removing it leaves the user's branch, index,
// files and worktree list as they were, and a hook the agent planted does
// not run.
func TestCheckoutClean(t *testing.T) {
	is := is.New(t)
	dir, _ := repoWithCommit(t)
	ctx := context.Background()
	write(t, dir, ".gitignore", "build/\n")
	gitT(t, dir, "add", ".gitignore")
	head := commit(t, dir, "ignore build")
	write(t, dir, "README.md", "changed, not staged\n")
	write(t, dir, "staged.txt", "staged\n")
	gitT(t, dir, "add", "staged.txt")
	write(t, dir, "new.txt", "untracked\n")
	write(t, dir, "build/result", "pass\n")
	write(t, dir, ".architect/state.json", "{}\n")
	hooks := filepath.Join(dir, ".git", "hooks")
	is.NoErr(os.MkdirAll(hooks, 0o755))
	is.NoErr(os.WriteFile(filepath.Join(hooks, "post-checkout"), []byte("#!/bin/sh\ntouch \"$GIT_DIR/../hook-ran\"\ntouch hook-ran\n"), 0o755))
	indexBefore, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	is.NoErr(err)
	statusBefore := gitT(t, dir, "status", "--porcelain")
	worktreesBefore := gitT(t, dir, "worktree", "list", "--porcelain")

	r := open(t, dir)
	ct, err := r.CheckoutClean(ctx, []string{".architect"})
	is.NoErr(err)
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join(ct.Dir, name))
		if err != nil {
			return "<" + err.Error() + ">"
		}
		return string(data)
	}
	is.Equal(read("README.md"), "changed, not staged\n")
	is.Equal(read("staged.txt"), "staged\n")
	is.Equal(read("new.txt"), "untracked\n")
	is.True(!exists(filepath.Join(ct.Dir, "build")))                    // ignored: not there
	is.True(!exists(filepath.Join(ct.Dir, ".architect")))               // excluded
	is.True(!exists(filepath.Join(ct.Dir, "hook-ran")))                 // no hook ran
	is.Equal(filepath.Base(ct.Dir), filepath.Base(r.Dir()))             // named as the repository
	is.Equal(gitT(t, ct.Dir, "rev-parse", "HEAD"), ct.Commit)           // detached at the snapshot
	is.Equal(gitT(t, dir, "rev-parse", ct.Commit+"^"), head)            // whose parent is HEAD
	is.Equal(gitT(t, dir, "for-each-ref", "--contains", ct.Commit), "") // which no ref holds

	is.NoErr(ct.Remove(ctx))
	is.True(!exists(ct.Dir))
	is.True(!exists(filepath.Dir(ct.Dir)))
	is.Equal(gitT(t, dir, "worktree", "list", "--porcelain"), worktreesBefore)
	is.Equal(gitT(t, dir, "rev-parse", "HEAD"), head)
	is.Equal(gitT(t, dir, "status", "--porcelain"), statusBefore)
	indexAfter, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	is.NoErr(err)
	is.Equal(indexAfter, indexBefore)
	is.True(!exists(filepath.Join(dir, "hook-ran")))
}

// A repository with no commit yet still gets a clean checkout (a commit
// with no parent).
func TestCheckoutCleanNoCommit(t *testing.T) {
	is := is.New(t)
	dir := newRepo(t)
	write(t, dir, "a.txt", "a\n")
	r := open(t, dir)
	ct, err := r.CheckoutClean(context.Background(), nil)
	is.NoErr(err)
	defer func() { is.NoErr(ct.Remove(context.Background())) }()
	data, err := os.ReadFile(filepath.Join(ct.Dir, "a.txt"))
	is.NoErr(err)
	is.Equal(string(data), "a\n")
	is.Equal(gitT(t, dir, "for-each-ref"), "") // still no branch, no commit on it
}

// Remove still takes the worktree away, and only its own entry, when git
// cannot.
func TestCleanTreeRemoveByHand(t *testing.T) {
	is := is.New(t)
	dir, _ := repoWithCommit(t)
	ctx := context.Background()
	r := open(t, dir)
	other := filepath.Join(t.TempDir(), "other")
	gitT(t, dir, "worktree", "add", "--quiet", "--detach", other)
	is.NoErr(os.RemoveAll(other)) // a stale entry of the user's: not ours to prune
	ct, err := r.CheckoutClean(ctx, nil)
	is.NoErr(err)
	admin := ct.admin
	is.True(admin != "")
	// Its .git file broken: git no longer knows it as a worktree.
	is.NoErr(os.WriteFile(filepath.Join(ct.Dir, ".git"), []byte("gitdir: /nowhere\n"), 0o644))
	is.NoErr(ct.Remove(ctx))
	is.True(!exists(admin))
	is.True(!exists(filepath.Dir(ct.Dir)))
	is.True(exists(filepath.Join(dir, ".git", "worktrees", "other")))
}
