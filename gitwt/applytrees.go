package gitwt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// ErrTreeMoved: ApplyTrees found the working tree different from the tree
// it was told it holds, in a file the change touches; nothing was changed.
var ErrTreeMoved = errors.New("the working tree does not hold the expected content")

// change is one path that differs between two trees, as `git diff-tree -r
// --raw` gives it.
type change struct {
	oldMode, newMode string // "000000" where the side has no such path
	oldOID, newOID   string
	status           byte // A, D, M or T
	path             string
}

// ApplyTrees makes the working tree at dir (its top-level folder), whose
// content is tree (or commit) from, hold tree to instead: files added,
// changed and removed, modes, symbolic links and binary files included,
// in the working tree only: never the index, HEAD or a ref. It refuses,
// changing nothing, with an error wrapping ErrTreeMoved that names the
// file, when a file the change touches is neither from's version nor
// already to's, when something stands where a file is to be added, or when
// a folder a file goes into is a file or a symbolic link. A path that
// already holds to's version is left as it is: a second call finishes
// what an interrupted one began.
//
// How, and why not `git diff --binary | git apply`: git apply checks a text
// hunk's context lines only (an edit elsewhere in the file, or lines
// inserted above the hunk, and it applies anyway, at an offset), and it
// removes every modified file before writing any new one back, so a SIGKILL
// between the two leaves modified files missing. Here:
//
//   - `git diff-tree -r -z --raw` lists the paths that differ, each name
//     NUL-terminated and never quoted, so any byte a path can hold
//     (spaces, newlines, a trailing carriage return, non-UTF-8, a leading
//     dash) passes through unchanged; paths go back to git only through
//     `update-index -z --index-info`, never on a command line or in a
//     patch.
//   - The files the change touches are compared whole with from's (or
//     to's) version in a temporary index (GIT_INDEX_FILE) holding only
//     those paths, with git's own comparison (`update-index --refresh`,
//     `diff-files`): content after clean/eol filters, executable bit
//     (unless core.fileMode is false), file against symbolic link. Cost:
//     the changed files are read, nothing else.
//   - to's versions are written by `git checkout-index --prefix` from
//     another temporary index into a staging folder on the same file
//     system (in the git folder), with git's smudge and eol conversions
//     and modes, then each is renamed over its place: a file is at any
//     moment from's version or to's, never half written.
//
// A SIGKILL in the middle leaves some files at to's version and the others
// at from's (and the staging folder in the git folder); calling ApplyTrees
// again with the same trees completes the change. Submodule entries
// (gitlinks) are refused.
func ApplyTrees(ctx context.Context, dir, from, to string) error {
	top, gitDir, err := topOf(ctx, dir)
	if err != nil {
		return err
	}
	changes, err := diffTrees(ctx, top, gitDir, from, to)
	if err != nil || len(changes) == 0 {
		return err
	}
	work, err := os.MkdirTemp("", "architect-apply-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)

	byPath := make(map[string]*change, len(changes))
	for i := range changes {
		c := &changes[i]
		byPath[c.path] = c
		if c.oldMode == gitlinkMode || c.newMode == gitlinkMode {
			return fmt.Errorf("apply a change to %s: %q is a submodule, which is not supported", top, c.path)
		}
	}
	done, err := checkTrees(ctx, top, work, changes, byPath)
	if err != nil {
		return err
	}
	// The folders files go into must be folders (or nothing yet, or a
	// file the change deletes): never a file or a symbolic link, which
	// would take a file outside the tree.
	var write []change
	for _, c := range changes {
		if c.status != 'D' && !done[c.path] {
			write = append(write, c)
		}
	}
	for _, c := range write {
		if err := parentsFree(top, c.path, byPath); err != nil {
			return err
		}
	}
	// Stage to's versions next to the working tree, then move them in.
	stage, err := stageDir(top, gitDir)
	if err != nil {
		return err
	}
	defer os.RemoveAll(stage)
	if len(write) > 0 {
		index := filepath.Join(work, "write")
		if err := indexOf(ctx, top, index, write, true); err != nil {
			return err
		}
		if err := run(ctx, top, Command{Env: []string{"GIT_INDEX_FILE=" + index}},
			"checkout-index", "--all", "--force", "--prefix="+stage+string(filepath.Separator)); err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err // nothing changed yet
	}
	return move(top, stage, changes, write, done)
}

// checkTrees finds, for ApplyTrees, the paths the change touches that
// already hold to's version (done), and refuses when one holds neither
// from's nor to's, or something stands where a file is to be added.
func checkTrees(ctx context.Context, top, work string, changes []change, byPath map[string]*change) (map[string]bool, error) {
	// Which touched paths do not hold from's version?
	var old []change
	for _, c := range changes {
		if c.status != 'A' {
			old = append(old, c)
		}
	}
	differ, err := differing(ctx, top, filepath.Join(work, "from"), old, false)
	if err != nil {
		return nil, err
	}
	// Paths to be added where something already is.
	for _, c := range changes {
		if c.status != 'A' {
			continue
		}
		info, err := os.Lstat(filepath.Join(top, c.path))
		switch {
		case missing(err):
		case err != nil:
			return nil, err
		case info.IsDir() && onlyDeleted(top, c.path, byPath):
			// A folder that the deletions empty (from's a/b, to's a).
		default:
			differ[c.path] = true
		}
	}
	// Those that hold to's version already are done; the others are
	// someone else's change.
	done := make(map[string]bool)
	if len(differ) > 0 {
		var check []change
		for _, p := range sortedKeys(differ) {
			c := byPath[p]
			if c.status == 'D' {
				if _, err := os.Lstat(filepath.Join(top, p)); missing(err) {
					done[p] = true
					continue
				}
				return nil, fmt.Errorf("%w: %s: %q was changed meanwhile (it is to be deleted)", ErrTreeMoved, top, p)
			}
			check = append(check, *c)
		}
		still, err := differing(ctx, top, filepath.Join(work, "to"), check, true)
		if err != nil {
			return nil, err
		}
		for _, c := range check {
			if still[c.path] {
				what := "was changed meanwhile (it holds neither the old version nor the new)"
				if c.status == 'A' {
					what = "in the way of a file to be added"
				}
				return nil, fmt.Errorf("%w: %s: %q is %s", ErrTreeMoved, top, c.path, what)
			}
			done[c.path] = true
		}
	}
	return done, nil
}

// move deletes the files the change deletes (and the folders that leaves
// empty), then renames each staged file to its place.
func move(top, stage string, changes, write []change, done map[string]bool) error {
	for _, c := range changes {
		if c.status != 'D' || done[c.path] {
			continue
		}
		if err := os.Remove(filepath.Join(top, c.path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		removeEmptyParents(top, c.path)
	}
	for _, c := range write {
		dst := filepath.Join(top, c.path)
		if err := os.MkdirAll(filepath.Dir(dst), 0o777); err != nil {
			return err
		}
		if err := os.Rename(filepath.Join(stage, c.path), dst); err != nil {
			return err
		}
	}
	return nil
}

const gitlinkMode = "160000"

// topOf returns the working tree's top-level folder and git folder, and
// refuses a dir that is not the top.
func topOf(ctx context.Context, dir string) (top, gitDir string, err error) {
	out, err := output(ctx, dir, "rev-parse", "--show-toplevel", "--absolute-git-dir")
	if err != nil {
		return "", "", err
	}
	top, gitDir, ok := strings.Cut(out, "\n")
	if !ok || top == "" {
		return "", "", fmt.Errorf("git rev-parse: unexpected output %q", out)
	}
	if !samePath(top, dir) {
		return "", "", fmt.Errorf("apply a change to %s: not the top-level folder of its working tree (%s)", dir, top)
	}
	return top, gitDir, nil
}

// missing reports whether err from Lstat says nothing is there: not
// there, or a file where a folder on the way was expected.
func missing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// diffTrees lists the paths that differ between from and to, without
// rename detection.
func diffTrees(ctx context.Context, top, gitDir, from, to string) ([]change, error) {
	var out bytes.Buffer
	noIndex := "GIT_INDEX_FILE=" + filepath.Join(gitDir, "architect-no-index.d", "index")
	err := run(ctx, top, Command{Env: []string{noIndex}, Stdout: &out},
		"diff-tree", "-r", "-z", "--raw", "--no-renames", "--no-ext-diff", "--no-textconv", from, to, "--")
	if err != nil {
		return nil, err
	}
	var changes []change
	fields := bytes.Split(out.Bytes(), []byte{0})
	for i := 0; i+1 < len(fields); i += 2 {
		head := strings.Fields(strings.TrimPrefix(string(fields[i]), ":"))
		if len(head) != 5 || head[4] == "" {
			return nil, fmt.Errorf("git diff-tree: unexpected output %q", fields[i])
		}
		changes = append(changes, change{
			oldMode: head[0], newMode: head[1], oldOID: head[2], newOID: head[3],
			status: head[4][0], path: string(fields[i+1]),
		})
	}
	return changes, nil
}

// indexOf writes a new index file at index holding each change's old (or,
// with after, new) entry, with no stat data.
func indexOf(ctx context.Context, top, index string, cs []change, after bool) error {
	var in bytes.Buffer
	for _, c := range cs {
		mode, oid := c.oldMode, c.oldOID
		if after {
			mode, oid = c.newMode, c.newOID
		}
		fmt.Fprintf(&in, "%s %s\t%s\x00", mode, oid, c.path)
	}
	return run(ctx, top, Command{Env: []string{"GIT_INDEX_FILE=" + index}, Stdin: &in},
		"update-index", "-z", "--index-info")
}

// differing returns the paths among cs whose file in the working tree is
// not their old (or, with after, new) version, compared as git compares: a
// temporary index of just those entries, with no stat data, is refreshed
// (which reads each file and compares its content, after filters, and its
// mode), then diff-files lists what still differs, missing files included.
func differing(ctx context.Context, top, index string, cs []change, after bool) (map[string]bool, error) {
	differ := make(map[string]bool)
	if len(cs) == 0 {
		return differ, nil
	}
	if err := indexOf(ctx, top, index, cs, after); err != nil {
		return nil, err
	}
	c := Command{Env: []string{"GIT_INDEX_FILE=" + index}}
	err := run(ctx, top, c, "update-index", "-q", "--ignore-missing", "--refresh")
	if err != nil && ExitCode(err) != 1 { // 1: some entry needs an update
		return nil, err
	}
	var out bytes.Buffer
	c.Stdout = &out
	if err := run(ctx, top, c, "diff-files", "-z", "--name-only", "--no-ext-diff"); err != nil {
		return nil, err
	}
	for _, p := range bytes.Split(out.Bytes(), []byte{0}) {
		if len(p) > 0 {
			differ[string(p)] = true
		}
	}
	return differ, nil
}

// onlyDeleted reports whether every file under the folder top/dir is a
// path the change deletes, so that removing them empties it.
func onlyDeleted(top, dir string, byPath map[string]*change) bool {
	ok := true
	err := filepath.WalkDir(filepath.Join(top, dir), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(top, p)
		if err != nil {
			return err
		}
		if c := byPath[filepath.ToSlash(rel)]; c == nil || c.status != 'D' {
			ok = false
			return filepath.SkipAll
		}
		return nil
	})
	return ok && err == nil
}

// parentsFree checks that each folder above path is a folder, nothing yet,
// or a file the change deletes.
func parentsFree(top, path string, byPath map[string]*change) error {
	parts := strings.Split(path, "/")
	for i := 1; i < len(parts); i++ {
		p := strings.Join(parts[:i], "/")
		info, err := os.Lstat(filepath.Join(top, p))
		if missing(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if info.IsDir() {
			continue
		}
		if c := byPath[p]; c != nil && c.status == 'D' {
			return nil
		}
		return fmt.Errorf("%w: %s: %q is in the way of %q (a file or symbolic link where a folder goes)", ErrTreeMoved, top, p, path)
	}
	return nil
}

// removeEmptyParents removes the folders above path that are left empty,
// up to top, as git does when it deletes a file.
func removeEmptyParents(top, path string) {
	for dir := filepath.Dir(path); dir != "." && dir != "/"; dir = filepath.Dir(dir) {
		if os.Remove(filepath.Join(top, dir)) != nil {
			return
		}
	}
}

// stageDir makes the staging folder for to's files: in the git folder,
// out of the working tree's sight, when that is on the same file system
// (a rename must not cross one); otherwise a hidden folder at the top of
// the working tree.
func stageDir(top, gitDir string) (string, error) {
	if sameDevice(top, gitDir) {
		return os.MkdirTemp(gitDir, "architect-apply-")
	}
	return os.MkdirTemp(top, ".architect-apply-")
}

func sameDevice(a, b string) bool {
	ia, err := os.Stat(a)
	if err != nil {
		return false
	}
	ib, err := os.Stat(b)
	if err != nil {
		return false
	}
	da, ok1 := device(ia)
	db, ok2 := device(ib)
	return ok1 && ok2 && da == db
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
