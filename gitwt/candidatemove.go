package gitwt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
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

// MoveCandidate brings the candidate worktree at wt, in the state end
// describes, to commit, with the result ResetCandidate gives, touching
// only the paths in end.Touched and in the diff from Head's tree to
// commit's: no lstat of the other tracked files, no walk of the other
// folders, one read and one write of the index.
//
//   - `git checkout --no-overlay COMMIT -- PATHS` (hooks off) makes those
//     paths commit's in the index and the worktree: files written by git's
//     own checkout (filters, modes, symbolic links, a folder or file in the
//     way removed) with their stat data in the index, so that the next
//     `git status` reads no file and rewrites nothing; files commit does
//     not have deleted, and the folders that leaves empty.
//   - What is left of the other touched paths (untracked files and folders
//     the round made), and of the folders above them that commit does not
//     hold, goes to `git clean -d` limited to them: what it removes, how
//     (an untracked folder whole, unless it holds an ignored file or a
//     repository of its own) and what it leaves (ignored files, keep) are
//     git's own rules, as in ResetCandidate. Nothing left: no git clean.
//   - HEAD is detached at commit (`update-ref --no-deref`, checked against
//     Head).
//
// It refuses, with an error wrapping ErrCandidateMoved, when HEAD is not
// end.Head; when the worktree's tree differs from Head's in a path
// end.Touched does not cover (something changed that the caller did not
// see); when a .gitignore file is in either diff (what git clean removes
// anywhere in the tree may then change); when a path holds a line feed;
// or when a submodule is involved. An error may leave the worktree half
// moved. Either way the caller brings it to commit with ResetCandidate,
// which makes no assumption.
func (r *Repo) MoveCandidate(ctx context.Context, wt string, end CandidateEnd, commit string, keep []string) error {
	if !filepath.IsAbs(wt) {
		return fmt.Errorf("candidate worktree %q: the path must be absolute", wt)
	}
	top := filepath.Clean(wt)
	if !r.isOwnWorktree(top) {
		return fmt.Errorf("candidate worktree %s: not a worktree of this repository", wt)
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
		if strings.Contains(p, "\n") || p == "" {
			return fmt.Errorf("%w: %s: a path git cannot be asked about line by line: %q", ErrCandidateMoved, top, p)
		}
	}
	mv, err := planMove(ctx, top, gitDir, end, to)
	if err != nil {
		return err
	}
	if len(mv.checkout) > 0 {
		var in bytes.Buffer
		for _, p := range mv.checkout {
			in.WriteString(p)
			in.WriteByte(0)
		}
		c := Command{Env: []string{"GIT_LITERAL_PATHSPECS=1"}, Stdin: &in}
		if err := run(ctx, top, c, "-c", "core.hooksPath="+os.DevNull, "checkout", "--quiet", "--no-overlay",
			to, "--pathspec-from-file=-", "--pathspec-file-nul"); err != nil {
			return err
		}
	}
	clean, err := leftToClean(ctx, top, to, mv.clean)
	if err != nil {
		return err
	}
	if len(clean) > 0 {
		args := []string{"clean", "-d", "--force", "--quiet"}
		for _, k := range keep {
			args = append(args, "-e", keepPattern(k))
		}
		args = append(append(args, "--"), LiteralSpecs(clean)...)
		if err := run(ctx, top, Command{}, args...); err != nil {
			return err
		}
	}
	return run(ctx, top, Command{}, "update-ref", "--no-deref", "-m", "architect: candidate brought to "+to, "HEAD", to, head)
}

// candMove is what MoveCandidate does to a worktree.
type candMove struct {
	checkout []string // paths commit changes against Head, and commit's files under the touched paths
	clean    []string // the other touched paths and paths commit deletes
}

// planMove finds what MoveCandidate does: the diffs of Head's tree with the
// worktree's (which end.Touched must cover) and with commit's, and
// commit's files under the touched paths.
func planMove(ctx context.Context, top, gitDir string, end CandidateEnd, to string) (candMove, error) {
	var mv candMove
	own, err := diffTrees(ctx, top, gitDir, end.Head, end.Tree)
	if err != nil {
		return mv, err
	}
	moved, err := diffTrees(ctx, top, gitDir, end.Head, to)
	if err != nil {
		return mv, err
	}
	if err := refuseMove(top, own, moved, end.Touched); err != nil {
		return mv, err
	}
	// Each path's fate: a file of commit (checked out), or not (cleaned).
	file := map[string]bool{}
	for _, c := range moved {
		file[c.path] = c.newMode != "000000"
		mv.checkout = append(mv.checkout, c.path) // in the index or in commit: the pathspec matches
	}
	under, err := filesUnder(ctx, top, to, end.Touched)
	if err != nil {
		return mv, err
	}
	for _, p := range under {
		if _, known := file[p]; !known {
			mv.checkout = append(mv.checkout, p)
		}
		file[p] = true
	}
	for _, p := range end.Touched {
		if _, known := file[p]; !known {
			file[p] = false
		}
	}
	for p, f := range file {
		if !f {
			mv.clean = append(mv.clean, p)
		}
	}
	// A path under a file of commit (the index's a/b where commit has a
	// file a) is taken by that file's pathspec: git checkout drops a/b
	// from the index when it reads a, then finds nothing a/b matches.
	mv.checkout = slices.DeleteFunc(mv.checkout, func(p string) bool {
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			if file[d] {
				return true
			}
		}
		return false
	})
	slices.Sort(mv.checkout)
	slices.Sort(mv.clean)
	return mv, nil
}

// refuseMove refuses what MoveCandidate cannot vouch for: a submodule, a
// .gitignore changed, a path with a line feed, in either diff; a change of
// the worktree (own) that touched does not cover.
func refuseMove(top string, own, moved []change, touched []string) error {
	for _, cs := range [][]change{own, moved} {
		for _, c := range cs {
			switch {
			case c.oldMode == gitlinkMode || c.newMode == gitlinkMode:
				return fmt.Errorf("%w: %s: %q is a submodule", ErrCandidateMoved, top, c.path)
			case c.path == ".gitignore" || strings.HasSuffix(c.path, "/.gitignore"):
				// What git clean removes anywhere in the tree changes with it.
				return fmt.Errorf("%w: %s: %q changes what git ignores", ErrCandidateMoved, top, c.path)
			case strings.Contains(c.path, "\n"):
				return fmt.Errorf("%w: %s: a path git cannot be asked about line by line: %q", ErrCandidateMoved, top, c.path)
			}
		}
	}
	seen := make(pathCover, len(touched))
	for _, p := range touched {
		seen[p] = true
	}
	for _, c := range own {
		if !seen.covers(c.path) {
			return fmt.Errorf("%w: %s: %q changed, and the round was not seen touching it", ErrCandidateMoved, top, c.path)
		}
	}
	return nil
}

// filesUnder lists commit's files at or under paths (a folder stands for
// all in it), refusing a submodule.
func filesUnder(ctx context.Context, top, commit string, paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	var ls bytes.Buffer
	args := append([]string{"ls-tree", "-r", "-z", "--full-tree", commit, "--"}, paths...)
	if err := run(ctx, top, Command{Env: []string{"GIT_LITERAL_PATHSPECS=1"}, Stdout: &ls}, args...); err != nil {
		return nil, err
	}
	var files []string
	for _, rec := range bytes.Split(ls.Bytes(), []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		head, p, ok := strings.Cut(string(rec), "\t")
		if !ok {
			return nil, fmt.Errorf("git ls-tree: unexpected output %q", rec)
		}
		if strings.HasPrefix(head, gitlinkMode) {
			return nil, fmt.Errorf("%w: %s: %q is a submodule", ErrCandidateMoved, top, p)
		}
		files = append(files, p)
	}
	return files, nil
}

// leftToClean returns what git clean is to be given once the index is
// commit's: those of paths still there, and the folders above them that
// commit does not hold (untracked: git clean -d decides whether each goes,
// as a whole), none inside another (given both "a" and "a/b", git clean
// goes down to a/b and leaves the folder a, which it removes whole when
// given "a" alone).
func leftToClean(ctx context.Context, top, commit string, paths []string) ([]string, error) {
	var there []string
	above := map[string]bool{}
	for _, p := range paths {
		if _, err := os.Lstat(filepath.Join(top, filepath.FromSlash(p))); err != nil {
			if missing(err) {
				continue
			}
			return nil, err
		}
		there = append(there, p)
		for d := path.Dir(p); d != "." && !above[d]; d = path.Dir(d) {
			above[d] = true
		}
	}
	if len(there) == 0 {
		return nil, nil
	}
	if len(above) > 0 {
		dirs := slices.Sorted(maps.Keys(above))
		trees, err := treesIn(ctx, top, commit, dirs)
		if err != nil {
			return nil, err
		}
		for _, d := range dirs {
			if !trees[d] {
				there = append(there, d)
			}
		}
	}
	slices.Sort(there)
	var outer []string
	for _, p := range there {
		if n := len(outer); n > 0 && strings.HasPrefix(p, outer[n-1]+"/") {
			continue
		}
		outer = append(outer, p)
	}
	return outer, nil
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

// pathCover is a set of paths, a folder standing for all in it.
type pathCover map[string]bool

// covers reports whether p or a folder above it is in the set.
func (s pathCover) covers(p string) bool {
	for ; p != "." && p != "/" && p != ""; p = path.Dir(p) {
		if s[p] {
			return true
		}
	}
	return false
}
