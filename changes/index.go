package changes

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/architect-dev/architect/gitwt"
	"github.com/gofrs/flock"
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
	// known is the working tree's index as last seeded from or installed
	// (a link to it, or a copy), and realInfo its file; nil when it did not
	// exist.
	known    string
	realInfo fs.FileInfo
	lock     *flock.Flock // held while the folder is in use
	shared   string       // the shared index of the split view (writetree.go), a link to an earlier state of path; "" for none
	buf, out []byte       // read's and rewrite's buffers, kept: a large index read every iteration need not be garbage every time
	readTime time.Time    // the modification time of the private index as read last
}

// read returns the private index's bytes, in a buffer of its own that the
// next read reuses.
func (p *privateIndex) read() ([]byte, error) {
	f, err := os.Open(p.path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	p.readTime = info.ModTime()
	n := int(info.Size())
	if cap(p.buf) < n {
		p.buf = make([]byte, n)
	}
	p.buf = p.buf[:n]
	if _, err := io.ReadFull(f, p.buf); err != nil {
		return nil, err
	}
	return p.buf, nil
}

// errIndexMoved: the working tree's index changed since it was last seeded
// or installed (someone else staged or committed); it was left alone.
var errIndexMoved error = busyError("the index was written by another process meanwhile")

// ErrIndexBusy is what a commit's error is (errors.Is) when another git
// process had the working tree's index, writing it or holding its lock:
// the commit was not made, and nothing was changed (the changes stay in
// the working tree, for the next commit to take).
var ErrIndexBusy = errors.New("another git process was using the index")

// busyError is an error that is ErrIndexBusy.
type busyError string

func (e busyError) Error() string        { return string(e) }
func (e busyError) Is(target error) bool { return target == ErrIndexBusy }

// newPrivateIndex makes a folder for the private index of r, in r's git
// folder when it can be written, else in the temporary folder. The folder
// is locked while in use; those of runs that ended without removing theirs
// (killed) are removed.
func newPrivateIndex(r *gitwt.Repo) (*privateIndex, error) {
	stale, _ := filepath.Glob(filepath.Join(r.GitDir(), indexDirPattern))
	for _, d := range stale {
		l := flock.New(filepath.Join(d, "lock"), flock.SetFlag(os.O_RDONLY))
		if ok, err := l.TryLock(); err == nil && ok {
			_ = os.RemoveAll(d)
			_ = l.Unlock()
		}
	}
	dir, err := os.MkdirTemp(r.GitDir(), indexDirPattern)
	if err != nil {
		if dir, err = os.MkdirTemp("", indexDirPattern); err != nil {
			return nil, err
		}
	}
	p := &privateIndex{dir: dir, path: filepath.Join(dir, "index"), real: filepath.Join(r.GitDir(), "index"),
		known: filepath.Join(dir, "known"), lock: flock.New(filepath.Join(dir, "lock"))}
	if err := p.lock.Lock(); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	return p, nil
}

const indexDirPattern = "architect-index-*"

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
	if err := replaceWith(p.real, p.path); err != nil {
		return err
	}
	return p.remember(info)
}

// remember keeps the working tree's index as it is now, whose file is
// info, as the one known.
func (p *privateIndex) remember(info fs.FileInfo) error {
	p.realInfo = nil
	if err := replaceWith(p.real, p.known); err != nil {
		return err
	}
	p.realInfo = info
	return nil
}

// changedByOthers reports whether the working tree's index says anything
// else than when it was last seeded from or installed: another path
// tracked or staged, not only fresher stat data (`git status` refreshes
// them). oidLen is the length of an object name in bytes.
func (p *privateIndex) changedByOthers(oidLen int) (bool, error) {
	now, err := os.Stat(p.real)
	if errors.Is(err, os.ErrNotExist) {
		now, err = nil, nil
	}
	if err != nil {
		return true, err
	}
	if sameFile(now, p.realInfo) {
		return false, nil
	}
	if now == nil || p.realInfo == nil {
		return true, nil
	}
	was, ok, err := indexEntries(p.known, oidLen)
	if err != nil || !ok {
		return true, err
	}
	is, ok, err := indexEntries(p.real, oidLen)
	if err != nil || !ok || is != was {
		return true, err
	}
	return false, p.remember(now)
}

// install makes src (the private index, or a copy of it made for one
// commit) the working tree's own, through git's lock file (index.lock),
// unless that index changed since it was last seeded or installed
// (errIndexMoved) or another git holds the lock.
func (p *privateIndex) install(src string) error {
	lock := p.real + ".lock"
	if err := linkOrCopy(src, lock); err != nil {
		if errors.Is(err, os.ErrExist) {
			return busyError(fmt.Sprintf("cannot lock %s: another git process seems to be running in this repository", p.real))
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
	info, err := os.Stat(p.real)
	if err != nil {
		return err
	}
	return p.remember(info)
}

func (p *privateIndex) close() error {
	err := os.RemoveAll(p.dir)
	_ = p.lock.Unlock()
	return err
}

// sameFile reports whether a and b are the same unchanged file (or both
// absent).
func sameFile(a, b fs.FileInfo) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return os.SameFile(a, b) && a.ModTime().Equal(b.ModTime()) && a.Size() == b.Size()
}

// replaceWith makes dst a link to (or a copy of) src, replacing it.
func replaceWith(src, dst string) error {
	tmp := dst + ".new"
	_ = os.Remove(tmp)
	if err := linkOrCopy(src, tmp); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}

// linkOrCopy makes dst, which must not exist, a hard link to src, or a
// copy with src's modification time where a link cannot be made.
func linkOrCopy(src, dst string) error {
	err := os.Link(src, dst)
	if err == nil || errors.Is(err, os.ErrExist) || errors.Is(err, os.ErrNotExist) {
		return err
	}
	return gitwt.CopyIndex(src, dst)
}
