package gitwt

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
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
	// to the base: a hash of the whole diff, which holds every changed
	// file's object name (--full-index). Equal values mean equal working
	// trees: nothing changed in between.
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
// database: git compares the working tree through a temporary index, a
// copy of the real one with its modification time (so git's stat cache
// spares re-reading unchanged files, exactly as it would for the real
// index) in which new files are marked as intended to be added (`git add
// -N`). The temporary index is removed afterwards.
//
// The diff is streamed, in one pass: only its first limit bytes are kept,
// the rest are counted and hashed, and the stat is built from the patch as
// it goes by. limit <= 0 keeps no text; Total, Tree and Stat are still
// filled.
func (r *Repo) Diff(ctx context.Context, base string, excludes []string, limit int) (Diff, error) {
	tmp, err := os.MkdirTemp("", "architect-index-")
	if err != nil {
		return Diff{}, err
	}
	defer os.RemoveAll(tmp)
	index := filepath.Join(tmp, "index")
	if err := copyIndex(filepath.Join(r.gitDir, "index"), index); err != nil && !errors.Is(err, os.ErrNotExist) {
		return Diff{}, err
	}
	c := command{env: []string{"GIT_INDEX_FILE=" + index}}
	if err := r.addAll(ctx, c, excludes, "--intent-to-add"); err != nil {
		return Diff{}, err
	}
	if base == "" {
		if base, err = r.emptyTree(ctx); err != nil {
			return Diff{}, err
		}
	}
	// Plumbing, so that the user's diff settings (noprefix, external diff
	// tools, colours) do not change what the agent reads.
	args := []string{"-c", "core.quotePath=false", "diff-index", "-M", "--no-color", "--no-ext-diff", "--full-index", "-p", base, "--", "."}
	head := &headBuffer{limit: max(limit, 0)}
	hash := sha256.New()
	stat := &patchStat{}
	out := io.MultiWriter(head, hash, stat)
	if err := run(ctx, r.dir, command{env: c.env, stdout: out}, append(args, excludeSpecs(excludes)...)...); err != nil {
		return Diff{}, err
	}
	d := Diff{
		Text:  head.String(),
		Total: head.total,
		Tree:  hex.EncodeToString(hash.Sum(nil)),
		Stat:  stat.String(),
	}
	d.Truncated = d.Total - int64(len(d.Text))
	return d, nil
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
// as to be added, without reading them.
func (r *Repo) addAll(ctx context.Context, c command, excludes []string, mode string) error {
	args := []string{"-c", "advice.addIgnoredFile=false", "-c", "advice.addEmbeddedRepo=false", "add", mode, "--", "."}
	err := run(ctx, r.dir, c, append(args, excludeSpecs(excludes)...)...)
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
