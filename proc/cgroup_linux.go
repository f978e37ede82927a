package proc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// runCgroup is the cgroup v2 made for this process's runs by Contain,
// beside the cgroup this process lives in: every process proc starts is
// created inside it (CLONE_INTO_CGROUP, so not even its first instruction
// runs outside), in a child cgroup of its own, a slot. Nothing a process
// does without privileges takes it out of its cgroup: not setsid, not a
// double fork, not being re-parented to init. So a slot's cgroup.events
// says whether anything of the run is left, its cgroup.procs lists what,
// and cgroup.kill ends it all at once, without a look at any other
// process of the machine; cgroup.kill of the run cgroup ends every run.
//
// Slots are reused once empty, so a run costs one clone3 and one read of
// cgroup.events, not a mkdir and an rmdir. A slot that has been killed
// (cgroup.kill of it or of the run cgroup) is never reused: Linux (6.18
// at least) kills a process cloned into a cgroup after a cgroup.kill of
// it, as if the kill were still going on.
type runCgroup struct {
	path string // its directory
	rel  string // its path as /proc/PID/cgroup shows it

	mu     sync.Mutex
	free   []*slot
	made   int
	killed uint64 // how many times the whole run cgroup was killed
}

// slot is one run's cgroup, with its directory and cgroup.events open.
type slot struct {
	c      *runCgroup
	empty  bool // the run's end found it empty: put need not look again
	dir    string
	rel    string
	dirFD  int    // O_PATH, for SysProcAttr.CgroupFD
	events int    // cgroup.events, read with pread
	gen    uint64 // runCgroup.killed when it was made
	killed bool   // it was killed: never spawn into it again
}

// cgroupName is the run cgroup's name: the session names it, so that it
// is never taken for another process's.
func cgroupName(marker string) string { return "architect-" + marker }

// makeRunCgroup makes the run cgroup under the cgroup this process is in.
// It fails where there is no cgroup v2 hierarchy, no permission to write
// there (a cgroup that is not delegated to the user), or no cgroup.kill
// (Linux before 5.14).
func makeRunCgroup(marker string) (*runCgroup, error) {
	own, rel, err := ownCgroup()
	if err != nil {
		return nil, err
	}
	path := filepath.Join(own, cgroupName(marker))
	if err := os.Mkdir(path, 0o755); err != nil {
		return nil, err
	}
	fail := func(err error) (*runCgroup, error) {
		_ = os.Remove(path)
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(path, "cgroup.kill")); err != nil {
		return fail(errors.New("no cgroup.kill: Linux 5.14 or later is needed"))
	}
	if typ, _ := os.ReadFile(filepath.Join(path, "cgroup.type")); strings.TrimSpace(string(typ)) != "domain" {
		return fail(fmt.Errorf("%s is a %s cgroup: processes cannot be placed in it", path, strings.TrimSpace(string(typ))))
	}
	return &runCgroup{path: path, rel: strings.TrimSuffix(rel, "/") + "/" + cgroupName(marker)}, nil
}

// ownCgroup returns the directory of the cgroup v2 this process is in,
// and its path as /proc/self/cgroup shows it.
func ownCgroup() (dir, path string, err error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", "", err
	}
	rel, found := "", false
	for line := range strings.Lines(string(b)) {
		if p, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "0::"); ok {
			rel, found = p, true
		}
	}
	if !found || strings.HasSuffix(rel, " (deleted)") {
		return "", "", errors.New("not in a cgroup v2 hierarchy")
	}
	mount, root, err := cgroup2Mount()
	if err != nil {
		return "", "", err
	}
	// The mount may show a subtree only (a container's namespace).
	sub, ok := strings.CutPrefix(rel, strings.TrimSuffix(root, "/"))
	if !ok {
		return "", "", errors.New("this process's cgroup is outside the mounted cgroup v2 tree")
	}
	return filepath.Join(mount, sub), rel, nil
}

// cgroup2Mount finds where the cgroup v2 hierarchy is mounted
// (/sys/fs/cgroup, or /sys/fs/cgroup/unified on hybrid systems) and which
// part of it the mount shows.
func cgroup2Mount() (mount, root string, err error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL…] - FSTYPE SOURCE SUPER"
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok || !strings.HasPrefix(post, "cgroup2 ") {
			continue
		}
		f := strings.Fields(pre)
		if len(f) >= 5 {
			return unescapeMount(f[4]), unescapeMount(f[3]), nil
		}
	}
	return "", "", errors.New("no cgroup v2 hierarchy is mounted")
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// get returns an empty slot, reused or new.
func (c *runCgroup) get() (*slot, error) {
	c.mu.Lock()
	if n := len(c.free); n > 0 {
		s := c.free[n-1]
		c.free = c.free[:n-1]
		c.mu.Unlock()
		return s, nil
	}
	c.made++
	n, gen := strconv.Itoa(c.made), c.killed
	c.mu.Unlock()
	dir := filepath.Join(c.path, n)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, err
	}
	s := &slot{c: c, dir: dir, rel: c.rel + "/" + n, dirFD: -1, events: -1, gen: gen}
	var err error
	if s.dirFD, err = unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0); err == nil {
		s.events, err = unix.Open(filepath.Join(dir, "cgroup.events"), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		s.close()
		_ = os.Remove(dir)
		return nil, err
	}
	return s, nil
}

// put takes back a slot whose run has ended: an empty one is kept for the
// next run. One that was killed is removed; one that is not empty (a
// process stuck in the kernel, which even SIGKILL does not end at once)
// is left to be removed at the end.
func (c *runCgroup) put(s *slot) {
	c.mu.Lock()
	defer c.mu.Unlock()
	empty := s.empty
	s.empty = false
	if s.killed || s.gen != c.killed || !empty && s.populated() {
		s.close()
		_ = unix.Rmdir(s.dir)
		return
	}
	c.free = append(c.free, s)
}

// kill ends every process of every run at once. The slots it killed are
// not used again.
func (c *runCgroup) kill() {
	c.mu.Lock()
	defer c.mu.Unlock()
	_ = os.WriteFile(filepath.Join(c.path, "cgroup.kill"), []byte("1"), 0)
	c.killed++
	for _, s := range c.free {
		s.close()
		_ = unix.Rmdir(s.dir)
	}
	c.free = nil
}

// remove removes the run cgroup, which must be empty; it reports whether
// it could.
func (c *runCgroup) remove() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.free {
		s.close()
	}
	c.free = nil
	return removeCgroup(c.path) == nil
}

// removeCgroup removes the cgroup at path and the cgroups under it, which
// must all be empty (a cgroup's own files go with it).
func removeCgroup(path string) error {
	ents, err := os.ReadDir(path)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if e.IsDir() {
			if err := removeCgroup(filepath.Join(path, e.Name())); err != nil {
				return err
			}
		}
	}
	return unix.Rmdir(path)
}

// killCgroup ends every process in the cgroup at path (and under it), waits
// up to limit for them to die, and removes it.
func killCgroup(path string, limit time.Duration) error {
	if err := os.WriteFile(filepath.Join(path, "cgroup.kill"), []byte("1"), 0); err != nil {
		return err
	}
	ev, err := unix.Open(filepath.Join(path, "cgroup.events"), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err == nil {
		waitEmpty(ev, time.Now().Add(limit))
		_ = unix.Close(ev)
	}
	return removeCgroup(path)
}

// cgroupPids lists the processes in the cgroup at path and under it.
func cgroupPids(path string) []int {
	var out []int
	b, _ := os.ReadFile(filepath.Join(path, "cgroup.procs"))
	for _, f := range bytes.Fields(b) {
		if pid, err := strconv.Atoi(string(f)); err == nil {
			out = append(out, pid)
		}
	}
	ents, _ := os.ReadDir(path)
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, cgroupPids(filepath.Join(path, e.Name()))...)
		}
	}
	return out
}

func (s *slot) populated() bool { return populated(s.events) }

func (s *slot) kill() {
	s.killed = true
	_ = os.WriteFile(filepath.Join(s.dir, "cgroup.kill"), []byte("1"), 0)
}

// waitEmpty waits until no process is left in the slot, or until deadline,
// and reports whether none is.
func (s *slot) waitEmpty(deadline time.Time) bool { return waitEmpty(s.events, deadline) }

func (s *slot) close() {
	for _, fd := range []int{s.dirFD, s.events} {
		if fd >= 0 {
			_ = unix.Close(fd)
		}
	}
	s.dirFD, s.events = -1, -1
}

// populated reads an open cgroup.events: "populated 1" while a process is
// in the cgroup or under it. A read that fails says populated, so that
// nothing is taken for gone that is not.
func populated(events int) bool {
	var buf [128]byte
	n, err := unix.Pread(events, buf[:], 0)
	if err != nil || n <= 0 {
		return true
	}
	return !bytes.Contains(buf[:n], []byte("populated 0"))
}

// waitEmpty waits on an open cgroup.events until it says unpopulated or
// deadline passes. The kernel wakes poll with POLLPRI when the file
// changes after it was last read.
func waitEmpty(events int, deadline time.Time) bool {
	for {
		if !populated(events) {
			return true
		}
		ms := time.Until(deadline).Milliseconds()
		if ms <= 0 {
			return false
		}
		fds := []unix.PollFd{{Fd: int32(events), Events: unix.POLLPRI}}
		_, err := unix.Poll(fds, int(min(ms, 1<<30)))
		if err != nil && err != unix.EINTR || fds[0].Revents&unix.POLLNVAL != 0 {
			return !populated(events)
		}
	}
}
