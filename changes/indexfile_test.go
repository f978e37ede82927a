package changes

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"
)

// lsFilesDigest is indexEntries' digest computed from what git itself
// lists (ls-files -s), for an index without flags.
func lsFilesDigest(t *testing.T, dir string) [sha256.Size]byte {
	h := sha256.New()
	out, err := runGit(dir, "ls-files", "-s", "-z")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range strings.Split(strings.TrimSuffix(out, "\x00"), "\x00") {
		meta, name, _ := strings.Cut(e, "\t")
		f := strings.Fields(meta)
		mode, _ := strconv.ParseUint(f[0], 8, 32)
		oid, _ := hex.DecodeString(f[1])
		stage, _ := strconv.Atoi(f[2])
		h.Write(binary.BigEndian.AppendUint32(nil, uint32(mode)))
		h.Write(oid)
		h.Write([]byte{byte(stage << 4), 0, 0})
		h.Write([]byte(name + "\x00"))
	}
	var d [sha256.Size]byte
	h.Sum(d[:0])
	return d
}

func TestIndexEntries(t *testing.T) {
	is := is.New(t)
	dir := newRepo(t)
	// Names of every length around the 8-byte padding, nested, sharing
	// prefixes (version 4 compresses them).
	for n := 1; n <= 17; n++ {
		write(t, dir, strings.Repeat("n", n), "x\n")
		write(t, dir, filepath.Join("deep/er", strings.Repeat("p", n)+".go"), fmt.Sprint(n))
	}
	write(t, dir, "日本/名前.txt", "名前\n")
	write(t, dir, "run.sh", "#!/bin/sh\n")
	is.NoErr(os.Chmod(filepath.Join(dir, "run.sh"), 0o755))
	commit(t, dir, "base")
	index := filepath.Join(dir, ".git", "index")
	digest := func() [sha256.Size]byte {
		t.Helper()
		d, ok, err := indexEntries(index, 20)
		is.NoErr(err)
		is.True(ok)
		return d
	}
	want := lsFilesDigest(t, dir)
	for _, v := range []string{"2", "4", "3", "2"} {
		gitT(t, dir, "update-index", "--index-version", v)
		is.Equal(digest(), want) // every version reads the same
	}

	// Fresher stat data: the same.
	past := time.Now().Add(-time.Hour)
	is.NoErr(os.Chtimes(filepath.Join(dir, "nnn"), past, past))
	before, _ := os.Stat(index)
	gitT(t, dir, "update-index", "--refresh")
	after, _ := os.Stat(index)
	is.True(!os.SameFile(before, after)) // the index was written
	is.Equal(digest(), want)

	// What is tracked or staged: another digest each time.
	seen := map[[sha256.Size]byte]string{want: "base"}
	for _, c := range []struct {
		name string
		do   func()
	}{
		{"staged content", func() { write(t, dir, "nnn", "y\n"); gitT(t, dir, "add", "nnn") }},
		{"untracked", func() { gitT(t, dir, "rm", "--cached", "-q", "n") }},
		{"intent to add", func() { write(t, dir, "new.txt", "z\n"); gitT(t, dir, "add", "-N", "new.txt") }},
		{"mode", func() { gitT(t, dir, "update-index", "--chmod=+x", "nn") }},
		{"skip-worktree", func() { gitT(t, dir, "update-index", "--skip-worktree", "nnnn") }},
		{"assume-unchanged", func() { gitT(t, dir, "update-index", "--assume-unchanged", "nnnnn") }},
	} {
		c.do()
		d := digest()
		if prev, ok := seen[d]; ok {
			t.Fatalf("%s: same digest as %s", c.name, prev)
		}
		seen[d] = c.name
	}

	flagged := digest()
	gitT(t, dir, "update-index", "--index-version", "4")
	is.Equal(digest(), flagged) // version 4 with extended flags reads the same

	// What this reader does not know: not ok. No file: no entries.
	gitT(t, dir, "update-index", "--split-index")
	_, ok, err := indexEntries(index, 20)
	is.NoErr(err)
	is.True(!ok)
	none, ok, err := indexEntries(filepath.Join(dir, "missing"), 20)
	is.NoErr(err)
	is.True(ok)
	is.Equal(none, sha256.Sum256(nil))
	is.NoErr(os.WriteFile(index, []byte("DIRC\x00\x00\x00\x09junk"), 0o644))
	_, ok, err = indexEntries(index, 20)
	is.NoErr(err)
	is.True(!ok)
}
