package changes

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/architect-dev/architect/gitwt"
)

// The staged tree of an iteration is written by `git write-tree`, which
// also writes the index it read back (with its tree cache updated): on a
// repository of 100,000 files a 9 MB file, hashed whole with git's SHA-1,
// every iteration, only to keep a cache. splitTree spares that write
// without changing what any index says: git writes its tree through a
// split index (git's own format, Documentation/gitformat-index.txt) made
// here, whose shared index is the private index as it is (a link to it) and
// which holds no entry of its own, only the private index's tree cache. git
// reads the two as one index, the private index, and writes back only the
// small split file, which is thrown away. The private index itself is
// left as git last wrote it, and so is any index the user sees: the split
// view and its shared index live in the private index's folder, never in
// the git folder (git looks for a shared index next to the index that names
// it when the git folder has none).
//
// Where the private index is one this reader does not know, or is itself
// split (the user's core.splitIndex) or sparse, or git refuses the view,
// the caller writes the tree from the private index as before.

// writeTree writes the private index's tree, when staging. view: through
// a split view of the index (writetree.go), which spares git writing the
// whole index back; the whole-tree look does without, so that the tree
// cache of the private index (and of the index a commit installs) is made
// whole again there.
func (c *Changes) writeTree(ctx context.Context, view bool) error {
	if !c.stage {
		return nil
	}
	if view && !c.noSplit {
		tree, err := c.index.splitTree(ctx, c.repo, c.oidLen())
		if err == nil {
			c.tree = tree
			c.counts.split++
			return nil
		}
		if ctx.Err() != nil {
			return err
		}
		c.noSplit = true // not for this index, or not with this git: as before
	}
	var out strings.Builder
	if err := c.repo.Git(ctx, gitwt.Command{Env: c.index.env(), Stdout: &out}, "write-tree"); err != nil {
		return err
	}
	c.tree = strings.TrimSpace(out.String())
	return nil
}

// errNoSplitView: the private index cannot be given a split view.
var errNoSplitView = errors.New("the index cannot be given a split view")

// splitTree writes the private index's tree through a split view of it and
// returns the tree's name. oidLen is the length of an object name in bytes.
func (p *privateIndex) splitTree(ctx context.Context, r *gitwt.Repo, oidLen int) (string, error) {
	data, err := os.ReadFile(p.path)
	if err != nil {
		return "", err
	}
	view, shared, err := splitView(data, oidLen)
	if err != nil {
		return "", err
	}
	sharedPath := filepath.Join(p.dir, "sharedindex."+shared)
	if sharedPath != p.shared {
		if p.shared != "" {
			_ = os.Remove(p.shared)
		}
		p.shared = ""
		// A link, not a copy: git only reads it (the shared index git 2.39
		// stamps with the current time is one of that name in the git
		// folder, where there is none), so that the private index, which
		// may still be your index's file (seeded, or installed and not
		// written since), is not touched (TestSplitTree).
		_ = os.Remove(sharedPath)
		if err := linkOrCopy(p.path, sharedPath); err != nil {
			return "", err
		}
		p.shared = sharedPath
	}
	viewPath := filepath.Join(p.dir, "split-view")
	if err := os.WriteFile(viewPath, view, 0o644); err != nil {
		return "", err
	}
	// core.splitIndex: keep writing the view split whatever the user's
	// setting; maxPercentChange=100: never write a new shared index (into
	// the git folder); sharedIndexExpire=never: never remove one there.
	var out strings.Builder
	args := []string{"-c", "core.splitIndex=true", "-c", "splitIndex.maxPercentChange=100", "-c", "splitIndex.sharedIndexExpire=never", "write-tree"}
	if err := r.Git(ctx, gitwt.Command{Env: []string{"GIT_INDEX_FILE=" + viewPath}, Stdout: &out}, args...); err != nil {
		return "", err
	}
	tree := strings.TrimSpace(out.String())
	if len(tree) != 2*oidLen {
		return "", errNoSplitView
	}
	return tree, nil
}

// emptyEWAH is an empty bitmap in git's EWAH encoding (ewah/ewah_io.c):
// no bits, one marker word of zero, the marker at word 0. git 2.39 reads a
// link extension without bitmaps, then crashes writing it back.
var emptyEWAH = []byte{0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}

// splitView returns a split index whose shared index is data, an index
// file: no entries, a link extension naming data by its checksum with no
// entry deleted or replaced, and data's tree cache; and that checksum in
// hexadecimal, the shared index's name. errNoSplitView for an index this
// reader does not know or one with an extension git requires to be
// understood (a split or sparse index).
func splitView(data []byte, oidLen int) (view []byte, shared string, err error) {
	end, ok := entriesEnd(data, oidLen)
	if !ok {
		return nil, "", errNoSplitView
	}
	sum := data[len(data)-oidLen:]
	var tree []byte
	for off := end; off < len(data)-oidLen; {
		if off+8 > len(data)-oidLen {
			return nil, "", errNoSplitView
		}
		sig := data[off : off+4]
		n := int(binary.BigEndian.Uint32(data[off+4 : off+8]))
		if n < 0 || off+8+n > len(data)-oidLen {
			return nil, "", errNoSplitView
		}
		if sig[0] < 'A' || sig[0] > 'Z' { // required: "link", "sdir"
			return nil, "", errNoSplitView
		}
		if string(sig) == "TREE" {
			tree = data[off : off+8+n]
		}
		off += 8 + n
	}
	var b bytes.Buffer
	b.Write(data[:8]) // signature and version
	b.Write([]byte{0, 0, 0, 0})
	b.WriteString("link")
	b.Write(binary.BigEndian.AppendUint32(nil, uint32(oidLen+2*len(emptyEWAH))))
	b.Write(sum)
	b.Write(emptyEWAH)
	b.Write(emptyEWAH)
	b.Write(tree)
	h := newHash(oidLen)
	h.Write(b.Bytes())
	return h.Sum(b.Bytes()), hex.EncodeToString(sum), nil
}
