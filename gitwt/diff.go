package gitwt

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// statLimit bounds Diff.Stat; git itself is asked for at most statFiles
// file lines of at most statWidth columns, and always ends with the summary.
const (
	statLimit = 16 << 10
	statFiles = "100"
	statWidth = "120"
)

// Diff is a snapshot of the working tree compared with a base commit: what
// the agents have changed since the loop began.
type Diff struct {
	// Text is the head of the unified diff, at most the limit asked for and
	// cut so as not to split a UTF-8 character; "" when nothing changed.
	Text string
	// Total is the size in bytes of the whole diff.
	Total int64
	// Truncated is how many bytes of the diff Text does not hold.
	Truncated int64
	// Tree is the hash of the snapshot's tree. Equal trees mean an equal
	// working tree (less the excluded paths): nothing changed in between.
	Tree string
	// Stat is `git diff --stat` for the same change, listing at most 100
	// files before its summary line.
	Stat string
}

// Diff snapshots the working tree and diffs it against base, a commit hash,
// or "" for the empty tree (a repository with no commit). New files that git
// does not ignore are included; paths matching excludes (pathspecs relative
// to the top-level folder, such as ".architect/") are left out entirely.
// Architect's folders inside the repository, a nested worktree above all,
// must be among the excludes or ignored, or git would record them too.
//
// The user's index is never touched: the snapshot is built in a temporary
// index file, a copy of the real one with its modification time (so git's
// stat cache spares re-reading unchanged files, exactly as it would for the
// real index), which is removed afterwards. The snapshot's blobs and
// trees do go into the object database, as with `git stash`.
//
// The diff is streamed: only its first limit bytes are kept, the rest are
// counted. limit <= 0 keeps no text; Total, Tree and Stat are still filled.
func (r *Repo) Diff(ctx context.Context, base string, excludes []string, limit int) (Diff, error) {
	tree, err := r.snapshot(ctx, excludes)
	if err != nil {
		return Diff{}, err
	}
	if base == "" {
		base, err = r.emptyTree(ctx)
		if err != nil {
			return Diff{}, err
		}
	}
	// Plumbing, so that the user's diff settings (noprefix, external diff
	// tools, colours) do not change what the agent reads; one pass gives
	// both the stat and the patch, with a blank line between.
	args := []string{"-c", "core.quotePath=false", "diff-tree", "-r", "-M", "--no-color", "--no-ext-diff",
		"--stat=" + statWidth, "--stat-count=" + statFiles, "-p", base, tree, "--", "."}
	out := &statThenPatch{stat: &headBuffer{limit: statLimit}, patch: &headBuffer{limit: max(limit, 0)}}
	if err := run(ctx, r.dir, command{stdout: out}, append(args, excludeSpecs(excludes)...)...); err != nil {
		return Diff{}, err
	}
	d := Diff{
		Text:  out.patch.String(),
		Total: out.patch.total,
		Tree:  tree,
		Stat:  strings.TrimRight(out.stat.String(), "\n"),
	}
	d.Truncated = d.Total - int64(len(d.Text))
	return d, nil
}

// snapshot writes the working tree, less excludes, as a tree object through
// a temporary index and returns the tree's hash.
func (r *Repo) snapshot(ctx context.Context, excludes []string) (string, error) {
	tmp, err := os.MkdirTemp("", "architect-index-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	index := filepath.Join(tmp, "index")
	if err := copyIndex(filepath.Join(r.gitDir, "index"), index); err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	c := command{env: []string{"GIT_INDEX_FILE=" + index}}
	if len(excludes) > 0 && indexMayTrack(index, excludes) {
		// Drop excluded paths the copied index tracks, so that neither the
		// tree nor its hash depends on them. --cached: only the temporary
		// index changes, never a file; -f: whatever its staged state.
		args := append([]string{"rm", "--cached", "-r", "-f", "-q", "--ignore-unmatch", "--"}, pathSpecs(excludes)...)
		if err := run(ctx, r.dir, c, args...); err != nil {
			return "", err
		}
	}
	if err := r.addAll(ctx, c, excludes); err != nil {
		return "", err
	}
	var out strings.Builder
	c.stdout = &out
	if err := run(ctx, r.dir, c, "write-tree"); err != nil {
		return "", err
	}
	return strings.TrimSpace(out.String()), nil
}

// ignoredComplaint starts what `git add` prints, before exiting with status
// 1, when a pathspec names an ignored path. An exclusion pathspec counts
// (git's exclude_matches_pathspec does not tell the two apart), so
// excluding a folder that info/exclude also ignores would fail, although
// everything else was staged and the index written.
const ignoredComplaint = "The following paths are ignored by one of your .gitignore files:"

// addAll stages the whole working tree less excludes, as `git add -A`, in
// the index c names (the repository's own when c sets no GIT_INDEX_FILE).
func (r *Repo) addAll(ctx context.Context, c command, excludes []string) error {
	args := []string{"-c", "advice.addIgnoredFile=false", "-c", "advice.addEmbeddedRepo=false", "add", "-A", "--", "."}
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

// pathSpecs turns paths relative to the top-level folder into pathspecs
// that mean the same wherever git runs ("/x" is accepted for "x").
func pathSpecs(paths []string) []string {
	specs := make([]string, len(paths))
	for i, p := range paths {
		specs[i] = ":(top)" + strings.TrimLeft(p, "/")
	}
	return specs
}

// excludeSpecs turns paths into exclusion pathspecs.
func excludeSpecs(paths []string) []string {
	specs := make([]string, len(paths))
	for i, p := range paths {
		specs[i] = ":(top,exclude)" + strings.TrimLeft(p, "/")
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

// indexMayTrack reports whether the index file at path may track one of
// paths, so that snapshot can skip `git rm --cached` (a process, ~13 ms on
// a 5,000-file repository) in the usual case where it tracks none. Index
// versions 2 and 3 store each entry's path in full, so a path that appears
// nowhere in the file is not tracked; for anything else (version 4's
// compressed paths, a split index) the answer is yes. The file is read in
// chunks: memory does not grow with the repository.
func indexMayTrack(path string, paths []string) bool {
	f, err := os.Open(path)
	if err != nil {
		return !errors.Is(err, os.ErrNotExist)
	}
	defer f.Close()
	var header [8]byte
	if _, err := io.ReadFull(f, header[:]); err != nil {
		return true
	}
	if string(header[:4]) != "DIRC" || (header[7] != 2 && header[7] != 3) || header[4]|header[5]|header[6] != 0 {
		return true
	}
	needles := [][]byte{[]byte("link")} // the split-index extension
	longest := 4
	for _, p := range paths {
		p = strings.Trim(p, "/")
		if p == "" {
			return true
		}
		needles = append(needles, []byte(p))
		longest = max(longest, len(p))
	}
	buf := make([]byte, 64<<10+longest)
	carry := 0
	for {
		n, err := f.Read(buf[carry:])
		window := buf[:carry+n]
		for _, needle := range needles {
			if bytes.Contains(window, needle) {
				return true
			}
		}
		if err == io.EOF {
			return false
		}
		if err != nil {
			return true
		}
		carry = min(longest-1, len(window))
		copy(buf, window[len(window)-carry:])
	}
}
