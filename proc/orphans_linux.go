package proc

import (
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// EnableSubreaper makes this process a child subreaper: processes orphaned
// by its descendants (double forks, daemons, setsid) are re-parented to it
// instead of to init, so that they stay in reach: in its children list,
// where the end of a run looks for them. Runs started without a run cgroup
// (see Contain) make this process a subreaper themselves. On systems other
// than Linux it does nothing.
func EnableSubreaper() error {
	err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	if err == nil {
		reaper.Store(true)
	}
	return err
}

var (
	reaperOnce sync.Once
	reaper     atomic.Bool // this process is a subreaper
)

// ensureReaper makes this process a subreaper before its first run that
// has no cgroup to hold its processes.
func ensureReaper() { reaperOnce.Do(func() { _ = EnableSubreaper() }) }

// Sweep kills and reaps adopted orphans and returns how many it found. An
// adopted orphan is a child of this process that proc is not running
// itself, whose process group differs from this process's own (children
// started with a plain exec.Command share that group and are left to their
// Wait), and which neither belongs to nor carries the marker of a run that
// is still going. Without a run cgroup, every Run ends with a sweep.
func Sweep() int {
	n, pause := 0, time.Millisecond
	for range 8 {
		ps, unsure := leftovers(0, "")
		for _, p := range ps {
			p.kill()
		}
		for _, p := range ps {
			p.waitExit() // the next pass reaps it: it is, or now is, an adopted child
			p.close()
		}
		n += len(ps)
		switch {
		case len(ps) > 0:
		case unsure:
			time.Sleep(pause) // an exec takes well under a millisecond when not starved
			pause *= 2
		default:
			return n
		}
	}
	return n
}

// leftovers returns the adopted orphans that no live run claims, with all
// their descendants, pinned; it reaps the adopted orphans that have died.
// The run of group pgid and ID id, which is ending, claims none: what it
// left is among them. unsure is true when an orphan in the middle of exec
// could not be told yet: look again shortly.
func leftovers(pgid int, id string) (ps []pinned, unsure bool) {
	startMu.Lock()
	roots, unsure := unclaimed(pgid, id)
	startMu.Unlock()
	if len(roots) == 0 {
		return nil, unsure
	}
	return append(roots, pinDescendants(roots)...), unsure
}

// unclaimed is the first half of leftovers; the caller holds startMu.
func unclaimed(ending int, endingID string) (roots []pinned, unsure bool) {
	self, own := os.Getpid(), syscall.Getpgrp()
	pgids, ids := snapshot()
	delete(pgids, ending)
	delete(ids, endingID)
	sup := supervisorPID()
	for _, pid := range adopted() {
		if pgids[pid] || pid == sup {
			continue // a running leader, reaped by its Wait; the supervisor
		}
		st, ok := readStat(pid)
		if !ok || st.ppid != self || st.pgid == own {
			continue
		}
		if st.state == 'Z' || st.state == 'X' {
			reapChild(pid)
			continue
		}
		if pgids[st.pgid] {
			continue // in the group of a running run
		}
		p, ok := pin(pid)
		if !ok {
			continue
		}
		id, u := markOf(pid)
		// Again, now that the pid cannot be reused.
		if st, ok := readStat(pid); !ok || st.ppid != self || u || ids[id] {
			unsure = unsure || u
			p.close()
			continue
		}
		roots = append(roots, p)
	}
	return roots, unsure
}

// pinDescendants pins every descendant of roots, checking after each pin
// that its parent is still one of the tree (or this process, which adopts
// them as their parents die).
func pinDescendants(roots []pinned) []pinned {
	in := map[int]bool{os.Getpid(): true}
	next := make([]int, len(roots))
	for i, p := range roots {
		in[p.pid] = true
		next[i] = p.pid
	}
	var out []pinned
	for len(next) > 0 {
		var level []int
		for _, pid := range next {
			for _, c := range childrenOf(pid) {
				if in[c] {
					continue
				}
				p, ok := pin(c)
				if !ok {
					continue
				}
				if st, ok := readStat(c); !ok || !in[st.ppid] {
					p.close()
					continue
				}
				in[c] = true
				out = append(out, p)
				level = append(level, c)
			}
		}
		next = level
	}
	return out
}

// killAdopted kills every adopted orphan and its descendants, whichever
// run they belong to, without waiting: for KillAll, which holds startMu.
func killAdopted() {
	self, own := os.Getpid(), syscall.Getpgrp()
	pgids, _ := snapshot()
	sup := supervisorPID()
	var roots []pinned
	for _, pid := range adopted() {
		if pgids[pid] || pid == sup {
			continue
		}
		if st, ok := readStat(pid); ok && st.ppid == self && st.pgid != own {
			if p, ok := pin(pid); ok {
				roots = append(roots, p)
			}
		}
	}
	all := append(roots, pinDescendants(roots)...)
	for _, p := range all {
		p.kill()
	}
	closeAll(all)
}

// reapChild collects the exit status of an adopted orphan that has died.
func reapChild(pid int) {
	var ws unix.WaitStatus
	for {
		if _, err := unix.Wait4(pid, &ws, unix.WNOHANG, nil); err != unix.EINTR {
			return
		}
	}
}

// reapAdopted reaps the adopted orphans that have died, for a subreaper
// whose runs are in a cgroup (their end does not sweep).
func reapAdopted() {
	startMu.Lock()
	defer startMu.Unlock()
	self, own := os.Getpid(), syscall.Getpgrp()
	pgids, _ := snapshot()
	sup := supervisorPID()
	for _, pid := range adopted() {
		if pgids[pid] || pid == sup {
			continue
		}
		if st, ok := readStat(pid); ok && st.ppid == self && st.pgid != own && (st.state == 'Z' || st.state == 'X') {
			reapChild(pid)
		}
	}
}
