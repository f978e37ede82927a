// Package envdirs finds the folders and files that hold a project's
// environment rather than its work (node_modules, a Python virtualenv,
// vendor, .env files) where git ignores them, takes their fingerprint at
// the start of a run, and brings them into another checkout of the same
// tree (the clean last look) when they are still as they were.
//
// A fingerprint covers every entry's path, type, size, modification and
// change times and inode. The change time (ctime) cannot be set back by an
// unprivileged process, so a file written in place, even with its
// modification time restored, changes the fingerprint. What is brought in
// is linked, not copied: node_modules of 50,000 files would cost seconds to
// copy and nothing to link. The caches tools write into these folders while
// the checks run (node_modules/.cache, __pycache__) are left out of the
// fingerprint, and node_modules/.cache is not brought in.
package envdirs

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Names are the environment entries looked for at the top of a workspace,
// besides the .env files (".env" and ".env.*").
var Names = []string{"node_modules", ".venv", "venv", "vendor"}

// Candidates lists the environment entries at the top of dir, relative to
// it: the Names that exist, and the .env files. Whether git ignores them is
// the caller's question (gitwt.Repo.Ignored): only what git ignores is
// missing from a clean checkout.
func Candidates(dir string) []string {
	var found []string
	for _, n := range Names {
		if _, err := os.Lstat(filepath.Join(dir, n)); err == nil {
			found = append(found, n)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if n := e.Name(); n == ".env" || strings.HasPrefix(n, ".env.") {
			if e.Type().IsRegular() {
				found = append(found, n)
			}
		}
	}
	return found
}

// skipped reports whether an entry below an environment folder is a cache
// its tools write while the checks run, left out of the fingerprint.
func skipped(rel string, d fs.DirEntry) bool {
	if !d.IsDir() {
		return false
	}
	name := d.Name()
	return name == "__pycache__" || rel == filepath.Join("node_modules", ".cache")
}

// Fingerprint is a digest of the entry rel of dir and of everything in it
// (see the package comment), and how many entries it covers.
type Fingerprint struct {
	Digest  string `json:"digest"`
	Entries int    `json:"entries"`
}

// Take takes the fingerprint of dir/rel. Symbolic links are not followed:
// their targets are part of the digest.
func Take(dir, rel string) (Fingerprint, error) {
	h := sha256.New()
	n := 0
	root := filepath.Join(dir, rel)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		r, _ := filepath.Rel(dir, path)
		if skipped(r, d) {
			return filepath.SkipDir
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		n++
		if d.IsDir() {
			// A folder's times change when a cache appears in it: its
			// entries are what the digest holds of it.
			fmt.Fprintf(h, "%s\x00%o\x00", r, fi.Mode())
			return nil
		}
		fmt.Fprintf(h, "%s\x00%o\x00%d\x00%d\x00%s\x00", r, fi.Mode(), fi.Size(), fi.ModTime().UnixNano(), stamp(fi))
		if fi.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(path)
			_, _ = io.WriteString(h, target+"\x00")
		}
		return nil
	})
	if err != nil {
		return Fingerprint{}, err
	}
	return Fingerprint{Digest: hex.EncodeToString(h.Sum(nil))[:32], Entries: n}, nil
}

// TakeAll takes the digest of each entry of rels in dir; an entry that
// cannot be read is left out (it will not be brought in).
func TakeAll(dir string, rels []string) map[string]string {
	m := make(map[string]string, len(rels))
	for _, rel := range rels {
		if fp, err := Take(dir, rel); err == nil {
			m[rel] = fp.Digest
		}
	}
	return m
}

// Brought is what BringIn did with one entry.
type Brought struct {
	Path string `json:"path"`
	// Changed: the entry changed since the start of the run (or is gone),
	// so it was not brought in.
	Changed bool `json:"changed,omitempty"`
}

// BringIn links into the folder to each entry of start (taken with
// TakeAll in from at the start of the run) that is still as it was, and
// reports what it did with each, in order. node_modules comes in as a
// folder of its own holding a link to each of its entries but its .cache,
// so that what the tools cache there while the checks run stays in to.
// An entry already in to (the tree has it) is left alone.
func BringIn(from, to string, start map[string]string) ([]Brought, error) {
	rels := make([]string, 0, len(start))
	for rel := range start {
		rels = append(rels, rel)
	}
	sort.Strings(rels)
	var out []Brought
	for _, rel := range rels {
		if _, err := os.Lstat(filepath.Join(to, rel)); err == nil {
			continue
		}
		now, err := Take(from, rel)
		if err != nil || now.Digest != start[rel] {
			out = append(out, Brought{Path: rel, Changed: true})
			continue
		}
		if err := link(filepath.Join(from, rel), filepath.Join(to, rel), rel); err != nil {
			return out, err
		}
		out = append(out, Brought{Path: rel})
	}
	return out, nil
}

// link makes dst a link to src (node_modules: a folder of links).
func link(src, dst, rel string) error {
	if rel != "node_modules" {
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.Symlink(src, dst)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		if e.Name() == ".cache" {
			continue
		}
		errs = append(errs, os.Symlink(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())))
	}
	return errors.Join(errs...)
}
