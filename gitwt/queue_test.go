package gitwt

import (
	"context"
	"testing"

	"github.com/matryer/is"
)

// TestUpdateBranchFromSeenValue: the branch moves only from the value it
// was seen at; one moved in between, or one that exists when it should
// not, is left as it is.
func TestUpdateBranchFromSeenValue(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	dir := newRepo(t)
	write(t, dir, "a.txt", "a\n")
	c1 := commit(t, dir, "c1")
	write(t, dir, "a.txt", "b\n")
	c2 := commit(t, dir, "c2")
	r := open(t, dir)

	is.NoErr(r.UpdateBranch(ctx, "target", c1, "", "create"))      // created where it did not exist
	is.True(r.UpdateBranch(ctx, "target", c2, "", "again") != nil) // exists: not created over
	is.Equal(gitT(t, dir, "rev-parse", "target"), c1)

	is.True(r.UpdateBranch(ctx, "target", c2, c2, "stale") != nil) // not at c2: refused
	is.Equal(gitT(t, dir, "rev-parse", "target"), c1)
	is.NoErr(r.UpdateBranch(ctx, "target", c2, c1, "advance"))
	is.Equal(gitT(t, dir, "rev-parse", "target"), c2)
	// The checkout is untouched: still on main at c2, clean.
	is.Equal(gitT(t, dir, "symbolic-ref", "HEAD"), "refs/heads/main")
	is.Equal(gitT(t, dir, "status", "--porcelain"), "")

	in, err := r.IsAncestor(ctx, c1, c2)
	is.NoErr(err)
	is.True(in)
	in, err = r.IsAncestor(ctx, c2, c1)
	is.NoErr(err)
	is.True(!in)
	base, err := r.MergeBase(ctx, c1, c2)
	is.NoErr(err)
	is.Equal(base, c1)
}

// TestCommitTreeParents: a commit with two parents, no ref moved.
func TestCommitTreeParents(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	dir := newRepo(t)
	write(t, dir, "a.txt", "a\n")
	c1 := commit(t, dir, "c1")
	write(t, dir, "b.txt", "b\n")
	c2 := commit(t, dir, "c2")
	r := open(t, dir)
	tree := gitT(t, dir, "rev-parse", c2+"^{tree}")
	m, err := r.CommitTreeParents(ctx, tree, []string{c1, c2}, "merge")
	is.NoErr(err)
	is.Equal(gitT(t, dir, "rev-list", "--parents", "-n", "1", m), m+" "+c1+" "+c2)
	is.Equal(gitT(t, dir, "rev-parse", "HEAD"), c2)
}
