package gitwt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ErrCandidateMoved: MoveCandidate found the candidate's worktree other
// than it was told (HEAD elsewhere, a submodule, a path it cannot name);
// the caller resets it with ResetCandidate instead.
var ErrCandidateMoved = errors.New("the candidate's worktree is not as its round left it")

// CandidateEnd is what the loop knows of a candidate's worktree once the
// last process of its round has ended.
type CandidateEnd struct {
	// Head is the commit HEAD is detached at. The worktree's index holds
	// Head's tree, with stat data that is right for every file outside
	// Touched (it was written by a checkout, or by a commit of the
	// candidate's change, and nothing but that commit wrote it since).
	Head string
	// Tree is the worktree's content as `git add -A` stages it (less what
	// git ignores), taken after the last process that could write in the
	// worktree ended.
	Tree string
	// Touched are the paths created, written, deleted or chmodded in the
	// worktree since it was last brought to a commit, relative to its top
	// folder; a folder stands for everything in it. Every file not in it
	// is as that commit's checkout left it.
	Touched []string
}

// MoveCandidate brings the candidate worktree at path, in the state end
// describes, to commit, with the result ResetCandidate gives, touching
// only the paths in end.Touched and in the two diffs that matter (from
// Head's tree to the worktree's, and to commit's): no lstat of the other
// tracked files, no walk of the other folders.
//
//   - The files commit deletes that Head tracks are deleted, and the
//     folders that leaves empty, as `git checkout` deletes them.
//   - The index entries commit changes are set to commit's (`update-index
//     --index-info`), then every file of commit among those paths is
//     written by `git checkout-index --force -u` (git's own checkout:
//     filters, modes, symbolic links, a folder or file in the way removed)
//     with its stat data in the index, so that the next `git status`
//     reads no file and rewrites nothing.
//   - The other paths, and every folder above them that commit does not
//     hold, go to `git clean -d` limited to them: what it removes, how
//     (an untracked folder whole, unless it holds an ignored file or a
//     repository of its own) and what it leaves (ignored files, keep) are
//     git's own rules, as in ResetCandidate.
//   - HEAD is detached at commit (`update-ref --no-deref`, checked
//     against Head).
//
// It refuses, with an error wrapping ErrCandidateMoved, when HEAD is not
// end.Head, a .gitignore file is in either diff (what git clean removes
// anywhere in the tree may then change), a path holds a line feed, or a
// submodule is involved; an error
// may leave the worktree half moved. Either way the caller brings it to
// commit with ResetCandidate, which makes no assumption.
func (r *Repo) MoveCandidate(ctx context.Context, path string, end CandidateEnd, commit string, keep []string) error {
	if !filepath.IsAbs(path) {
		return fmt.Errorf("candidate worktree %q: the path must be absolute", path)
	}
	top := filepath.Clean(path)
	if !r.isOwnWorktree(top) {
		return fmt.Errorf("candidate worktree %s: not a worktree of this repository", path)
	}
	out, err := output(ctx, top, "rev-parse", "--absolute-git-dir", "HEAD", commit+"^{commit}")
	if err != nil {
		return err
	}
	lines := strings.Split(out, "\n")
	if len(lines) != 3 {
		return fmt.Errorf("git rev-parse: unexpected output %q", out)
	}
	gitDir, head, to := lines[0], lines[1], lines[2]
	if head != end.Head {
		return fmt.Errorf("%w: %s: HEAD is at %s, not at %s", ErrCandidateMoved, top, head, end.Head)
	}
	for _, p := range end.Touched {
		if strings.ContainsAny(p, "\n") || p == "" {
			return fmt.Errorf("%w: %s: a path git cannot be asked about line by line: %q", ErrCandidateMoved, top, p)
		}
	}
	mv, err := r.planMove(ctx, top, gitDir, end, to)
	if err != nil {
		return err
	}
	// Files commit no longer tracks: deleted as git checkout deletes them.
	for _, c := range mv.index {
		if c.newMode != "000000" {
			continue
		}
		if err := removeTracked(top, c.path); err != nil {
			return err
		}
	}
	if len(mv.index) > 0 {
		var in bytes.Buffer
		zero := strings.Repeat("0", len(to))
		for _, c := range mv.index { // removals first: a file and a folder of the same name
			if c.newMode == "000000" {
				fmt.Fprintf(&in, "0 %s\t%s\x00", zero, c.path)
			}
		}
		for _, c := range mv.index {
			if c.newMode != "000000" {
				fmt.Fprintf(&in, "%s %s\t%s\x00", c.newMode, c.newOID, c.path)
			}
		}
		if err := run(ctx, top, Command{Stdin: &in}, "update-index", "-z", "--index-info"); err != nil {
			return err
		}
	}
	if len(mv.write) > 0 {
		var in bytes.Buffer
		for _, p := range mv.write {
			in.WriteString(p)
			in.WriteByte(0)
		}
		if err := run(ctx, top, Command{Stdin: &in}, "checkout-index", "--force", "-u", "-z", "--stdin"); err != nil {
			return err
		}
	}
	if len(mv.clean) > 0 {
		args := []string{"clean", "-d", "--force", "--quiet"}
		for _, k := range keep {
			args = append(args, "-e", keepPattern(k))
		}
		args = append(append(args, "--"), LiteralSpecs(mv.clean)...)
		if err := run(ctx, top, Command{}, args...); err != nil {
			return err
		}
	}
	return run(ctx, top, Command{}, "update-ref", "--no-deref", "-m", "architect: candidate brought to "+to, "HEAD", to, head)
}

// candMove is what MoveCandidate does to a worktree.
type candMove struct {
	index []change // the entries commit changes against Head (newMode "000000": removed)
	write []string // commit's files among the paths touched, to be written
	clean []string // the other paths, and the folders above them commit does not hold
}

// planMove finds what MoveCandidate does: the diffs of Head's tree with the
// worktree's and with commit's, commit's files under the touched paths,
// and which folders above the other paths commit does not hold.
func (r *Repo) planMove(ctx context.Context, top, gitDir string, end CandidateEnd, to string) (candMove, error) {
	var mv candMove
	own, err := diffTrees(ctx, top, gitDir, end.Head, end.Tree)
	if err != nil {
		return mv, err
	}
	if mv.index, err = diffTrees(ctx, top, gitDir, end.Head, to); err != nil {
		return mv, err
	}
	// Each path's entry in commit, where known: changed from Head's, or
	// Head's own where only the worktree changed it.
	inTo := map[string]bool{}
	seen := map[string]bool{}
	for _, c := range mv.index {
		seen[c.path] = true
		inTo[c.path] = c.newMode != "000000"
	}
	for _, c := range own {
		if !seen[c.path] {
			seen[c.path] = true
			inTo[c.path] = c.oldMode != "000000"
		}
	}
	for _, cs := range [][]change{own, mv.index} {
		for _, c := range cs {
			if c.oldMode == gitlinkMode || c.newMode == gitlinkMode {
				return mv, fmt.Errorf("%w: %s: %q is a submodule", ErrCandidateMoved, top, c.path)
			}
			if c.path == ".gitignore" || strings.HasSuffix(c.path, "/.gitignore") {
				// What git clean removes anywhere in the tree changes with it.
				return mv, fmt.Errorf("%w: %s: %q changes what git ignores", ErrCandidateMoved, top, c.path)
			}
			if strings.Contains(c.path, "\n") {
				return mv, fmt.Errorf("%w: %s: a path git cannot be asked about line by line: %q", ErrCandidateMoved, top, c.path)
			}
		}
	}
	// commit's files under the touched paths (a folder stands for all in it).
	if len(end.Touched) > 0 {
		var ls bytes.Buffer
		args := append([]string{"ls-tree", "-r", "-z", "--full-tree", to, "--"}, end.Touched...)
		if err := run(ctx, top, Command{Env: []string{"GIT_LITERAL_PATHSPECS=1"}, Stdout: &ls}, args...); err != nil {
			return mv, err
		}
		for _, rec := range bytes.Split(ls.Bytes(), []byte{0}) {
			if len(rec) == 0 {
				continue
			}
			head, p, ok := strings.Cut(string(rec), "\t")
			if !ok {
				return mv, fmt.Errorf("git ls-tree: unexpected output %q", rec)
			}
			if strings.HasPrefix(head, gitlinkMode) {
				return mv, fmt.Errorf("%w: %s: %q is a submodule", ErrCandidateMoved, top, p)
			}
			seen[p] = true
			inTo[p] = true
		}
		for _, p := range end.Touched {
			if !seen[p] {
				seen[p] = true
				inTo[p] = false
			}
		}
	}
	for p, file := range inTo {
		if file {
			mv.write = append(mv.write, p)
		} else {
			mv.clean = append(mv.clean, p)
		}
	}
	// A folder above a path to clean that commit does not hold is
	// untracked once the index is commit's: git clean -d decides whether
	// it goes, as a whole.
	above := map[string]bool{}
	for _, p := range mv.clean {
		for d := filepath.ToSlash(filepath.Dir(p)); d != "." && !above[d]; d = filepath.ToSlash(filepath.Dir(d)) {
			above[d] = true
		}
	}
	var dirs []string
	if len(above) > 0 {
		dirs = slices.Sorted(func(yield func(string) bool) {
			for d := range above {
				if !inTo[d] && !yield(d) {
					return
				}
			}
		})
	}
	if len(dirs) > 0 {
		trees, err := treesIn(ctx, top, to, dirs)
		if err != nil {
			return mv, err
		}
		for _, d := range dirs {
			if !trees[d] {
				mv.clean = append(mv.clean, d)
			}
		}
	}
	slices.Sort(mv.write)
	// A path inside another one to clean is left to that one: given both
	// "a" and "a/b", git clean goes down to a/b and leaves the folder a,
	// which it removes whole when given "a" alone.
	slices.Sort(mv.clean)
	var outer []string
	for _, p := range mv.clean {
		if n := len(outer); n > 0 && strings.HasPrefix(p, outer[n-1]+"/") {
			continue
		}
		outer = append(outer, p)
	}
	mv.clean = outer
	return mv, nil
}

// treesIn reports which of dirs are folders (trees) in commit, with one
// `git cat-file --batch-check`.
func treesIn(ctx context.Context, top, commit string, dirs []string) (map[string]bool, error) {
	var in, out bytes.Buffer
	for _, d := range dirs {
		in.WriteString(commit + ":" + d + "\n")
	}
	if err := run(ctx, top, Command{Stdin: &in, Stdout: &out}, "cat-file", "--batch-check=%(objecttype)"); err != nil {
		return nil, err
	}
	answers := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(answers) != len(dirs) {
		return nil, fmt.Errorf("git cat-file: %d answers to %d questions", len(answers), len(dirs))
	}
	trees := make(map[string]bool, len(dirs))
	for i, a := range answers {
		trees[dirs[i]] = a == "tree"
	}
	return trees, nil
}

// removeTracked deletes the file (or symbolic link) at path as `git
// checkout` deletes a file the commit it checks out no longer tracks:
// gone already is fine; a folder there is left (git clean decides); a
// file reached through a symbolic link or a file on the way is not
// touched; the folders above it left empty go.
func removeTracked(top, path string) error {
	parts := strings.Split(path, "/")
	for i := 1; i < len(parts); i++ {
		info, err := os.Lstat(filepath.Join(top, filepath.FromSlash(strings.Join(parts[:i], "/"))))
		if missing(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if !info.IsDir() {
			return nil // a symbolic link or a file on the way: nothing of ours there
		}
	}
	full := filepath.Join(top, filepath.FromSlash(path))
	info, err := os.Lstat(full)
	switch {
	case missing(err):
	case err != nil:
		return err
	case info.IsDir():
		return nil
	default:
		if err := os.Remove(full); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	removeEmptyParents(top, path)
	return nil
}
