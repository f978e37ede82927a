package changes

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/architect-dev/architect/gitwt"
	"github.com/matryer/is"
)

// TestSplitTree: the tree written through a split view of an index is the
// one git writes from the index itself, for every index version, with
// extended flags, with and without a tree cache, in a SHA-256 repository;
// the index is left as it was, and nothing is written to the git folder.
// An index the view cannot share (already split) is refused.
func TestSplitTree(t *testing.T) {
	ctx := context.Background()
	for _, format := range []string{"sha1", "sha256"} {
		t.Run(format, func(t *testing.T) {
			is := is.New(t)
			isolate(t, true)
			dir := t.TempDir()
			gitT(t, dir, "init", "--quiet", "--object-format="+format)
			for i := range 40 {
				write(t, dir, fmt.Sprintf("d%d/%s.txt", i%5, string(rune('a'+i%26))+fmt.Sprint(i)), fmt.Sprint(i))
			}
			commit(t, dir, "base")
			r := open(t, dir)
			p, err := newPrivateIndex(r)
			is.NoErr(err)
			defer p.close()
			oidLen := 20
			if format == "sha256" {
				oidLen = 32
			}
			env := []string{"GIT_INDEX_FILE=" + p.path}
			git := func(args ...string) string {
				t.Helper()
				var out strings.Builder
				is.NoErr(run(ctx, dir, gitwt.Command{Env: env, Stdout: &out}, args...))
				return strings.TrimSpace(out.String())
			}
			for round, step := range []struct {
				name string
				do   func()
			}{
				{"version 2, tree cache whole", func() { git("update-index", "--index-version", "2"); git("write-tree") }},
				{"an edit (tree cache part invalid)", func() { write(t, dir, "d1/b1.txt", "edited"); git("add", "-u", "--", "d1") }},
				{"a new folder and a deletion", func() {
					write(t, dir, "new/deep/x.txt", "x")
					is.NoErr(os.Remove(filepath.Join(dir, "d0/a0.txt")))
					git("add", "-A")
				}},
				{"version 3 (intent to add, skip-worktree)", func() {
					write(t, dir, "later.txt", "later")
					git("add", "-N", "later.txt")
					git("update-index", "--skip-worktree", "d2/c2.txt")
					git("add", "-u", "--", "d3")
				}},
				{"version 4", func() { git("update-index", "--index-version", "4"); write(t, dir, "d4/e4.txt", "4"); git("add", "-u") }},
				{"no tree cache", func() { git("read-tree", "HEAD"); write(t, dir, "d4/j9.txt", "9"); git("add", "-A") }},
			} {
				if round == 0 {
					is.NoErr(p.seed())
				}
				step.do()
				before, err := os.ReadFile(p.path)
				is.NoErr(err)
				got, err := p.splitTree(ctx, open(t, dir), oidLen)
				is.NoErr(err)
				after, err := os.ReadFile(p.path)
				is.NoErr(err)
				is.Equal(string(after), string(before)) // the index itself is left alone
				want := git("write-tree")
				if got != want {
					t.Fatalf("%s: split view gave tree %s, the index %s", step.name, got, want)
				}
				shared, _ := filepath.Glob(filepath.Join(dir, ".git", "sharedindex.*"))
				is.Equal(len(shared), 0)
				links, _ := filepath.Glob(filepath.Join(p.dir, "sharedindex.*"))
				is.Equal(len(links), 1) // the last one only
			}
			// Where the private index is still the user's index's file (a
			// link, as seeded), the user's index is not stamped either.
			userIndex := filepath.Join(dir, ".git", "index")
			past := time.Now().Add(-time.Hour).Truncate(time.Second)
			is.NoErr(os.Chtimes(userIndex, past, past))
			is.NoErr(p.seed())
			_, err = p.splitTree(ctx, open(t, dir), oidLen)
			is.NoErr(err)
			info, err := os.Stat(userIndex)
			is.NoErr(err)
			is.True(info.ModTime().Equal(past))

			// An index split by the user's own setting cannot be shared.
			git("update-index", "--split-index")
			_, err = p.splitTree(ctx, open(t, dir), oidLen)
			is.Equal(err, errNoSplitView)
		})
	}
}
