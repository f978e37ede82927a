package gitwt

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
)

// ignoredComplaint starts what `git add` prints, before exiting with status
// 1, when a pathspec names an ignored path. An exclusion pathspec counts
// (git's exclude_matches_pathspec does not tell the two apart), so
// excluding a folder that info/exclude also ignores would fail, although
// everything else was staged and the index written.
const ignoredComplaint = "The following paths are ignored by one of your .gitignore files:"

// Add runs `git add` with opts on paths (relative to the top level; nil
// for the whole tree) less excludes, in the index c names (the working
// tree's own when c sets no GIT_INDEX_FILE): with "-A", as `git add -A`;
// with "--intent-to-add" and "--no-all", new files are only marked as to
// be added, without being read, and no entry is removed.
func (r *Repo) Add(ctx context.Context, c Command, paths, excludes []string, opts ...string) error {
	specs := []string{"."}
	args := []string{"-c", "advice.addIgnoredFile=false", "-c", "advice.addEmbeddedRepo=false"}
	if paths != nil {
		specs = LiteralSpecs(paths)
		// A few paths: git's threads that look at every entry cost more
		// than they spare.
		args = append(args, "-c", "core.preloadIndex=false")
	}
	args = append(append(args, "add"), opts...)
	args = append(append(append(args, "--"), specs...), ExcludeSpecs(excludes)...)
	err := run(ctx, r.dir, c, args...)
	var ge *GitError
	if errors.As(err, &ge) && ge.ExitCode == 1 && strings.Contains(ge.Stderr, ignoredComplaint) {
		return nil // all else was added: git fails only with status 128
	}
	return err
}

// EmptyTree returns the hash of the empty tree in this repository's object
// format (SHA-1 or SHA-256).
func (r *Repo) EmptyTree(ctx context.Context) (string, error) {
	var out strings.Builder
	err := run(ctx, r.dir, Command{Stdin: strings.NewReader(""), Stdout: &out}, "hash-object", "-t", "tree", "--stdin")
	return strings.TrimSpace(out.String()), err
}

// LiteralSpecs turns paths relative to the top level into pathspecs that
// match them as they are (no wildcards), folders with everything in them.
func LiteralSpecs(paths []string) []string {
	specs := make([]string, len(paths))
	for i, p := range paths {
		specs[i] = ":(top,literal)" + p
	}
	return specs
}

// ExcludeSpecs turns paths into exclusion pathspecs, taken literally (a
// file named with * or [ excludes only itself).
func ExcludeSpecs(paths []string) []string {
	specs := make([]string, len(paths))
	for i, p := range paths {
		specs[i] = ":(top,exclude,literal)" + strings.TrimLeft(p, "/")
	}
	return specs
}

// CopyIndex copies the index file src to dst, a new file, and gives the
// copy the original's modification time. That time matters: git trusts an
// entry's cached stat data only when the file was last changed before the
// index was written, and re-reads the others ("racily clean" entries). A
// copy stamped now would make git trust entries it should re-read, and
// miss an edit made in the same second as the index was written.
func CopyIndex(src, dst string) error {
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
