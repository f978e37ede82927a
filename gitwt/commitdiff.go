package gitwt

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/architect-dev/architect/proc"
)

// Change is the diff between two commits: what one iteration committed.
type Change struct {
	// Text is the head of the patch, at most the limit asked for, cut so
	// as not to split a UTF-8 character; Truncated is how many bytes it
	// leaves out.
	Text      string
	Truncated int64
	// Files, Added and Deleted count the files changed and the lines added
	// and deleted, over the whole change.
	Files, Added, Deleted int
}

// Between compares two commits (from may be "" for the empty tree): the
// patch of the change, with renames found, and its size. Like Diff, it
// uses plumbing, so that the user's diff settings do not change it.
func (r *Repo) Between(ctx context.Context, from, to string, limit int) (Change, error) {
	if from == "" {
		var err error
		if from, err = r.EmptyTree(ctx); err != nil {
			return Change{}, err
		}
	}
	head := proc.NewHead(limit)
	if err := run(ctx, r.dir, Command{Env: r.TreesOnly(), Stdout: head}, "-c", "core.quotePath=false", "diff-tree", "-r", "-M", "-p", "--no-color", "--no-ext-diff", from, to); err != nil {
		return Change{}, err
	}
	var short strings.Builder
	if err := run(ctx, r.dir, Command{Env: r.TreesOnly(), Stdout: &short}, "diff-tree", "-r", "-M", "--shortstat", from, to); err != nil {
		return Change{}, err
	}
	c := Change{Text: head.Text()}
	c.Truncated = head.Total() - int64(len(c.Text))
	c.Files, c.Added, c.Deleted = shortStat(short.String())
	return c, nil
}

// shortStatRE is compiled when first used, not at every start.
var shortStatRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(\d+) files? changed|(\d+) insertions?\(\+\)|(\d+) deletions?\(-\)`)
})

// shortStat reads git's --shortstat line: " 2 files changed, 5
// insertions(+), 1 deletion(-)".
func shortStat(s string) (files, added, deleted int) {
	for _, m := range shortStatRE().FindAllStringSubmatch(s, -1) {
		switch {
		case m[1] != "":
			files, _ = strconv.Atoi(m[1])
		case m[2] != "":
			added, _ = strconv.Atoi(m[2])
		case m[3] != "":
			deleted, _ = strconv.Atoi(m[3])
		}
	}
	return files, added, deleted
}
