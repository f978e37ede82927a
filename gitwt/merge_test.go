package gitwt

import (
	"context"
	"testing"

	"github.com/matryer/is"
)

// branchRepo makes a repository with a branch "work" that changed a.txt
// and added b.txt, and returns it checked out on main.
func branchRepo(t *testing.T) string {
	t.Helper()
	dir, _ := repoWithCommit(t)
	write(t, dir, "a.txt", "one\n")
	commit(t, dir, "a")
	gitT(t, dir, "checkout", "-q", "-b", "work")
	write(t, dir, "a.txt", "one\ntwo\n")
	write(t, dir, "b.txt", "bee\n")
	commit(t, dir, "work")
	gitT(t, dir, "checkout", "-q", "main")
	return dir
}

func TestCheckMerge(t *testing.T) {
	ctx := context.Background()
	t.Run("clean", func(t *testing.T) {
		is := is.New(t)
		dir := branchRepo(t)
		mc, err := open(t, dir).CheckMerge(ctx, "work")
		is.NoErr(err)
		is.Equal(mc.Commits, 1)
		is.Equal(len(mc.Conflicts)+len(mc.Dirty)+len(mc.InTheWay)+len(mc.Same), 0)
	})
	t.Run("conflict, dirty, untracked", func(t *testing.T) {
		is := is.New(t)
		dir := branchRepo(t)
		write(t, dir, "a.txt", "one\nthree\n")
		commit(t, dir, "main changes a")
		write(t, dir, "README.md", "local edit\n")
		write(t, dir, "b.txt", "other bee\n")
		before := gitT(t, dir, "status", "--porcelain")
		mc, err := open(t, dir).CheckMerge(ctx, "work")
		is.NoErr(err)
		is.Equal(mc.Conflicts, []string{"a.txt"})
		is.Equal(mc.Dirty, []string{"README.md"})
		is.Equal(mc.InTheWay, []string{"b.txt"})
		is.Equal(gitT(t, dir, "status", "--porcelain"), before) // nothing changed
		write(t, dir, "b.txt", "bee\n")
		mc, err = open(t, dir).CheckMerge(ctx, "work")
		is.NoErr(err)
		is.Equal(mc.Same, []string{"b.txt"}) // same content: nothing to lose
		is.Equal(len(mc.InTheWay), 0)
	})
	t.Run("nothing to merge", func(t *testing.T) {
		is := is.New(t)
		dir := branchRepo(t)
		gitT(t, dir, "merge", "-q", "work")
		mc, err := open(t, dir).CheckMerge(ctx, "work")
		is.NoErr(err)
		is.Equal(mc.Commits, 0)
	})
}

func TestMergeBranch(t *testing.T) {
	ctx := context.Background()
	for _, squash := range []bool{false, true} {
		is := is.New(t)
		dir := branchRepo(t)
		head, err := open(t, dir).MergeBranch(ctx, "work", "architect: the task\n\nsucceeded", squash)
		is.NoErr(err)
		is.Equal(gitT(t, dir, "rev-parse", "HEAD"), head)
		is.Equal(gitT(t, dir, "log", "-1", "--format=%B"), "architect: the task\n\nsucceeded")
		is.Equal(gitT(t, dir, "show", "HEAD:b.txt"), "bee")
		parents := gitT(t, dir, "log", "-1", "--format=%P")
		if squash {
			is.Equal(len(parents), 40) // one parent: an ordinary commit
			is.Equal(gitT(t, dir, "rev-list", "--count", "HEAD..work"), "1")
		} else {
			is.Equal(len(parents), 81) // two parents, though a fast-forward was possible
			is.Equal(gitT(t, dir, "rev-list", "--count", "HEAD..work"), "0")
		}
		is.Equal(gitT(t, dir, "status", "--porcelain"), "")
	}
}
