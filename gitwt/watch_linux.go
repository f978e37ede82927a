package gitwt

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// maxWatches bounds the folders a Watcher watches (one inotify watch each,
// about 1 KiB of kernel memory). A bigger tree is not watched: every Gen
// then reports a change and the diff is recomputed each time, as without a
// Watcher.
var maxWatches = 16384 // a variable for tests

// treeMask are the events that may change what a snapshot of the working
// tree holds: content, mode, and names appearing or going.
const treeMask = unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CLOSE_WRITE | unix.IN_CREATE | unix.IN_DELETE |
	unix.IN_DELETE_SELF | unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_MOVE_SELF

// Watcher tells, without scanning the working tree, whether anything in it
// may have changed: it holds an inotify watch on every folder of the tree
// that git does not ignore, less the excluded paths, plus the repository's
// index and info/exclude, which decide what a snapshot holds too.
//
// Linux queues an event before the write that caused it returns, so once
// the processes that wrote have ended, Gen sees their changes. What
// inotify cannot see, Gen cannot either: writes through a shared mapping
// (mmap) and changes made by another machine on a network file system.
type Watcher struct {
	mu       sync.Mutex
	repo     *Repo
	excludes []string // relative to the top-level folder, without slashes around
	fd       int      // -1 once broken: every Gen is then a change
	buf      []byte
	gen      uint64
	dirs     map[int32]string // watch → folder, relative to the top level ("" for it)
	gitDirs  map[int32]string // watch → the git folder's entry that matters ("index", "exclude")
	rescan   bool             // folders appeared or ignore rules changed: add watches
}

// Watch starts watching the working tree, less excludes (paths relative to
// the top-level folder, as for Diff). It fails where inotify is not
// available or the tree is too big to watch; the caller then does without.
func (r *Repo) Watch(ctx context.Context, excludes []string) (*Watcher, error) {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, err
	}
	w := &Watcher{repo: r, fd: fd, buf: make([]byte, 64<<10), dirs: map[int32]string{}, gitDirs: map[int32]string{}}
	for _, e := range excludes {
		if e = strings.Trim(e, "/"); e != "" {
			w.excludes = append(w.excludes, e)
		}
	}
	for dir, name := range map[string]string{r.gitDir: "index", filepath.Join(r.commonDir, "info"): "exclude"} {
		wd, err := unix.InotifyAddWatch(fd, dir, treeMask|unix.IN_ONLYDIR)
		if err == nil {
			w.gitDirs[int32(wd)] = name
		} else if !errors.Is(err, unix.ENOENT) {
			w.Close()
			return nil, err
		}
	}
	if err := w.addTree(ctx); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

// Gen returns the generation of the working tree: a number that differs
// from one returned earlier whenever anything in the tree may have changed
// since that earlier call. Read it before snapshotting, and compare it with
// a later Gen to know whether the snapshot still holds.
func (w *Watcher) Gen(ctx context.Context) uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fd < 0 {
		w.gen++
		return w.gen
	}
	changed := w.drain()
	if w.fd >= 0 && w.rescan {
		w.rescan = false
		if err := w.addTree(ctx); err != nil {
			w.breakDown()
		}
		// Events queued while adding watches are read now, so that the
		// generation returned covers them.
		changed = w.drain() || changed
	}
	if changed || w.fd < 0 {
		w.gen++
	}
	return w.gen
}

// drain reads every queued event and reports whether one of them may
// change a snapshot.
func (w *Watcher) drain() bool {
	changed := false
	for {
		n, err := unix.Read(w.fd, w.buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n <= 0 {
			if !errors.Is(err, unix.EAGAIN) {
				w.breakDown()
				return true
			}
			return changed
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&w.buf[off]))
			end := min(off+unix.SizeofInotifyEvent+int(ev.Len), n)
			name := strings.TrimRight(string(w.buf[off+unix.SizeofInotifyEvent:end]), "\x00")
			off = end
			if w.event(ev.Wd, ev.Mask, name) {
				changed = true
			}
			if w.fd < 0 {
				return true
			}
		}
	}
}

// event handles one event and reports whether it may change a snapshot.
func (w *Watcher) event(wd int32, mask uint32, name string) bool {
	if mask&unix.IN_Q_OVERFLOW != 0 {
		w.breakDown() // events were lost
		return true
	}
	if which, ok := w.gitDirs[wd]; ok {
		if mask&unix.IN_IGNORED != 0 {
			delete(w.gitDirs, wd)
			return true
		}
		if name == which || name == "info" {
			w.rescan = true // what is tracked or ignored may have changed
			return true
		}
		return false
	}
	dir, ok := w.dirs[wd]
	if !ok {
		return false // a watch already removed
	}
	if mask&unix.IN_IGNORED != 0 {
		delete(w.dirs, wd) // the folder is gone (its parent saw that)
		if dir == "" {
			w.breakDown() // the top-level folder itself
		}
		return dir == ""
	}
	rel := name
	if dir != "" {
		rel = dir + "/" + name
	}
	if name != "" && w.excluded(rel) {
		return false
	}
	if mask&unix.IN_ISDIR != 0 && mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0 || name == ".gitignore" {
		w.rescan = true
	}
	return true
}

// excluded reports whether rel, relative to the top level, is left out of
// snapshots by the excludes, or is a .git folder or file (this
// repository's, or a nested one's, whose snapshot is a commit hash).
func (w *Watcher) excluded(rel string) bool {
	if rel == ".git" || strings.HasPrefix(rel, ".git/") || strings.HasSuffix(rel, "/.git") || strings.Contains(rel, "/.git/") {
		return true
	}
	for _, e := range w.excludes {
		if rel == e || strings.HasPrefix(rel, e+"/") {
			return true
		}
	}
	return false
}

// addTree adds a watch on every folder of the tree that is neither
// excluded nor ignored by git as a whole (node_modules, build output): what
// happens in an ignored folder never reaches a snapshot. A folder already
// watched keeps its watch (inotify returns the same one).
func (w *Watcher) addTree(ctx context.Context) error {
	ignored, _ := w.repo.ignoredDirs(ctx) // without the list, every folder is watched
	root := w.repo.dir
	return filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			if path == root {
				return err
			}
			return nil // vanished meanwhile: its parent's event covers it
		}
		if !d.IsDir() {
			return nil
		}
		rel := ""
		if path != root {
			rel = filepath.ToSlash(path[len(root)+1:])
			if w.excluded(rel) || ignored[rel] {
				return filepath.SkipDir
			}
		}
		if len(w.dirs) >= maxWatches {
			return errTooBig
		}
		wd, err := unix.InotifyAddWatch(w.fd, path, treeMask|unix.IN_ONLYDIR|unix.IN_DONT_FOLLOW|unix.IN_EXCL_UNLINK)
		if err != nil {
			if path != root && (errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR)) {
				return filepath.SkipDir
			}
			return err
		}
		w.dirs[int32(wd)] = rel
		return nil
	})
}

var errTooBig = errors.New("too many folders to watch")

// breakDown gives up watching: from now on every Gen is a change.
func (w *Watcher) breakDown() {
	if w.fd >= 0 {
		_ = unix.Close(w.fd)
		w.fd = -1
	}
}

// Close stops watching.
func (w *Watcher) Close() error {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.breakDown()
	return nil
}
