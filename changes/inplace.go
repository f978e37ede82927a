package changes

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/architect-dev/architect/gitwt"
)

// When the change since the last look is files (written in place, new or
// deleted), staging them with `git add -- PATHS` on the private index costs
// a read and a whole write of that index, hashed with git's SHA-1: about
// 45 ms on a repository of 100,000 files, however small the change; and
// its tree written through the split view another read (writetree.go).
// stageInPlace does the same work in the size of the change:
//
//   - git stages the paths in an index of their entries alone (`git add`,
//     everything git does for them: ignore rules, filters, line endings
//     against the blob the entry had, the executable bit, links, fresh
//     stat data);
//   - the folders above them get their new trees from the old ones, read
//     with `git cat-file --batch`, entries replaced, added or removed
//     (folders made or emptied), named here and written with `git mktree
//     --batch`, which must name them the same;
//   - the private index is written again with those entries replaced,
//     added or removed and its tree cache brought up to date, without
//     git's whole-index SHA-1 (Go's, with the processor's instructions).
//
// The private index ends as `git add -A -- PATHS` and `git write-tree`
// would leave it (TestStageInPlace compares them field by field). Anything
// else (a folder among the paths, a file become a folder or the reverse,
// an index with entries that are not plain (to be added, skipped in the
// working tree, unmerged) or an extension other than the tree cache, a
// post-index-change hook that git would run) is staged by git on the
// private index, as before.

// errNotInPlace: the change is not one stageInPlace makes; the caller
// stages with git. Nothing was changed.
var errNotInPlace = errors.New("not a change in place")

// stageInPlace stages paths (files that exist) and gone (paths that do
// not) and writes the staged tree (c.tree).
func (c *Changes) stageInPlace(ctx context.Context, present, gone []string) error {
	cfg, err := c.config(ctx)
	if err != nil {
		return err
	}
	if fi, err := os.Stat(filepath.Join(cfg.hooks, "post-index-change")); err == nil && fi.Mode()&0o111 != 0 {
		return errNotInPlace // git would run it for the index it writes
	}
	data, err := c.index.read()
	if err != nil {
		return err
	}
	s, ok := newInPlace(data, c.oidLen(), present, gone)
	if !ok {
		return errNotInPlace
	}
	cache, ok := readTreeCache(data, s.end, s.oidLen)
	if !ok {
		return errNotInPlace
	}
	staged, err := c.stageAlone(ctx, s)
	if err != nil {
		return err
	}
	changes, ok := s.changes(staged)
	if !ok {
		return errNotInPlace
	}
	root, mk, err := c.treesAfter(ctx, changes, s.oidLen)
	if err != nil {
		return err
	}
	if err := c.makeTrees(ctx, mk); err != nil {
		return err
	}
	if !cache.update(changes, mk) {
		return errNotInPlace // a stale cache: let git write it
	}
	if err := c.index.writeInPlace(data, s.end, s.oidLen, changes, cache); err != nil {
		return err
	}
	for _, ch := range changes {
		if ch.old != nil && ch.new == nil {
			c.removed[ch.path] = true
		}
	}
	c.tree = root
	c.counts.inPlace++
	return nil
}

// inPlace is what a stage in place starts from: the private index as read
// and the paths asked for.
type inPlace struct {
	data   []byte          // the private index
	oidLen int             // the length of an object name in bytes
	fixed  int             // the length of an entry's fixed part: stat data, object, flags
	end    int             // where data's entries end
	want   map[string]bool // path → present
	paths  []string        // want's, sorted
	at     map[string]int  // tracked paths among them → offset of the entry
}

// newInPlace finds present and gone in data; false where the change is
// not one staged in place: a path both present and gone, an index this
// reader does not know, or one with entries that are not plain.
func newInPlace(data []byte, oidLen int, present, gone []string) (*inPlace, bool) {
	s := &inPlace{data: data, oidLen: oidLen, fixed: 40 + oidLen + 2, want: map[string]bool{}, at: map[string]int{}}
	for _, p := range present {
		s.want[p] = true
	}
	for _, p := range gone {
		if _, dup := s.want[p]; dup {
			return nil, false
		}
		s.want[p] = false
	}
	plain := true
	end, ok := eachEntry(data, oidLen, func(off int, name []byte) {
		// Only plain entries: not assume-valid, extended (to be added,
		// skipped in the working tree) or unmerged. Then the index's
		// entries are the staged tree's files, which the checks below
		// rely on.
		if binary.BigEndian.Uint16(data[off+s.fixed-2:])&0xf000 != 0 {
			plain = false
		}
		if _, ok := s.want[string(name)]; ok {
			s.at[string(name)] = off
		}
	})
	if !ok || !plain {
		return nil, false
	}
	s.end = end
	s.paths = slices.Sorted(maps.Keys(s.want))
	return s, true
}

// specs returns the paths asked for that the index tracks, those git is
// to stage (tracked or present), and whether any of these is new.
func (s *inPlace) specs() (tracked, specs []string, anyNew bool) {
	for _, p := range s.paths {
		_, known := s.at[p]
		if known {
			tracked = append(tracked, p)
		}
		if known || s.want[p] {
			specs = append(specs, p)
			anyNew = anyNew || !known
		}
	}
	return tracked, specs, anyNew
}

// stageAlone has git stage the paths in an index of their entries alone
// and returns that index as git left it.
func (c *Changes) stageAlone(ctx context.Context, s *inPlace) ([]byte, error) {
	tracked, specs, anyNew := s.specs()
	if len(specs) == 0 {
		return nil, errNotInPlace // nothing tracked, nothing new: a look at the folder
	}
	smallPath := filepath.Join(c.index.dir, "in-place")
	if err := os.WriteFile(smallPath, smallIndex(s.data, s.oidLen, tracked, s.at), 0o644); err != nil {
		return nil, err
	}
	defer os.Remove(smallPath)
	// Dated as the private index: git trusts an entry's stat data only for
	// a file last changed before its index was written, and reads the
	// others again ("racily clean"), as it would staging in the private
	// index itself.
	if c.index.readTime.IsZero() {
		return nil, errNotInPlace
	}
	if err := os.Chtimes(smallPath, c.index.readTime, c.index.readTime); err != nil {
		return nil, err
	}
	mode := "-u"
	if anyNew {
		mode = "-A"
	}
	if err := c.repo.Add(ctx, gitwt.Command{Env: []string{"GIT_INDEX_FILE=" + smallPath}}, specs, nil, mode); err != nil {
		return nil, err
	}
	return os.ReadFile(smallPath)
}

// changes returns the change git staged in staged, path by path; false
// where it is not one a stage in place makes.
func (s *inPlace) changes(staged []byte) ([]fileChange, bool) {
	fresh := map[string][]byte{} // path → its new entry's stat data, mode, object and flags
	fine := true
	_, ok := eachEntry(staged, s.oidLen, func(off int, name []byte) {
		e := staged[off : off+s.fixed]
		fine = fine && s.plainStage(string(name), e, fresh)
		fresh[string(name)] = e
	})
	if !ok || !fine {
		return nil, false
	}
	var changes []fileChange
	for _, p := range s.paths {
		e, kept := fresh[p]
		off, known := s.at[p]
		switch {
		case known && kept:
			changes = append(changes, fileChange{path: p, old: s.data[off : off+s.fixed], new: e})
		case known:
			if s.want[p] {
				return nil, false // git dropped a file that is there (a folder now, say)
			}
			changes = append(changes, fileChange{path: p, old: s.data[off : off+s.fixed]})
		case kept:
			changes = append(changes, fileChange{path: p, new: e})
		default:
			// Gone and never tracked, or new and not taken (ignored):
			// nothing to stage, so long as the staged tree has nothing by
			// that name (a folder: checked against the tree below).
			changes = append(changes, fileChange{path: p})
		}
	}
	return changes, true
}

// plainStage reports whether e, the entry git staged for name, is one a
// stage in place takes: a path asked for, once, a file or a link, with the
// flags it had.
func (s *inPlace) plainStage(name string, e []byte, fresh map[string][]byte) bool {
	big, known := s.at[name]
	_, asked := s.want[name]
	m := binary.BigEndian.Uint32(e[24:])
	switch {
	case !asked || fresh[name] != nil:
		return false // another path
	case m != 0o100644 && m != 0o100755 && m != 0o120000:
		return false // a submodule, say
	case known && !bytes.Equal(e[s.fixed-2:], s.data[big+s.fixed-2:big+s.fixed]):
		return false // other flags
	case !known && binary.BigEndian.Uint16(e[s.fixed-2:])&0xf000 != 0:
		return false
	}
	return true
}

// makeTrees has git write the trees mk made (`git mktree --batch`), which
// must name them as mk did.
func (c *Changes) makeTrees(ctx context.Context, mk *newTrees) error {
	if mk.buf.Len() == 0 {
		return nil
	}
	var out strings.Builder
	if err := c.repo.Git(ctx, gitwt.Command{Stdin: &mk.buf, Stdout: &out}, "mktree", "-z", "--batch", "--missing"); err != nil {
		return err
	}
	if got := strings.Fields(out.String()); !slices.Equal(got, mk.names) {
		return fmt.Errorf("stage in place: git named the trees %v, not %v", got, mk.names)
	}
	return nil
}

// fileChange is one path staged: old, its entry's fixed part in the
// private index (nil: not tracked); new, the entry git staged (nil: none).
// Neither: a path gone that was never tracked.
type fileChange struct {
	path     string
	old, new []byte
}

func (f fileChange) mode(e []byte) string {
	return strconv.FormatUint(uint64(binary.BigEndian.Uint32(e[24:])), 8)
}
