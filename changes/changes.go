// Package changes says what changed in a working tree since the last look,
// at a cost that grows with the change rather than with the tree: a
// watcher (inotify) names the paths that may have changed, a private index
// (never the user's) stages them, in place where it can (written here, as
// git would) and through git elsewhere, and the diff against the run's
// base is kept file by file, with its stat. Commit commits what was staged
// as `git add -A && git commit` would. It runs git through gitwt.
package changes

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/architect-dev/architect/gitwt"
)

// ChangesOptions say how a Changes follows the working tree.
type ChangesOptions struct {
	// Watch the tree (Linux, inotify), so that each diff looks only at the
	// paths that changed since the last one, and at nothing when nothing
	// did. Without, or where watching is not possible, each diff looks at
	// the whole tree.
	Watch bool
	// Commits: the caller will Commit. Each diff then stages the tree into
	// the private index, as `git add -A` would, and writes its tree, which
	// the commit takes as it is. Without, new files are only marked as to
	// be added (`git add -N`) and nothing is written to the object database.
	Commits bool
	// Clean: the working tree is the base commit as just checked out by
	// the caller (AddWorktree), which nothing has touched since. The diff
	// is then known to be empty without a look at the tree, and the
	// watcher starts without asking git which folders it ignores (a fresh
	// checkout has no untracked file).
	Clean bool
	// Watcher: a Watcher the caller keeps across several Changes (Watch),
	// used instead of starting one. What it saw before New is dropped
	// (with Clean, that is the checkout the caller just made); Close
	// leaves it running.
	Watcher *Watcher
}

// Changes is the working tree's diff against one base, kept up to date at
// a cost that grows with what changed rather than with the tree.
//
// It keeps the diff as segments, one per file, and a private index (see
// privateIndex). When the Watcher can say which paths changed, a diff
// stages only those (`git add -- PATHS`) and asks git for only their part
// of the diff (`git diff-index` or `git diff-tree` limited to them); the
// other files' segments are kept. Rename detection pairs deleted with added
// files across the whole diff, so when the change adds, deletes or renames
// a file, every file the diff adds or deletes is asked for again with it.
// The result is the diff a full comparison would give, byte for byte (the
// property TestChangesMatchAFreshDiff checks). When the watcher cannot say
// (no watcher, events lost, ignore rules or attributes changed, the index
// written by someone else), the private index is seeded again from the
// working tree's own and the whole tree is compared.
type Changes struct {
	repo     *gitwt.Repo
	base     string // the commit compared with; "" for none (the empty tree)
	excludes []string
	limit    int
	keep     int64 // segments starting this far into the diff keep their first bytes
	stage    bool  // see ChangesOptions.Commits
	w        *Watcher
	sharedW  bool          // w is the caller's (ChangesOptions.Watcher)
	index    *privateIndex // nil until the first diff
	baseRev  string        // base, or the empty tree

	segs           []segment
	tree           string // with stage: the tree the segments compare with base
	valid          bool   // segs (and tree) are the tree as of the last Take
	last           Diff
	committed      string // the tree last committed here
	committedLeave string // the files that commit left out, sorted, NUL-separated
	realTree       string // with stage: the tree of the working tree's index; "" when not known
	untracked      struct {
		trees [2]string // realTree and tree when paths was listed
		paths []string
	}
	cfg       *commitConfig
	removed   pathSet // paths removed from the private index since it was the working tree's
	noSplit   bool    // the private index cannot be given a split view (writetree.go)
	noInPlace bool    // git refused a stage in place (inplace.go): not again
	// touched are the paths the watcher reported since New (Touched);
	// touchedLost: not all of them are known.
	touched     pathSet
	touchedLost bool
	counts      struct {
		all, paths, fallback, refetch int // updates of each kind
		split, inPlace                int // trees written through a split view, stages in place
	} // for tests
}

// Changes returns a Changes against base with Diff's excludes and limit.
// Watching is a best effort: where it is not possible, every diff looks at
// the whole tree. Close releases the watch and the private index.
func New(ctx context.Context, r *gitwt.Repo, base string, excludes []string, limit int, opts ChangesOptions) *Changes {
	c := &Changes{repo: r, base: base, excludes: excludes, limit: max(limit, 0), stage: opts.Commits, touched: pathSet{}}
	c.keep = 4 * int64(c.limit)
	switch {
	case opts.Watcher != nil:
		c.w, c.sharedW = opts.Watcher, true
		c.w.Take(ctx)
	case opts.Watch:
		if w, err := watch(ctx, r, excludes, opts.Clean); err == nil {
			c.w = w
		}
	}
	if opts.Clean && c.w != nil {
		c.valid = c.startClean(ctx) == nil
	}
	return c
}

// startClean takes the tree as the base's, with no look at it.
func (c *Changes) startClean(ctx context.Context) error {
	if err := c.reseed(ctx); err != nil {
		return err
	}
	if c.stage {
		tree, err := c.repo.Output(ctx, "rev-parse", "--verify", "--quiet", c.baseRev+"^{tree}")
		if err != nil {
			return err
		}
		c.tree, c.realTree = tree, tree
	}
	c.segs = nil
	c.last, _ = compose(nil, c.limit)
	return nil
}

// Diff returns the working tree's diff against the base, as Compare.
func (c *Changes) Diff(ctx context.Context) (Diff, error) {
	changed := Changed{All: true}
	if c.w != nil {
		changed = c.w.Take(ctx)
		c.noteTouched(changed)
		if cfg, err := c.config(ctx); err != nil || cfg.foldNames {
			// git matches paths by more than their bytes: what `git add -A
			// -- PATHS` stages then differs from what `git add -A` does,
			// which is not even the same twice in a row (a file renamed to
			// a name differing only in case is dropped, then taken). Look
			// at everything each time, as git would.
			changed.All = true
			c.touchedLost = true
		}
	}
	if changed.Index {
		// Someone ran git: look at everything only if the index now
		// tracks or stages something else (not when `git status` merely
		// refreshed it). What is tracked decides which folders matter,
		// so the watcher looks again too, even when something else (an
		// attributes file) already calls for a look at everything: a
		// file added by force in an ignored folder makes that folder one
		// to watch.
		others := true
		if c.valid {
			o, err := c.index.changedByOthers(c.oidLen())
			others = o || err != nil
		}
		if others {
			changed.All = true
			c.touchedLost = true
			c.w.Rescan(ctx)
		}
	}
	if c.valid && !changed.All && len(changed.Paths) == 0 {
		return c.last, nil
	}
	full := !c.valid || changed.All
	c.valid = false // until this update succeeds: the paths taken are not lost
	var err error
	if !full {
		if err = c.syncPaths(ctx, changed); err != nil && ctx.Err() == nil {
			c.counts.fallback++
			full = true // git refused a path (one in a submodule, say): look at everything
		}
	}
	if full {
		err = c.syncAll(ctx)
	}
	if err != nil {
		return Diff{}, err
	}
	d, err := c.compose(ctx)
	if err != nil {
		return Diff{}, err
	}
	trimHeads(c.segs, c.keep)
	c.last, c.valid = d, true
	return d, nil
}

// compose builds the diff from the segments, asking git again for those
// near its start whose first bytes were not kept (the diff before them
// shrank).
func (c *Changes) compose(ctx context.Context) (Diff, error) {
	for try := 0; try < 4; try++ {
		d, need := compose(c.segs, c.limit)
		if need == nil {
			return d, nil
		}
		if try == 2 { // the tree keeps changing meanwhile
			if err := c.syncAll(ctx); err != nil {
				return Diff{}, err
			}
			continue
		}
		c.counts.refetch++
		var paths []string
		for _, i := range need {
			paths = append(paths, c.segs[i].paths()...)
		}
		if err := c.rediff(ctx, paths); err != nil {
			return Diff{}, err
		}
	}
	return Diff{}, errors.New("the working tree kept changing while its diff was read")
}

// syncAll seeds the private index from the working tree's own and compares
// the whole tree.
func (c *Changes) syncAll(ctx context.Context) error {
	c.counts.all++
	if err := c.reseed(ctx); err != nil {
		return err
	}
	if c.stage {
		c.realTree = c.indexTree(ctx)
		rm := &removals{set: c.removed}
		if err := c.repo.Add(ctx, gitwt.Command{Env: c.index.env(), Stdout: rm}, nil, c.excludes, "-A", "-v"); err != nil {
			return err
		}
	} else if err := c.repo.Add(ctx, gitwt.Command{Env: c.index.env()}, nil, c.excludes, "--intent-to-add", "--no-all"); err != nil {
		return err
	}
	if err := c.writeTree(ctx, false); err != nil {
		return err
	}
	segs, err := c.diffRun(ctx, nil)
	if err != nil {
		return err
	}
	c.segs = segs
	return nil
}

// maxPathBytes bounds the paths given to git on one command line.
const maxPathBytes = 256 << 10

var errTooMany = errors.New("too many paths changed")

// syncPaths stages the paths that changed and compares them.
//
// A path only written in place existed at the last look, when git took it
// if it does not ignore it: it is tracked (or ignored) already, so that
// staging it needs no look for new files (`git add -u`), and marking new
// files as to be added nothing at all. Only paths that may have appeared
// cost git a look for new files (and a name hash of the whole index).
func (c *Changes) syncPaths(ctx context.Context, changed Changed) error {
	c.counts.paths++
	paths := changed.Paths
	appeared := newPathSet(changed.Appeared)
	present, gone, anyNew := c.presence(paths, appeared)
	// The watcher reports no excluded path, so the excludes are left off
	// git add's command line: with an exclusion pathspec that names a
	// tracked or missing path, git 2.39 silently skips new files given by
	// name. A changed folder holding an excluded one is looked at whole.
	if holdsExcluded(c.excludes, paths) {
		return errTooMany
	}
	if c.stage {
		if err := c.stagePaths(ctx, present, gone, anyNew); err != nil {
			return err
		}
	} else if anyNew {
		// --no-all: an entry is never removed, so that the index stays the
		// working tree's own plus new files (a deleted file shows as
		// deleted all the same).
		var fresh []string
		for _, p := range present {
			if appeared[p] {
				fresh = append(fresh, p)
			}
		}
		if err := c.repo.Add(ctx, gitwt.Command{Env: c.index.env()}, fresh, nil, "--intent-to-add", "--no-all"); err != nil {
			return err
		}
	}
	return c.rediff(ctx, paths)
}

// presence splits paths into those that exist and those gone, and says
// whether any that exists may have appeared.
func (c *Changes) presence(paths []string, appeared pathSet) (present, gone []string, anyNew bool) {
	for _, p := range paths {
		if _, err := os.Lstat(filepath.Join(c.repo.Dir(), filepath.FromSlash(p))); err == nil {
			present = append(present, p)
			anyNew = anyNew || appeared[p]
		} else {
			gone = append(gone, p)
		}
	}
	return present, gone, anyNew
}

// holdsExcluded reports whether one of paths is a folder holding one of
// excludes.
func holdsExcluded(excludes, paths []string) bool {
	for _, e := range excludes {
		e = strings.Trim(e, "/")
		for _, p := range paths {
			if strings.HasPrefix(e, p+"/") {
				return true
			}
		}
	}
	return false
}

// stagePaths stages present and gone into the private index and writes
// its tree: in place where it can, else with git.
func (c *Changes) stagePaths(ctx context.Context, present, gone []string, anyNew bool) error {
	// A path removed from the private index since it was last the
	// working tree's own, back now: whether git takes it again
	// depends on whether the working tree's index tracks it (an
	// ignored file that is tracked stays tracked). Rare enough: look
	// at everything from that index.
	if c.removedBack(present) {
		return errTooMany
	}
	if !c.noInPlace {
		// Files: staged in the size of the change.
		err := c.stageInPlace(ctx, present, gone)
		if err == nil {
			return nil
		}
		if !errors.Is(err, errNotInPlace) {
			if ctx.Err() != nil {
				return err
			}
			c.noInPlace = true // git or this reader disagree: as before from now on
		}
	}
	rm := &removals{set: c.removed}
	verbose := gitwt.Command{Env: c.index.env(), Stdout: rm}
	if len(gone) > 0 {
		// git add refuses a path that matches nothing, one created and
		// deleted since the last look for example; git rm does not.
		args := append([]string{"-c", "core.preloadIndex=false", "rm", "--cached", "-r", "-f", "--ignore-unmatch", "--"}, gitwt.LiteralSpecs(gone)...)
		if err := c.repo.Git(ctx, verbose, args...); err != nil {
			return err
		}
	}
	mode := "-u"
	if anyNew {
		mode = "-A"
	}
	if len(present) > 0 {
		if err := c.repo.Add(ctx, verbose, present, nil, mode, "-v"); err != nil {
			return err
		}
	}
	return c.writeTree(ctx, true)
}

// removedBack reports whether one of present, or a path in or above one,
// was removed from the private index since it was the working tree's own
// (or what was removed is not known).
func (c *Changes) removedBack(present []string) bool {
	if c.removed[""] && len(present) > 0 {
		return true // what was removed is not known
	}
	for _, p := range present {
		for r := range c.removed {
			if r == p || strings.HasPrefix(r, p+"/") || strings.HasPrefix(p, r+"/") {
				return true
			}
		}
	}
	return false
}

// rediff asks git for the diff of paths again and puts it in place of
// their segments. When that diff, or what it replaces, adds, deletes or
// renames a file, the files the rest of the diff adds or deletes are asked
// for with them, so that renames pair as in a full comparison.
func (c *Changes) rediff(ctx context.Context, paths []string) error {
	set := newPathSet(paths)
	fresh, err := c.diffRun(ctx, paths)
	if err != nil {
		return err
	}
	// Every file added, deleted or renamed, here or elsewhere in the diff
	// (a rename's old path may lie outside paths).
	pairing := anyCand(fresh)
	var cands []string
	outside := false
	for i := range c.segs {
		s := &c.segs[i]
		if !s.cand {
			continue
		}
		touched := set.touches(s)
		pairing = pairing || touched
		for _, p := range s.paths() {
			if !set.covers(p) {
				cands, outside = append(cands, p), true
			}
		}
	}
	if !pairing || !outside {
		c.segs = replace(c.segs, set, fresh)
		return nil
	}
	paths = append(paths, cands...)
	if fresh, err = c.diffRun(ctx, paths); err != nil {
		return err
	}
	c.segs = replace(c.segs, newPathSet(paths), fresh)
	return nil
}

func anyCand(segs []segment) bool {
	for i := range segs {
		if segs[i].cand {
			return true
		}
	}
	return false
}

// diffRun runs git's diff of the base with the tree (staged) or the
// working tree through the private index, limited to paths (nil: all),
// and cuts it into segments.
func (c *Changes) diffRun(ctx context.Context, paths []string) ([]segment, error) {
	specs := []string{"."}
	if paths != nil {
		if len(paths) > maxChanged*2 || specBytes(paths) > maxPathBytes {
			return nil, errTooMany
		}
		specs = gitwt.LiteralSpecs(paths)
	}
	// Plumbing, so that the user's diff settings (noprefix, external diff
	// tools, colours, order files) do not change what the agent reads.
	// Limited to a few paths, git's threads that look at every entry
	// (core.preloadIndex) cost more than they spare.
	args := []string{"-c", "core.quotePath=false", "-c", "core.preloadIndex=" + strconv.FormatBool(paths == nil), "diff-index"}
	revs := []string{c.baseRev}
	if c.stage {
		args[4] = "diff-tree"
		args = append(args, "-r")
		revs = append(revs, c.tree)
	}
	args = append(args, "-M", "--no-color", "--no-ext-diff", "--full-index", "-p", "--src-prefix=a/", "--dst-prefix=b/")
	args = append(append(append(args, revs...), "--"), specs...)
	env := c.index.env()
	if c.stage {
		env = c.repo.TreesOnly() // two trees: no index to read
	}
	seg := &segmenter{keep: c.keep, limit: c.limit}
	if err := c.repo.Git(ctx, gitwt.Command{Env: env, Stdout: seg}, append(args, gitwt.ExcludeSpecs(c.excludes)...)...); err != nil {
		return nil, err
	}
	seg.flush()
	return seg.segs, nil
}

// reseed makes the private index the working tree's own again.
func (c *Changes) reseed(ctx context.Context) error {
	if err := c.open(ctx); err != nil {
		return err
	}
	if err := c.index.seed(); err != nil {
		return err
	}
	c.removed = pathSet{}
	c.realTree = ""
	return nil
}

// open makes the private index and resolves the base, once.
func (c *Changes) open(ctx context.Context) error {
	if c.index == nil {
		p, err := newPrivateIndex(c.repo)
		if err != nil {
			return err
		}
		c.index = p
	}
	if c.baseRev == "" {
		rev := c.base
		var err error
		switch {
		case rev == "":
			rev, err = c.repo.EmptyTree(ctx)
		case len(rev) != 40 && len(rev) != 64: // a name, not a hash
			rev, err = c.repo.Output(ctx, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
		}
		if err != nil {
			return err
		}
		c.baseRev = rev
	}
	return nil
}

// config reads what a commit and a stage need from git's configuration,
// once.
func (c *Changes) config(ctx context.Context) (*commitConfig, error) {
	if c.cfg == nil {
		cfg, err := readCommitConfig(ctx, c.repo)
		if err != nil {
			return nil, err
		}
		c.cfg = cfg
	}
	return c.cfg, nil
}

// oidLen is the length in bytes of the repository's object names.
func (c *Changes) oidLen() int { return len(c.baseRev) / 2 }

// Touched returns the paths the watcher reported as changed (written,
// created, deleted, their mode changed; a folder for everything in it)
// from New to the last diff (Diff, Tree or Commit), in byte order, and
// whether that is all of them: not when there is no watcher, when it
// could not say which paths changed (events lost, too many paths, ignore
// rules changed), or when someone else than this Changes made the working
// tree's index track or stage something else (a git command run in the
// tree, a git hook of a commit here): it may then hold something else than
// HEAD's tree. An index only refreshed (`git status` writing fresher stat
// data) is no such change.
// Paths are relative to the top-level folder. What happened after the
// last diff is not in it: call Diff (or Tree) once the last process that
// could write in the tree has ended.
func (c *Changes) Touched() (paths []string, complete bool) {
	if c.w == nil || c.touchedLost {
		return nil, false
	}
	paths = make([]string, 0, len(c.touched))
	for p := range c.touched {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	return paths, true
}

// noteTouched adds what a Take reported to Touched.
func (c *Changes) noteTouched(changed Changed) {
	if changed.All || len(c.touched)+len(changed.Paths) > maxChanged {
		c.touchedLost = true
	}
	if c.touchedLost {
		return
	}
	for _, p := range changed.Paths {
		c.touched[p] = true
	}
}

// Close stops watching and removes the private index.
func (c *Changes) Close() error {
	if c == nil {
		return nil
	}
	c.valid = false
	var err error
	if !c.sharedW {
		err = c.w.Close()
	}
	if c.index != nil {
		if cerr := c.index.close(); err == nil {
			err = cerr
		}
		c.index = nil
	}
	return err
}

func specBytes(paths []string) int {
	n := 0
	for _, p := range paths {
		n += len(p) + len(":(top,literal)") + 1
	}
	return n
}

// removals collects the paths that `git add -v` and `git rm` say they
// removed from the index ("remove 'PATH'", "rm 'PATH'"), or "" where a
// line cannot be read.
type removals struct {
	set  pathSet
	line []byte
}

func (r *removals) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			if len(r.line) < 8<<10 {
				r.line = append(r.line, p...)
			}
			break
		}
		line := string(append(r.line, p[:i]...))
		r.line, p = r.line[:0], p[i+1:]
		read := false
		for _, prefix := range []string{"remove '", "rm '", "add '"} {
			if path, ok := strings.CutPrefix(line, prefix); ok && strings.HasSuffix(path, "'") {
				if prefix != "add '" {
					r.set[path[:len(path)-1]] = true
				}
				read = true
			}
		}
		if !read {
			// git prints paths as they are, one a line: a path holding a
			// line feed cannot be read back. "" (no path) says that what
			// was removed is not known.
			r.set[""] = true
		}
	}
	return n, nil
}
