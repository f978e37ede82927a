package changes

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/architect-dev/architect/gitwt"
)

// maxWatches bounds the folders a Watcher watches (one inotify watch each,
// about 1 KiB of kernel memory). A bigger tree is not watched: every Take
// then reports that anything may have changed, as without a Watcher.
var maxWatches = 16384 // a variable for tests

// maxNewDirs is how many new folders Take asks git about at once; past
// it, the whole tree is watched anew.
const maxNewDirs = 256

// treeMask are the events that may change what a snapshot of the working
// tree holds: content, mode, and names appearing or going.
const treeMask = unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CLOSE_WRITE | unix.IN_CREATE | unix.IN_DELETE |
	unix.IN_DELETE_SELF | unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_MOVE_SELF

// Watcher tells, without scanning the working tree, which paths in it may
// have changed: it holds an inotify watch on every folder of the tree that
// git does not ignore, less the excluded paths, plus the repository's
// index and info/ folder, which decide what a snapshot holds too.
//
// Linux queues an event before the write that caused it returns, so once
// the processes that wrote have ended, Take sees their changes. inotify
// reports what is done through a folder watched; so Take also looks at
// the HEAD of each nested repository (a commit in a submodule is written
// in the git folder above), and files with other hard links are watched
// through their inode. What inotify cannot see, Take cannot either
// (docs/iterations.md lists it; TestWatcherBlindSpots keeps the list true): writes
// through a shared mapping (mmap) while it lasts, through a link to a file
// of the tree made elsewhere during the watch, and changes made by another
// machine on a network file system.
//
// It reads inotify itself rather than through github.com/fsnotify/fsnotify
// because that guarantee rests on Take reading the queue in its own
// goroutine until it is empty (EAGAIN). fsnotify reads the queue in a
// goroutine of its own and hands events over a channel, with no way to ask
// whether what the kernel queued has all been handed over: a Take right
// after the agent ended could miss its last writes, and the loop would
// then reuse a diff without them. Its overhead was therefore not measured.
type Watcher struct {
	mu       sync.Mutex
	repo     *gitwt.Repo
	excludes []string // relative to the top-level folder, without slashes around
	fd       int      // -1 once broken: every Take then reports All
	buf      []byte
	dirs     map[int32]string   // watch → folder, relative to the top level ("" for it)
	gitDirs  map[int32]string   // watch → "git" (this tree's git folder) or "info"
	ignored  map[string]bool    // folders git ignores as a whole: not watched
	nested   map[string]bool    // folders holding a repository of their own
	heads    map[string]string  // nested folder → its HEAD as last seen (headOf)
	files    map[int32][]string // watch → the files of an inode linked elsewhere too
	checkout bool               // the walk is of a fresh checkout (no file has another link)

	// changed are the paths that changed since the last Take: true for
	// those that may have appeared (created, moved in, a folder), false
	// for those only written or chmodded in place.
	changed map[string]bool
	newDirs []string // folders that appeared: to be watched
	all     bool     // the next Take cannot say which paths changed
	rescan  bool     // ignore rules changed or events were lost: watch the tree anew
	index   bool     // the index was written
}

// watch starts watching the working tree of r, less excludes (paths
// relative to the top-level folder, as for Compare). It fails where inotify
// is not available or the tree is too big to watch; the caller then does
// without. clean says the tree is a fresh checkout, in which no folder is
// ignored (there is no untracked file).
func watch(ctx context.Context, r *gitwt.Repo, excludes []string, clean bool) (*Watcher, error) {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, err
	}
	w := &Watcher{repo: r, fd: fd, buf: make([]byte, 64<<10), dirs: map[int32]string{}, gitDirs: map[int32]string{},
		ignored: map[string]bool{}, nested: map[string]bool{}, changed: map[string]bool{},
		heads: map[string]string{}, files: map[int32][]string{}}
	for _, e := range excludes {
		if e = strings.Trim(e, "/"); e != "" {
			w.excludes = append(w.excludes, e)
		}
	}
	for dir, name := range map[string]string{r.GitDir(): "git", filepath.Join(r.CommonDir(), "info"): "info"} {
		wd, err := unix.InotifyAddWatch(fd, dir, treeMask|unix.IN_ONLYDIR)
		if err == nil {
			w.gitDirs[int32(wd)] = name
		} else if !errors.Is(err, unix.ENOENT) {
			w.Close()
			return nil, err
		}
	}
	if clean {
		w.checkout = true
		err = w.walk(r.Dir())
		w.checkout = false
	} else {
		err = w.addTree(ctx)
	}
	if err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

// Take returns what changed since the previous Take (or since watch), and
// starts over. Folders that appeared are watched before it returns, so
// that what happens in them from then on is seen.
func (w *Watcher) Take(ctx context.Context) Changed {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fd >= 0 {
		w.drain()
	}
	w.watchNew(ctx)
	if w.fd >= 0 {
		w.lookAtHeads()
	}
	c := Changed{All: w.all || w.fd < 0, Index: w.index}
	if !c.All {
		c.Paths, c.Appeared = w.paths()
	}
	clear(w.changed)
	w.all, w.index = false, false
	return c
}

// watchNew watches the folders that appeared (or the whole tree anew,
// when asked to or when many did), reading the events queued meanwhile,
// until none is left to watch or the tree keeps changing.
func (w *Watcher) watchNew(ctx context.Context) {
	for round := 0; w.fd >= 0 && (w.rescan || len(w.newDirs) > 0); round++ {
		if round == 4 {
			// Still changing: the folders left are watched at the next
			// Take, and count as changed then.
			w.all = true
			break
		}
		var err error
		if w.rescan || len(w.newDirs) > maxNewDirs {
			w.rescan, w.newDirs, w.all = false, nil, true
			err = w.addTree(ctx)
		} else {
			dirs := w.newDirs
			w.newDirs = nil
			err = w.addDirs(ctx, dirs)
		}
		if err != nil {
			w.breakDown()
		}
		// Events queued while adding watches are read now.
		w.drain()
	}
}

// paths returns the paths that changed, in byte order, outside the
// folders git ignores, and those of them that may have appeared.
func (w *Watcher) paths() (paths, appeared []string) {
	var all []string
	for p := range w.changed {
		if !w.covered(w.ignored, p) {
			all = append(all, p)
		}
	}
	slices.Sort(all)
	// A folder stands for what is in it: "a" then "a/b" keeps "a"
	// ("a.b" sorts between them, "a/" before "a0"), which appeared if
	// anything in it did.
	for _, p := range all {
		if n := len(paths); n > 0 && strings.HasPrefix(p, paths[n-1]+"/") {
			if w.changed[p] && !w.changed[paths[n-1]] {
				w.changed[paths[n-1]] = true
			}
			continue
		}
		paths = append(paths, p)
	}
	for _, p := range paths {
		if w.changed[p] {
			appeared = append(appeared, p)
		}
	}
	return paths, appeared
}

// Rescan watches the tree anew, asking git again which folders it
// ignores as a whole: the index changed what is tracked, and a tracked file
// in an ignored folder makes that folder matter.
func (w *Watcher) Rescan(ctx context.Context) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fd < 0 {
		return
	}
	if err := w.addTree(ctx); err != nil {
		w.breakDown()
		return
	}
	w.drain()
}

// Settle reads the events queued so far. With ownIndex, the index was
// written by the caller since the last Take (a commit): that is not a
// change. Changes in the tree are kept for the next Take.
func (w *Watcher) Settle(ownIndex bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fd >= 0 {
		w.drain()
	}
	if ownIndex {
		w.index = false
	}
}

// drain reads every queued event.
func (w *Watcher) drain() {
	for {
		n, err := unix.Read(w.fd, w.buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n <= 0 {
			if !errors.Is(err, unix.EAGAIN) {
				w.breakDown()
			}
			return
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&w.buf[off]))
			end := min(off+unix.SizeofInotifyEvent+int(ev.Len), n)
			name := strings.TrimRight(string(w.buf[off+unix.SizeofInotifyEvent:end]), "\x00")
			off = end
			w.event(ev.Wd, ev.Mask, name)
			if w.fd < 0 {
				return
			}
		}
	}
}

// event records one event.
func (w *Watcher) event(wd int32, mask uint32, name string) {
	if mask&unix.IN_Q_OVERFLOW != 0 {
		w.all, w.rescan = true, true // events were lost
		return
	}
	if which, ok := w.gitDirs[wd]; ok {
		w.gitDirEvent(wd, which, mask, name)
		return
	}
	if files, ok := w.files[wd]; ok {
		// A file linked from elsewhere too, written through any link.
		if mask&(unix.IN_IGNORED|unix.IN_DELETE_SELF) != 0 {
			delete(w.files, wd)
			return
		}
		for _, f := range files {
			w.note(f, false)
		}
		return
	}
	if dir, ok := w.dirs[wd]; ok {
		w.treeEvent(wd, dir, mask, name)
	} // else a watch already removed
}

// gitDirEvent records an event in the git folder ("git") or its info/
// folder ("info"): the index written, ignore rules or attributes changed.
func (w *Watcher) gitDirEvent(wd int32, which string, mask uint32, name string) {
	switch {
	case mask&unix.IN_IGNORED != 0:
		delete(w.gitDirs, wd)
		w.all = true
	case which == "git" && name == "index" && mask&unix.IN_ATTRIB == 0:
		// What is tracked may have changed. (Its attributes change when
		// the private index is linked to it: nothing to see.)
		w.index = true
	case which == "git" && name == "info", which == "info" && (name == "exclude" || name == "attributes"):
		w.all, w.rescan = true, true // what is ignored, or how files compare, may have changed
	}
}

// treeEvent records an event about name in dir, a folder of the tree.
func (w *Watcher) treeEvent(wd int32, dir string, mask uint32, name string) {
	if mask&unix.IN_IGNORED != 0 {
		delete(w.dirs, wd) // the folder is gone (its parent saw that)
		if dir == "" {
			w.breakDown() // the top-level folder itself
		}
		return
	}
	if name == "" {
		return // the folder itself: its parent tells what matters
	}
	rel := name
	if dir != "" {
		rel = dir + "/" + name
	}
	if name == ".git" {
		w.gitEvent(dir, mask)
		return
	}
	if w.excluded(rel) || w.ignored[rel] {
		return
	}
	isDir := mask&unix.IN_ISDIR != 0
	switch {
	case isDir && mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0:
		w.newDirs = append(w.newDirs, rel)
	case isDir && mask&(unix.IN_MOVED_FROM|unix.IN_DELETE) != 0:
		w.forget(rel)
	}
	if name == ".gitignore" || name == ".gitattributes" {
		w.all = true
		w.rescan = w.rescan || name == ".gitignore"
	}
	if !isDir && mask&(unix.IN_CREATE|unix.IN_MOVED_TO|unix.IN_ATTRIB) != 0 {
		// A link made to a file (its link count changes), or a file made
		// as a link to another: watched through its inode.
		if fi, err := os.Lstat(filepath.Join(w.repo.Dir(), filepath.FromSlash(rel))); err == nil {
			_ = w.watchLinked(rel, filepath.Join(w.repo.Dir(), filepath.FromSlash(rel)), fi)
		}
	}
	w.note(rel, isDir || mask&(unix.IN_MODIFY|unix.IN_CLOSE_WRITE|unix.IN_ATTRIB) == 0)
}

// gitEvent records that a repository appeared in (or left) dir: git now
// sees the folder as a whole, a commit of its own. (The top level's is
// this repository's, watched on its own.)
func (w *Watcher) gitEvent(dir string, mask uint32) {
	if dir == "" {
		return
	}
	switch {
	case mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0:
		w.nested[dir] = true
	case mask&(unix.IN_DELETE|unix.IN_MOVED_FROM) != 0:
		delete(w.nested, dir)
	}
	w.note(dir, true)
}

// fileMask are the events that change a file's content or mode, whichever
// of its names it was written through.
const fileMask = unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CLOSE_WRITE | unix.IN_DELETE_SELF

// watchLinked watches the file rel (at path, with fi) through its inode
// when it has other names, which may be outside the tree: a write through
// one of them raises no event in any folder watched.
func (w *Watcher) watchLinked(rel, path string, fi os.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || !fi.Mode().IsRegular() || st.Nlink < 2 {
		return nil
	}
	if len(w.dirs)+len(w.files) >= maxWatches {
		return errTooBig
	}
	wd, err := unix.InotifyAddWatch(w.fd, path, fileMask|unix.IN_DONT_FOLLOW)
	if err != nil {
		return nil // gone meanwhile: its folder's event covers it
	}
	if !slices.Contains(w.files[int32(wd)], rel) {
		w.files[int32(wd)] = append(w.files[int32(wd)], rel)
	}
	return nil
}

// lookAtHeads notes each nested repository whose HEAD moved since the
// last look: a commit made in a submodule is written in the git folder
// of the repository above (.git/modules/), which is not watched, and in
// an embedded repository's own .git folder, which is not either.
func (w *Watcher) lookAtHeads() {
	for d := range w.heads {
		if !w.nested[d] {
			delete(w.heads, d)
		}
	}
	for d := range w.nested {
		if w.excluded(d) || w.covered(w.ignored, d) {
			continue
		}
		h := headOf(filepath.Join(w.repo.Dir(), filepath.FromSlash(d)))
		if was, ok := w.heads[d]; ok && was != h {
			w.note(d, true)
		}
		w.heads[d] = h
	}
}

// headOf is what says where the repository in dir has its HEAD: the HEAD
// file, the branch's ref file and the packed refs' size and time. Reading
// them costs no process.
func headOf(dir string) string {
	gitDir := filepath.Join(dir, ".git")
	if data, err := os.ReadFile(gitDir); err == nil { // a submodule's: "gitdir: PATH"
		p := strings.TrimSpace(strings.TrimPrefix(string(data), "gitdir:"))
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		gitDir = p
	}
	head, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return ""
	}
	var b strings.Builder
	b.Write(head)
	if ref, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: "); ok {
		if data, err := os.ReadFile(filepath.Join(gitDir, filepath.FromSlash(ref))); err == nil {
			b.Write(data)
		}
		if fi, err := os.Stat(filepath.Join(gitDir, "packed-refs")); err == nil {
			fmt.Fprintf(&b, "%d %d", fi.Size(), fi.ModTime().UnixNano())
		}
	}
	return b.String()
}

// note remembers that rel changed: the folder of a nested repository
// stands for everything in it.
func (w *Watcher) note(rel string, appeared bool) {
	orig := rel
	if len(w.nested) > 0 {
		for p := rel; ; {
			if w.nested[p] {
				rel = p
			}
			i := strings.LastIndexByte(p, '/')
			if i < 0 {
				break
			}
			p = p[:i]
		}
	}
	if w.all {
		return
	}
	w.changed[rel] = w.changed[rel] || appeared || rel != orig
	if len(w.changed) > maxChanged {
		w.all = true
		clear(w.changed)
	}
}

// forget stops watching rel and the folders in it, which moved away or
// were deleted.
func (w *Watcher) forget(rel string) {
	for wd, d := range w.dirs {
		if d == rel || strings.HasPrefix(d, rel+"/") {
			_, _ = unix.InotifyRmWatch(w.fd, uint32(wd))
			delete(w.dirs, wd)
		}
	}
	for _, m := range []map[string]bool{w.ignored, w.nested} {
		for d := range m {
			if d == rel || strings.HasPrefix(d, rel+"/") {
				delete(m, d)
			}
		}
	}
}

// covered reports whether rel is in a folder of set, or is one.
func (w *Watcher) covered(set map[string]bool, rel string) bool {
	if len(set) == 0 {
		return false
	}
	return pathSet(set).covers(rel)
}

// excluded reports whether rel, relative to the top level, is left out of
// snapshots by the excludes, or is in a .git folder (this repository's or
// a nested one's).
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
	ignored, err := ignoredDirs(ctx, w.repo)
	if err != nil {
		ignored = map[string]bool{} // without the list, every folder is watched
	}
	w.ignored = ignored
	return w.walk(w.repo.Dir())
}

// addDirs watches folders that appeared, and those in them, asking git
// which of them it ignores.
func (w *Watcher) addDirs(ctx context.Context, dirs []string) error {
	ignored, err := ignoredDirs(ctx, w.repo, dirs...)
	if err != nil {
		// git 2.39's ls-files fails on some folders in ignored ones
		// ("directory entry not superset of prefix"): ask about the
		// whole tree instead.
		w.all = true
		return w.addTree(ctx)
	}
	for d := range ignored {
		w.ignored[d] = true
	}
	for _, d := range dirs {
		if w.covered(w.ignored, d) {
			continue
		}
		w.note(d, true) // what was written in it before the watch was added
		if err := w.walk(filepath.Join(w.repo.Dir(), filepath.FromSlash(d))); err != nil {
			return err
		}
	}
	return nil
}

// walk watches root and the folders in it that are not excluded or
// ignored; a root that is gone is skipped.
func (w *Watcher) walk(root string) error {
	top := w.repo.Dir()
	// The files of a folder watched for the first time are looked at for
	// other hard links (a stat each); those of a folder watched already
	// were then, or made since (seen as made). A fresh checkout has none.
	fresh := map[string]bool{}
	return filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			if path == top {
				return err
			}
			return nil // vanished meanwhile: its parent's event covers it
		}
		rel := ""
		if path != top {
			rel = filepath.ToSlash(path[len(top)+1:])
		}
		if d.Name() == ".git" && rel != ".git" {
			w.nested[filepath.ToSlash(filepath.Dir(rel))] = true
		}
		if !d.IsDir() {
			if d.Type().IsRegular() && fresh[parent(rel)] {
				if fi, err := d.Info(); err == nil {
					return w.watchLinked(rel, path, fi)
				}
			}
			return nil
		}
		if rel != "" && (w.excluded(rel) || w.ignored[rel]) {
			return filepath.SkipDir
		}
		if len(w.dirs)+len(w.files) >= maxWatches {
			return errTooBig
		}
		wd, err := unix.InotifyAddWatch(w.fd, path, treeMask|unix.IN_ONLYDIR|unix.IN_DONT_FOLLOW|unix.IN_EXCL_UNLINK)
		if err != nil {
			if path != top && (errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR)) {
				return filepath.SkipDir
			}
			return err
		}
		if _, known := w.dirs[int32(wd)]; !known && !w.checkout {
			fresh[rel] = true
		}
		w.dirs[int32(wd)] = rel
		return nil
	})
}

var errTooBig = errors.New("too many folders to watch")

// breakDown gives up watching: from now on every Take reports All.
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
