package changes

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/architect-dev/architect/gitwt"
)

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
