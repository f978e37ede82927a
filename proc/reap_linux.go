package proc

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// EnableSubreaper makes this process a child subreaper: processes orphaned
// by its descendants (double forks, daemons) are re-parented to it instead
// of to init, so that Sweep can kill and reap them. Call it once, early in
// main. On systems other than Linux it does nothing.
func EnableSubreaper() error {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// Sweep kills and reaps adopted orphans and returns how many it found. An
// adopted orphan is a child of this process that proc is not running
// itself, whose process group differs from this process's own (children
// started with a plain exec.Command share that group and are left to their
// Wait), and which neither belongs to nor carries the marker of a run that
// is still going. Every Run ends with a Sweep.
func Sweep() int {
	startMu.Lock()
	defer startMu.Unlock()
	return sweepOrphans()
}

// sweepRun is the end of every run: kill the run's marked descendants,
// then the orphans.
func sweepRun(id string) {
	startMu.Lock()
	defer startMu.Unlock()
	killMarked(map[string]bool{id: true})
	sweepOrphans()
}

// killMarked kills every process carrying one of the run IDs in its
// environment and waits for it to die, reaping it if it is an orphan
// adopted by this process. It repeats until a pass finds none, in case one
// forked while being killed. The caller holds startMu.
func killMarked(ids map[string]bool) {
	if len(ids) == 0 {
		return
	}
	self := os.Getpid()
	for range 8 {
		pgids, _ := snapshot() // running leaders: their Wait reaps them
		found := false
		for _, pid := range pids() {
			if pid == self || !ids[runIDOf(readEnviron(pid))] {
				continue
			}
			p, ok := pin(pid)
			if !ok {
				continue
			}
			// Check again now that the pid cannot be reused.
			st, ok := readStat(pid)
			if ok && ids[runIDOf(readEnviron(pid))] {
				found = true
				p.kill()
				if st.ppid == self && !pgids[pid] {
					p.reap()
				} else {
					p.waitExit()
				}
			}
			p.close()
		}
		if !found {
			return
		}
	}
}

// sweepOrphans is Sweep with startMu held.
func sweepOrphans() int {
	self, own := os.Getpid(), syscall.Getpgrp()
	pgids, ids := snapshot()
	orphan := func(pid int) bool {
		st, ok := readStat(pid)
		return ok && st.ppid == self && st.pgid != own && !pgids[st.pgid] && !pgids[pid]
	}
	n := 0
	for _, pid := range pids() {
		if !orphan(pid) {
			continue
		}
		p, ok := pin(pid)
		if !ok {
			continue
		}
		if orphan(pid) && !ids[runIDOf(readEnviron(pid))] {
			p.kill()
			p.reap()
			n++
		}
		p.close()
	}
	return n
}
