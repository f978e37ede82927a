package gitwt

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// privateIndex is architect's own index file for one working tree: git
// compares and stages through it (GIT_INDEX_FILE), so that the user's index
// is never written by a diff, and it is kept from one diff to the next, so
// that git's stat cache in it stays warm: a file whose size and times have
// not changed since it was last looked at is not read again.
//
// It starts as the working tree's own index (seed). After a commit it
// becomes the working tree's index (install), exactly what `git add -A`
// would have left there. Both are a hard link where the private index can
// live in the git folder (a rename, as git itself replaces an index), so
// neither costs a copy of an index of 100,000 entries (9 MB); elsewhere
// the file is copied.
type privateIndex struct {
	dir  string // its folder, removed by close
	path string // the private index
	real string // the working tree's own index
	// realInfo is the working tree's index as last seeded from or
	// installed; nil when it did not exist.
	realInfo fs.FileInfo
}

// errIndexMoved: the working tree's index changed since it was last seeded
// or installed (someone else staged or committed); it was left alone.
var errIndexMoved = errors.New("the index was written by another process meanwhile")

// newPrivateIndex makes a folder for the private index of r, in r's git
// folder when it can be written, else in the temporary folder.
func newPrivateIndex(r *Repo) (*privateIndex, error) {
	dir, err := os.MkdirTemp(r.gitDir, "architect-index-")
	if err != nil {
		if dir, err = os.MkdirTemp("", "architect-index-"); err != nil {
			return nil, err
		}
	}
	return &privateIndex{dir: dir, path: filepath.Join(dir, "index"), real: filepath.Join(r.gitDir, "index")}, nil
}

// env is what makes git use the private index.
func (p *privateIndex) env() []string { return []string{"GIT_INDEX_FILE=" + p.path} }

// seed makes the private index a copy of the working tree's own.
func (p *privateIndex) seed() error {
	info, err := os.Stat(p.real)
	if errors.Is(err, os.ErrNotExist) {
		p.realInfo = nil
		if err := os.Remove(p.path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	if err != nil {
		return err
	}
	tmp := p.path + ".seed"
	_ = os.Remove(tmp)
	if err := linkOrCopy(p.real, tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, p.path); err != nil {
		return err
	}
	p.realInfo = info
	return nil
}

// install makes the private index the working tree's own, through git's
// lock file (index.lock), unless that index changed since it was last
// seeded or installed (errIndexMoved) or another git holds the lock.
func (p *privateIndex) install() error {
	lock := p.real + ".lock"
	if err := linkOrCopy(p.path, lock); err != nil {
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("cannot lock %s: another git process seems to be running in this repository", p.real)
		}
		return err
	}
	now, err := os.Stat(p.real)
	if errors.Is(err, os.ErrNotExist) {
		now, err = nil, nil
	}
	if err != nil || !sameFile(now, p.realInfo) {
		_ = os.Remove(lock)
		if err == nil {
			err = errIndexMoved
		}
		return err
	}
	if err := os.Rename(lock, p.real); err != nil {
		_ = os.Remove(lock)
		return err
	}
	p.realInfo, err = os.Stat(p.real)
	return err
}

func (p *privateIndex) close() error { return os.RemoveAll(p.dir) }

// sameFile reports whether a and b are the same unchanged file (or both
// absent).
func sameFile(a, b fs.FileInfo) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return os.SameFile(a, b) && a.ModTime().Equal(b.ModTime()) && a.Size() == b.Size()
}

// linkOrCopy makes dst, which must not exist, a hard link to src, or a
// copy with src's modification time where a link cannot be made.
func linkOrCopy(src, dst string) error {
	err := os.Link(src, dst)
	if err == nil || errors.Is(err, os.ErrExist) || errors.Is(err, os.ErrNotExist) {
		return err
	}
	return copyIndex(src, dst)
}
