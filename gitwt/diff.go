package gitwt

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
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

// Diff compares the working tree with base, a commit hash, or "" for the
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
func (r *Repo) Diff(ctx context.Context, base string, excludes []string, limit int) (Diff, error) {
	c := r.Changes(ctx, base, excludes, limit, ChangesOptions{})
	defer c.Close()
	c.keep = int64(c.limit) // one look: nothing past the text is needed
	return c.Diff(ctx)
}

// ignoredComplaint starts what `git add` prints, before exiting with status
// 1, when a pathspec names an ignored path. An exclusion pathspec counts
// (git's exclude_matches_pathspec does not tell the two apart), so
// excluding a folder that info/exclude also ignores would fail, although
// everything else was staged and the index written.
const ignoredComplaint = "The following paths are ignored by one of your .gitignore files:"

// addAll stages the whole working tree less excludes, as `git add -A`, in
// the index c names (the repository's own when c sets no GIT_INDEX_FILE).
// With mode "--intent-to-add" instead of "-A", it only marks the new files
// as to be added, without reading them, and removes no entry.
func (r *Repo) addAll(ctx context.Context, c command, excludes []string, mode string) error {
	if mode == "--intent-to-add" {
		return r.addPaths(ctx, c, nil, excludes, mode, "--no-all")
	}
	return r.addPaths(ctx, c, nil, excludes, mode)
}

// addPaths is addAll limited to paths (relative to the top level; nil for
// all), with the options given.
func (r *Repo) addPaths(ctx context.Context, c command, paths, excludes []string, opts ...string) error {
	specs := []string{"."}
	args := []string{"-c", "advice.addIgnoredFile=false", "-c", "advice.addEmbeddedRepo=false"}
	if paths != nil {
		specs = literalSpecs(paths)
		// A few paths: git's threads that look at every entry cost more
		// than they spare.
		args = append(args, "-c", "core.preloadIndex=false")
	}
	args = append(append(args, "add"), opts...)
	args = append(append(append(args, "--"), specs...), excludeSpecs(excludes)...)
	err := run(ctx, r.dir, c, args...)
	var ge *GitError
	if errors.As(err, &ge) && ge.ExitCode == 1 && strings.Contains(ge.Stderr, ignoredComplaint) {
		return nil // all else was added: git fails only with status 128
	}
	return err
}

// emptyTree returns the hash of the empty tree in this repository's object
// format (SHA-1 or SHA-256).
func (r *Repo) emptyTree(ctx context.Context) (string, error) {
	var out strings.Builder
	err := run(ctx, r.dir, command{stdin: strings.NewReader(""), stdout: &out}, "hash-object", "-t", "tree", "--stdin")
	return strings.TrimSpace(out.String()), err
}

// excludeSpecs turns paths into exclusion pathspecs, taken literally (a
// file named with * or [ excludes only itself).
func excludeSpecs(paths []string) []string {
	specs := make([]string, len(paths))
	for i, p := range paths {
		specs[i] = ":(top,exclude,literal)" + strings.TrimLeft(p, "/")
	}
	return specs
}

// copyIndex copies the index file src to dst, a new file, and gives the
// copy the original's modification time. That time matters: git trusts an
// entry's cached stat data only when the file was last changed before the
// index was written, and re-reads the others ("racily clean" entries). A
// copy stamped now would make git trust entries it should re-read, and
// miss an edit made in the same second as the index was written.
func copyIndex(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	info, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chtimes(dst, info.ModTime(), info.ModTime())
}
