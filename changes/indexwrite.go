package changes

import (
	"bytes"
	"encoding/binary"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
)

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

func allZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
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
