package gitwt

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// Between gives one commit's change: its patch, cut at the limit, and its
// exact size, a rename found as such.
func TestBetween(t *testing.T) {
	is := is.New(t)
	dir := newRepo(t)
	write := func(name, text string) {
		is.NoErr(os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	write("a.txt", "one\ntwo\nthree\n")
	write("old.txt", strings.Repeat("stays the same\n", 20))
	gitT(t, dir, "add", "-A")
	gitT(t, dir, "commit", "-qm", "first")
	first := gitT(t, dir, "rev-parse", "HEAD")
	write("a.txt", "one\n2\nthree\nfour\n")
	gitT(t, dir, "mv", "old.txt", "new.txt")
	gitT(t, dir, "commit", "-qam", "second")
	second := gitT(t, dir, "rev-parse", "HEAD")

	ctx := context.Background()
	repo, err := Open(ctx, dir)
	is.NoErr(err)
	c, err := repo.Between(ctx, first, second, 1<<20)
	is.NoErr(err)
	is.Equal([]int{c.Files, c.Added, c.Deleted}, []int{2, 2, 1})
	is.True(strings.Contains(c.Text, "diff --git a/a.txt b/a.txt"))
	is.True(strings.Contains(c.Text, "-two\n+2\n"))
	is.True(strings.Contains(c.Text, "rename from old.txt\nrename to new.txt"))
	is.Equal(c.Truncated, int64(0))

	c, err = repo.Between(ctx, first, second, 10)
	is.NoErr(err)
	is.Equal(len(c.Text), 10)
	is.True(c.Truncated > 0)
	is.Equal(c.Added, 2) // counted over the whole change

	c, err = repo.Between(ctx, "", first, 1<<20) // from nothing
	is.NoErr(err)
	is.Equal([]int{c.Files, c.Added}, []int{2, 23})
}
