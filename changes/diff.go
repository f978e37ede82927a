package changes

import (
	"context"

	"github.com/architect-dev/architect/gitwt"
)

// statFiles is how many files Diff.Stat lists before its summary line.
const statFiles = 100

// Diff is the working tree compared with a base commit: what the agents
// have changed since the loop began.
type Diff struct {
	// Text is the head of the unified diff, at most the limit asked for and
	// cut so as not to split a UTF-8 character; "" when nothing changed.
	Text string
	// Total is the size in bytes of the whole diff.
	Total int64
	// Truncated is how many bytes of the diff Text does not hold.
	Truncated int64
	// Tree identifies the working tree (less the excluded paths) relative
	// to the base: a hash of the hashes of each file's part of the diff,
	// which holds the file's object name (--full-index). Equal values mean
	// equal working trees: nothing changed in between.
	Tree string
	// Stat is `git diff --stat` for the same change, listing at most 100
	// files before its summary line.
	Stat string
}

// Compare compares the working tree of r with base, a commit hash, or "" for the
// empty tree (a repository with no commit). New files that git does not
// ignore are included; paths matching excludes (pathspecs relative to the
// top-level folder, such as ".architect/") are left out entirely.
// Architect's folders inside the repository, a nested worktree above all,
// must be among the excludes or ignored.
//
// The user's index is never touched, and nothing is written to the object
// database: git compares the working tree through a private index, the
// real one with new files marked as intended to be added (`git add -N`),
// removed afterwards (see Changes, which keeps it from one diff to the
// next).
//
// The diff is streamed, in one pass: only its first limit bytes are kept,
// the rest are counted and hashed, and the stat is built from the patch as
// it goes by. limit <= 0 keeps no text; Total, Tree and Stat are still
// filled.
func Compare(ctx context.Context, r *gitwt.Repo, base string, excludes []string, limit int) (Diff, error) {
	c := New(ctx, r, base, excludes, limit, ChangesOptions{})
	defer c.Close()
	c.keep = int64(c.limit) // one look: nothing past the text is needed
	return c.Diff(ctx)
}
