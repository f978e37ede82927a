package changes

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"maps"
	"os"
	"path"
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

// writeInPlace writes the private index anew: data, whose entries end at
// end, with changes made to its entries and cache as its tree cache,
// checksummed as data is (not at all under index.skipHash).
func (p *privateIndex) writeInPlace(data []byte, end, oidLen int, changes []fileChange, cache *treeCache) error {
	next := p.rewrite(data, end, oidLen, changes, cache)
	sum := next[len(next)-oidLen:]
	if allZero(data[len(data)-oidLen:]) { // index.skipHash: none
		clear(sum)
	} else {
		h := newHash(oidLen)
		h.Write(next[:len(next)-oidLen])
		copy(sum, h.Sum(nil))
	}
	tmp := p.path + ".in-place"
	if err := os.WriteFile(tmp, next, 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, p.path); err != nil {
		_ = os.Remove(tmp)
		return err
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

// newTrees are the trees written by a stage in place: the mktree input,
// the names mktree must give, and each folder's new tree (nil: the folder
// is gone).
type newTrees struct {
	buf   bytes.Buffer
	names []string
	trees map[string][]byte
	old   treeSet // the trees they replace
}

// treesAfter builds the trees of the folders above changes, deepest first,
// from the staged tree's, and returns the new root tree's name.
func (c *Changes) treesAfter(ctx context.Context, changes []fileChange, oidLen int) (string, *newTrees, error) {
	dirs := map[string]bool{"": true}
	for _, ch := range changes {
		for d := parent(ch.path); d != ""; d = parent(d) {
			dirs[d] = true
		}
	}
	order := slices.SortedFunc(maps.Keys(dirs), func(a, b string) int {
		return cmp.Compare(depth(b), depth(a))
	})
	old, err := c.readTrees(ctx, order)
	if err != nil {
		return "", nil, err
	}
	mk := &newTrees{trees: map[string][]byte{}, old: old}
	byDir := map[string][]fileChange{}
	for _, ch := range changes {
		byDir[parent(ch.path)] = append(byDir[parent(ch.path)], ch)
	}
	children := map[string][]string{}
	for d := range dirs {
		if d != "" {
			children[parent(d)] = append(children[parent(d)], d)
		}
	}
	for _, d := range order {
		t, err := parseTree(old.body[d], oidLen)
		if err != nil {
			return "", nil, err
		}
		t, filesSorted, err := withFiles(t, byDir[d], oidLen)
		if err != nil {
			return "", nil, err
		}
		t, foldersSorted, err := mk.withFolders(t, children[d])
		if err != nil {
			return "", nil, err
		}
		if !filesSorted || !foldersSorted {
			slices.SortFunc(t, treeOrder)
		}
		if len(t) == 0 {
			if d == "" {
				return "", nil, errNotInPlace // nothing left: rare enough for git
			}
			continue // gone from its parent
		}
		mk.add(d, t, oidLen)
	}
	return hex.EncodeToString(mk.trees[""]), mk, nil
}

// withFiles makes the changes to files right in a folder to t, its tree's
// entries; sorted is false where an entry was added at the end.
// errNotInPlace where the staged tree is not what the index says.
func withFiles(t []treeEntry, changes []fileChange, oidLen int) (_ []treeEntry, sorted bool, _ error) {
	sorted = true
	for _, ch := range changes {
		i := findEntry(t, path.Base(ch.path))
		switch {
		case ch.old == nil && ch.new == nil: // gone, never tracked
			if i >= 0 {
				return nil, false, errNotInPlace // a folder by that name is gone
			}
		case ch.old != nil && (i < 0 || t[i].mode != ch.mode(ch.old) || !bytes.Equal(t[i].oid, ch.old[40:40+oidLen])):
			return nil, false, errNotInPlace // the staged tree is not the index's: let git sort it out
		case ch.old == nil && i >= 0:
			return nil, false, errNotInPlace // a folder by that name: a file now
		case ch.new == nil:
			t = slices.Delete(t, i, i+1)
		case i >= 0:
			t[i].mode, t[i].oid = ch.mode(ch.new), ch.new[40:40+oidLen]
		default:
			t = append(t, treeEntry{mode: ch.mode(ch.new), name: path.Base(ch.path), oid: ch.new[40 : 40+oidLen]})
			sorted = false
		}
	}
	return t, sorted, nil
}

// withFolders makes to t, a folder's tree entries, the changes to the
// folders subs right in it, whose new trees (nil: emptied) mk holds;
// sorted is false where an entry was added at the end.
func (mk *newTrees) withFolders(t []treeEntry, subs []string) (_ []treeEntry, sorted bool, _ error) {
	sorted = true
	for _, sub := range subs {
		i := findEntry(t, path.Base(sub))
		o, kept := mk.trees[sub]
		switch {
		case i >= 0 && t[i].mode != "40000":
			return nil, false, errNotInPlace // a file by that name: a folder now
		case i >= 0 && kept:
			t[i].oid = o
		case i >= 0:
			t = slices.Delete(t, i, i+1) // emptied
		case kept:
			t = append(t, treeEntry{mode: "40000", name: path.Base(sub), oid: o})
			sorted = false
		}
	}
	return t, sorted, nil
}

// add names t, the new tree of folder d, and queues it for mktree where
// it is not the tree d had.
func (mk *newTrees) add(d string, t []treeEntry, oidLen int) {
	body := serializeTree(t)
	name := objectName("tree", body, oidLen)
	mk.trees[d] = name
	if bytes.Equal(name, mk.old.oid[d]) {
		return
	}
	for _, e := range t {
		fmt.Fprintf(&mk.buf, "%s %s %x\t%s\x00", e.mode, e.kind(), e.oid, e.name)
	}
	mk.buf.WriteByte(0)
	mk.names = append(mk.names, hex.EncodeToString(name))
}

// findEntry is the index of the entry named name in t, or -1.
func findEntry(t []treeEntry, name string) int {
	for i := range t {
		if t[i].name == name {
			return i
		}
	}
	return -1
}

// parent is the folder holding p, "" for the top level.
func parent(p string) string {
	d := path.Dir(p)
	if d == "." {
		return ""
	}
	return d
}

func depth(d string) int {
	if d == "" {
		return 0
	}
	return strings.Count(d, "/") + 1
}

// treeOrder is git's order of a tree's entries: by name, a folder's as if
// it ended with "/".
func treeOrder(a, b treeEntry) int {
	an, bn := a.name, b.name
	if a.mode == "40000" {
		an += "/"
	}
	if b.mode == "40000" {
		bn += "/"
	}
	return strings.Compare(an, bn)
}

func allZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}

// newHash is the hash of the repository's object names and index
// checksums: SHA-256 where names are 32 bytes long, SHA-1 elsewhere.
func newHash(oidLen int) hash.Hash {
	if oidLen == sha256.Size {
		return sha256.New()
	}
	return sha1.New()
}

// objectName is the name git gives an object of kind with body.
func objectName(kind string, body []byte, oidLen int) []byte {
	h := newHash(oidLen)
	fmt.Fprintf(h, "%s %d\x00", kind, len(body))
	h.Write(body)
	return h.Sum(nil)
}

// smallIndex is an index file (version 2) holding only the entries of
// paths (sorted), found in data at at.
func smallIndex(data []byte, oidLen int, paths []string, at map[string]int) []byte {
	fixed := 40 + oidLen + 2
	var b bytes.Buffer
	b.WriteString("DIRC")
	b.Write(binary.BigEndian.AppendUint32(nil, 2))
	b.Write(binary.BigEndian.AppendUint32(nil, uint32(len(paths))))
	for _, p := range paths {
		e := data[at[p] : at[p]+fixed]
		b.Write(e)
		b.WriteString(p)
		n := (fixed+len(p)+8)&^7 - fixed - len(p)
		b.Write(make([]byte, n))
	}
	h := newHash(oidLen)
	h.Write(b.Bytes())
	return h.Sum(b.Bytes())
}

// treeCache is an index's tree cache (the TREE extension): for each
// folder, how many entries it holds (-1: not known, the cache is not
// valid there) and its tree's name, and its subfolders' caches.
type treeCache struct {
	name  string
	count int
	oid   []byte
	subs  []*treeCache
}

// readTreeCache reads the tree cache of an index whose entries end at end
// (nil for none). ok is false where the index has any other extension
// (they would need keeping in step) or where the cache cannot be read.
func readTreeCache(data []byte, end, oidLen int) (*treeCache, bool) {
	var root *treeCache
	for off := end; off < len(data)-oidLen; {
		if off+8 > len(data)-oidLen || root != nil {
			return nil, false
		}
		sig := string(data[off : off+4])
		n := int(binary.BigEndian.Uint32(data[off+4 : off+8]))
		if n < 0 || off+8+n > len(data)-oidLen || sig != "TREE" {
			return nil, false
		}
		body := data[off+8 : off+8+n]
		// Each folder: name NUL, entry count SP, subfolder count LF, the
		// tree's name when the count is not -1; its subfolders follow.
		var read func() *treeCache
		read = func() *treeCache {
			nul := bytes.IndexByte(body, 0)
			if nul < 0 {
				return nil
			}
			t := &treeCache{name: string(body[:nul])}
			body = body[nul+1:]
			lf := bytes.IndexByte(body, '\n')
			if lf < 0 {
				return nil
			}
			count, subs, found := strings.Cut(string(body[:lf]), " ")
			body = body[lf+1:]
			var err1, err2 error
			t.count, err1 = strconv.Atoi(count)
			nsubs, err2 := strconv.Atoi(subs)
			if !found || err1 != nil || err2 != nil || nsubs < 0 || t.count < -1 {
				return nil
			}
			if t.count >= 0 {
				if len(body) < oidLen {
					return nil
				}
				t.oid, body = slices.Clone(body[:oidLen]), body[oidLen:]
			}
			for range nsubs {
				sub := read()
				if sub == nil {
					return nil
				}
				t.subs = append(t.subs, sub)
			}
			return t
		}
		if root = read(); root == nil || len(body) != 0 {
			return nil, false
		}
		off += 8 + n
	}
	return root, true
}

// update brings the cache up to date with changes, the trees being mk's:
// each folder above a change that the cache knows gets its new tree and
// entry count, an emptied folder goes, a new one comes (when its parent is
// known). false where a folder's cached tree is not the staged tree's.
func (t *treeCache) update(changes []fileChange, mk *newTrees) bool {
	old := mk.old
	if t == nil {
		return true
	}
	delta := map[string]int{} // folder → entries added less removed under it
	for _, ch := range changes {
		n := 0
		switch {
		case ch.old == nil && ch.new != nil:
			n = 1
		case ch.old != nil && ch.new == nil:
			n = -1
		}
		for d := parent(ch.path); ; d = parent(d) {
			delta[d] += n
			if d == "" {
				break
			}
		}
	}
	var walk func(c *treeCache, dir string) bool
	walk = func(c *treeCache, dir string) bool {
		if _, touched := delta[dir]; !touched {
			return true
		}
		if c.count >= 0 {
			if !bytes.Equal(c.oid, old.oid[dir]) {
				return false
			}
			c.count += delta[dir]
			c.oid = mk.trees[dir]
		}
		kept := c.subs[:0]
		for _, sub := range c.subs {
			full := path.Join(dir, sub.name)
			if _, touched := delta[full]; touched && mk.trees[full] == nil {
				continue // emptied: gone
			}
			if !walk(sub, full) {
				return false
			}
			kept = append(kept, sub)
		}
		c.subs = kept
		if c.count < 0 {
			return true
		}
		newFolders(c, dir, delta, mk)
		return true
	}
	return walk(t, "")
}

// newFolders adds to t, the cache of the folder dir, one for each folder
// right under it that the change made (and, in them, theirs), and keeps
// its subfolders in git's order (cache-tree.c: by length, then by name).
func newFolders(t *treeCache, dir string, delta map[string]int, mk *newTrees) {
	for d := range delta {
		if d == "" || parent(d) != dir || mk.trees[d] == nil {
			continue
		}
		if _, existed := mk.old.oid[d]; existed {
			continue
		}
		sub := &treeCache{name: path.Base(d), count: delta[d], oid: mk.trees[d]}
		newFolders(sub, d, delta, mk)
		t.subs = append(t.subs, sub)
	}
	slices.SortFunc(t.subs, func(a, b *treeCache) int {
		if len(a.name) != len(b.name) {
			return len(a.name) - len(b.name)
		}
		return strings.Compare(a.name, b.name)
	})
}

// write appends the cache in its index form.
func (t *treeCache) write(b []byte) []byte {
	b = append(b, t.name...)
	b = append(b, 0)
	b = strconv.AppendInt(b, int64(t.count), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(len(t.subs)), 10)
	b = append(b, '\n')
	if t.count >= 0 {
		b = append(b, t.oid...)
	}
	for _, sub := range t.subs {
		b = sub.write(b)
	}
	return b
}

// rewrite returns the private index data (whose entries end at end) with
// changes made to its entries and cache as its tree cache. The entries it
// copies keep their stat data: git, writing an index, smudges those it
// did not refresh whose files changed in the same clock tick as the index
// it read was written ("racily clean"), so that the later readers of the
// newer index look at them again. Here such a change is one the watcher
// reports, whose path is then among changes, and its entry staged anew
// from an index dated as the one read (stageInPlace).
//
// The checksum is left to the caller; the buffer is reused by the next
// rewrite.
func (p *privateIndex) rewrite(data []byte, end, oidLen int, changes []fileChange, cache *treeCache) []byte {
	fixed := 40 + oidLen + 2
	version := binary.BigEndian.Uint32(data[4:8])
	byPath := map[string]fileChange{}
	var added []fileChange
	for _, ch := range changes {
		if ch.old != nil {
			byPath[ch.path] = ch
		} else if ch.new != nil {
			added = append(added, ch) // sorted, as changes are
		}
	}
	out := append(p.out[:0], data[:12]...)
	count := 0
	var prev []byte // version 4: the last name written
	put := func(e []byte, name []byte) {
		count++
		if version == 4 {
			common := 0
			for common < len(prev) && common < len(name) && prev[common] == name[common] {
				common++
			}
			out = append(out, e...)
			out = appendVarint(out, uint64(len(prev)-common))
			out = append(out, name[common:]...)
			out = append(out, 0)
			prev = append(prev[:0], name...)
			return
		}
		out = append(out, e...)
		out = append(out, name...)
		out = append(out, make([]byte, (len(e)+len(name)+8)&^7-len(e)-len(name))...)
	}
	k := 0
	last := -1
	var lastName []byte
	flush := func(next int) { // the entry at last, which ends at next
		if last < 0 {
			return
		}
		for k < len(added) && added[k].path < string(lastName) {
			put(added[k].new, []byte(added[k].path))
			k++
		}
		ch, changed := byPath[string(lastName)]
		switch {
		case changed && ch.new == nil: // removed
		case changed:
			put(ch.new, lastName)
		case version == 4:
			size := fixed
			if binary.BigEndian.Uint16(data[last+fixed-2:])&0x4000 != 0 {
				size += 2
			}
			put(data[last:last+size], lastName)
		default:
			count++
			out = append(out, data[last:next]...)
		}
	}
	eachEntry(data, oidLen, func(off int, name []byte) {
		flush(off)
		last, lastName = off, append(lastName[:0], name...)
	})
	flush(end)
	for ; k < len(added); k++ {
		put(added[k].new, []byte(added[k].path))
	}
	binary.BigEndian.PutUint32(out[8:12], uint32(count))
	if cache != nil {
		body := cache.write(nil)
		out = append(out, "TREE"...)
		out = binary.BigEndian.AppendUint32(out, uint32(len(body)))
		out = append(out, body...)
	}
	out = append(out, make([]byte, oidLen)...)
	p.out = out
	return out
}

// appendVarint appends git's offset encoding of v (varint.c).
func appendVarint(b []byte, v uint64) []byte {
	var buf [16]byte
	pos := len(buf) - 1
	buf[pos] = byte(v & 127)
	for v >>= 7; v != 0; v >>= 7 {
		v--
		pos--
		buf[pos] = 128 | byte(v&127)
	}
	return append(b, buf[pos:]...)
}

// treeEntry is one entry of a tree object.
type treeEntry struct {
	mode, name string
	oid        []byte
}

func (e treeEntry) kind() string {
	switch e.mode {
	case "40000":
		return "tree"
	case "160000":
		return "commit"
	}
	return "blob"
}

func parseTree(body []byte, oidLen int) ([]treeEntry, error) {
	var t []treeEntry
	for len(body) > 0 {
		sp := bytes.IndexByte(body, ' ')
		nul := bytes.IndexByte(body, 0)
		if sp < 0 || nul < sp || nul+1+oidLen > len(body) {
			return nil, errors.New("stage in place: a tree git could not have written")
		}
		t = append(t, treeEntry{mode: string(body[:sp]), name: string(body[sp+1 : nul]), oid: body[nul+1 : nul+1+oidLen]})
		body = body[nul+1+oidLen:]
	}
	return t, nil
}

func serializeTree(t []treeEntry) []byte {
	var b bytes.Buffer
	for _, e := range t {
		b.WriteString(e.mode)
		b.WriteByte(' ')
		b.WriteString(e.name)
		b.WriteByte(0)
		b.Write(e.oid)
	}
	return b.Bytes()
}

// readTrees reads the trees of folders dirs of the staged tree in one
// `git cat-file --batch`.
func (c *Changes) readTrees(ctx context.Context, dirs []string) (treeSet, error) {
	var in strings.Builder
	for _, d := range dirs {
		if lineUnsafe(d) {
			return treeSet{}, errNotInPlace
		}
		if d == "" {
			in.WriteString(c.tree + "\n")
		} else {
			in.WriteString(c.tree + ":" + d + "\n")
		}
	}
	var out bytes.Buffer
	if err := c.repo.Git(ctx, gitwt.Command{Env: c.repo.TreesOnly(), Stdin: strings.NewReader(in.String()), Stdout: &out}, "cat-file", "--batch"); err != nil {
		return treeSet{}, err
	}
	ts := treeSet{body: map[string][]byte{}, oid: map[string][]byte{}}
	b := out.Bytes()
	for _, d := range dirs {
		lf := bytes.IndexByte(b, '\n')
		if lf < 0 {
			return treeSet{}, errNotInPlace
		}
		line := string(b[:lf])
		if strings.HasPrefix(line, c.tree+":") && strings.HasSuffix(line, " missing") {
			b = b[lf+1:]
			continue // a new folder
		}
		f := strings.Fields(line)
		if len(f) != 3 || f[1] != "tree" {
			return treeSet{}, errNotInPlace // not a folder there
		}
		n, err := strconv.Atoi(f[2])
		oid, herr := hex.DecodeString(f[0])
		if err != nil || herr != nil || lf+1+n+1 > len(b) {
			return treeSet{}, errNotInPlace
		}
		ts.body[d], ts.oid[d] = b[lf+1:lf+1+n], oid
		b = b[lf+1+n+1:]
	}
	return ts, nil
}

// lineUnsafe reports whether p holds a control character: git's line
// protocols (cat-file --batch) end a line at LF and strip a CR before it
// (a folder "foo\r" read as "foo"), so such a path is left to git.
func lineUnsafe(p string) bool {
	for i := 0; i < len(p); i++ {
		if p[i] < 0x20 || p[i] == 0x7f {
			return true
		}
	}
	return false
}

// treeSet are trees of the staged tree by folder, and their names.
type treeSet struct {
	body map[string][]byte
	oid  map[string][]byte
}
