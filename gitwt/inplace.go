package gitwt

import (
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
)

// When the only change since the last look is files the index already
// tracks, written in place (the usual edit of an agent), staging them with
// `git add -u -- PATHS` on the private index costs a read and a whole write
// of that index, hashed with git's SHA-1: about 45 ms on a repository of
// 100,000 files, however small the edit; and its tree written through the
// split view another read (splitview.go). stageInPlace does the same work
// in the size of the change:
//
//   - git stages the paths in an index of their entries alone (`git add
//     -u`, everything git does for them: filters, line endings against the
//     blob the entry had, the executable bit, links, fresh stat data);
//   - the folders above them get their new trees from the old ones, read
//     with `git cat-file --batch`, the changed entries replaced, named here
//     and written with `git mktree --batch`, which must name them the same;
//   - their entries, and the names of those folders in its tree cache, are
//     replaced in a copy of the private index, which takes its place.
//
// The private index ends as `git add -u -- PATHS` and `git write-tree`
// would leave it (TestStageInPlace compares them field by field). Anything
// else (a path the index does not track as a file of stage 0, one git
// would drop or whose entry it would add, flags beyond the plain ones, an
// index extension other than the tree cache, a post-index-change hook that
// git would run) is staged by git on the private index, as before.

// errNotInPlace: the change is not one stageInPlace makes; the caller
// stages with git.
var errNotInPlace = errors.New("not a change in place")

// stageInPlace stages paths, files the private index tracks that are still
// files, and writes the staged tree (c.tree). errNotInPlace leaves
// everything as it was.
func (c *Changes) stageInPlace(ctx context.Context, paths []string) error {
	if c.cfg == nil {
		cfg, err := c.repo.readCommitConfig(ctx)
		if err != nil {
			return err
		}
		c.cfg = cfg
	}
	if fi, err := os.Stat(path.Join(c.cfg.hooks, "post-index-change")); err == nil && fi.Mode()&0o111 != 0 {
		return errNotInPlace // git would run it for the index it writes
	}
	oidLen := c.oidLen()
	data, err := c.index.read()
	if err != nil {
		return err
	}
	want := newPathSet(paths)
	at := map[string]int{} // path → offset of its entry
	end, ok := eachEntry(data, oidLen, func(off int, name []byte) {
		if want[string(name)] {
			if _, dup := at[string(name)]; dup {
				at[string(name)] = -1 // more than one stage
				return
			}
			at[string(name)] = off
		}
	})
	if !ok || len(at) != len(want) {
		return errNotInPlace
	}
	fixed := 40 + oidLen + 2
	for _, off := range at {
		if off < 0 {
			return errNotInPlace
		}
		flags := binary.BigEndian.Uint16(data[off+fixed-2:])
		mode := binary.BigEndian.Uint32(data[off+24:])
		// Assume-valid, extended (skip-worktree, intent-to-add) or a
		// stage: not plain. Only files and links.
		if flags&0xf000 != 0 || (mode != 0o100644 && mode != 0o100755 && mode != 0o120000) {
			return errNotInPlace
		}
	}
	treeExt, ok := treeExtension(data, end, oidLen)
	if !ok {
		return errNotInPlace
	}

	// git stages the paths in an index of their entries alone.
	sorted := slices.Sorted(func(yield func(string) bool) {
		for p := range want {
			if !yield(p) {
				return
			}
		}
	})
	small := smallIndex(data, oidLen, sorted, at)
	smallPath := c.index.dir + "/in-place"
	if err := os.WriteFile(smallPath, small, 0o644); err != nil {
		return err
	}
	defer os.Remove(smallPath)
	if err := c.repo.addPaths(ctx, command{env: []string{"GIT_INDEX_FILE=" + smallPath}}, sorted, nil, "-u"); err != nil {
		return err
	}
	staged, err := os.ReadFile(smallPath)
	if err != nil {
		return err
	}
	fresh := map[string][]byte{} // path → its new entry's stat data, mode and object
	_, ok = eachEntry(staged, oidLen, func(off int, name []byte) {
		big, known := at[string(name)]
		if !known || fresh[string(name)] != nil ||
			binary.BigEndian.Uint16(staged[off+fixed-2:]) != binary.BigEndian.Uint16(data[big+fixed-2:]) {
			ok = false // another path, or other flags
			return
		}
		fresh[string(name)] = staged[off : off+40+oidLen]
	})
	if !ok || len(fresh) != len(want) {
		return errNotInPlace // git dropped a path (it is a folder now, say)
	}

	// The folders above the paths, deepest first, their trees read as
	// they are in the staged tree.
	dirs := map[string]bool{"": true}
	for _, p := range sorted {
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	order := slices.SortedFunc(func(yield func(string) bool) {
		for d := range dirs {
			if !yield(d) {
				return
			}
		}
	}, func(a, b string) int {
		return strings.Count(b, "/") - strings.Count(a, "/") + boolInt(a == "") - boolInt(b == "")
	})
	trees, err := c.readTrees(ctx, order)
	if err != nil {
		return err
	}
	newOID := map[string][]byte{} // folder → its new tree's object name
	var mktree bytes.Buffer
	for _, d := range order {
		t, err := parseTree(trees.body[d], oidLen)
		if err != nil {
			return err
		}
		for i := range t {
			full := path.Join(d, t[i].name)
			if e := fresh[full]; e != nil {
				old := data[at[full]:]
				if t[i].mode != strconv.FormatUint(uint64(binary.BigEndian.Uint32(old[24:])), 8) || !bytes.Equal(t[i].oid, old[40:40+oidLen]) {
					return errNotInPlace // the staged tree is not the index's: let git sort it out
				}
				t[i].mode, t[i].oid = strconv.FormatUint(uint64(binary.BigEndian.Uint32(e[24:])), 8), e[40:40+oidLen]
			}
			if o := newOID[full]; o != nil && t[i].mode == "40000" {
				t[i].oid = o
			}
		}
		body := serializeTree(t)
		newOID[d] = objectName("tree", body, oidLen)
		if !bytes.Equal(newOID[d], trees.oid[d]) {
			for _, e := range t {
				fmt.Fprintf(&mktree, "%s %s %x\t%s\x00", e.mode, e.kind(), e.oid, e.name)
			}
			mktree.WriteByte(0)
		}
	}
	if mktree.Len() > 0 {
		var out strings.Builder
		if err := run(ctx, c.repo.dir, command{stdin: &mktree, stdout: &out}, "mktree", "-z", "--batch", "--missing"); err != nil {
			return err
		}
		var named []string
		for _, d := range order {
			if !bytes.Equal(newOID[d], trees.oid[d]) {
				named = append(named, hex.EncodeToString(newOID[d]))
			}
		}
		if got := strings.Fields(out.String()); !slices.Equal(got, named) {
			return fmt.Errorf("stage in place: git named the trees %v, not %v", got, named)
		}
	}

	// The private index, its entries and tree cache replaced (in the
	// bytes read, which are this reader's own).
	for d, off := range treeExt {
		if o := newOID[d]; o != nil && !bytes.Equal(data[off:off+oidLen], trees.oid[d]) {
			return errNotInPlace // a stale cache: let git write it
		}
	}
	next := data
	for p, e := range fresh {
		copy(next[at[p]:], e)
	}
	for d, off := range treeExt {
		if o := newOID[d]; o != nil {
			copy(next[off:], o)
		}
	}
	sum := next[len(next)-oidLen:]
	if !allZero(sum) { // index.skipHash: none
		h := newHash(oidLen)
		h.Write(next[:len(next)-oidLen])
		copy(sum, h.Sum(nil))
	}
	tmp := c.index.path + ".in-place"
	if err := os.WriteFile(tmp, next, 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, c.index.path); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	c.tree = hex.EncodeToString(newOID[""])
	c.counts.inPlace++
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func allZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}

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

// treeExtension finds the tree cache of an index whose entries end at end:
// for each folder it holds as valid, where its object name is. ok is false
// where the index has any other extension (they would need keeping in
// step), or where the cache cannot be read.
func treeExtension(data []byte, end, oidLen int) (map[string]int, bool) {
	at := map[string]int{}
	for off := end; off < len(data)-oidLen; {
		if off+8 > len(data)-oidLen {
			return nil, false
		}
		sig := string(data[off : off+4])
		n := int(binary.BigEndian.Uint32(data[off+4 : off+8]))
		if n < 0 || off+8+n > len(data)-oidLen || sig != "TREE" {
			return nil, false
		}
		body := data[off+8 : off+8+n]
		pos := 0
		// Each entry: name NUL, entry count (-1: not valid) SP, subtree
		// count LF, the object name when valid; its subtrees follow it.
		var walk func(prefix string) bool
		walk = func(prefix string) bool {
			nul := bytes.IndexByte(body[pos:], 0)
			if nul < 0 {
				return false
			}
			name := string(body[pos : pos+nul])
			pos += nul + 1
			lf := bytes.IndexByte(body[pos:], '\n')
			if lf < 0 {
				return false
			}
			count, subs, found := strings.Cut(string(body[pos:pos+lf]), " ")
			pos += lf + 1
			entries, err1 := strconv.Atoi(count)
			subtrees, err2 := strconv.Atoi(subs)
			if !found || err1 != nil || err2 != nil || subtrees < 0 {
				return false
			}
			full := path.Join(prefix, name)
			if prefix == "" && name == "" {
				full = ""
			}
			if entries >= 0 {
				if pos+oidLen > len(body) {
					return false
				}
				at[full] = off + 8 + pos
				pos += oidLen
			}
			for range subtrees {
				if !walk(full) {
					return false
				}
			}
			return true
		}
		if !walk("") || pos != len(body) {
			return nil, false
		}
		off += 8 + n
	}
	return at, true
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
		if strings.ContainsAny(d, "\n") {
			return treeSet{}, errNotInPlace
		}
		if d == "" {
			in.WriteString(c.tree + "\n")
		} else {
			in.WriteString(c.tree + ":" + d + "\n")
		}
	}
	var out bytes.Buffer
	if err := run(ctx, c.repo.dir, command{env: c.repo.treesOnly(), stdin: strings.NewReader(in.String()), stdout: &out}, "cat-file", "--batch"); err != nil {
		return treeSet{}, err
	}
	ts := treeSet{body: map[string][]byte{}, oid: map[string][]byte{}}
	b := out.Bytes()
	for _, d := range dirs {
		lf := bytes.IndexByte(b, '\n')
		if lf < 0 {
			return treeSet{}, errNotInPlace
		}
		f := strings.Fields(string(b[:lf]))
		if len(f) != 3 || f[1] != "tree" {
			return treeSet{}, errNotInPlace // missing, or not a folder there
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

// treeSet are trees of the staged tree by folder, and their names.
type treeSet struct {
	body map[string][]byte
	oid  map[string][]byte
}
