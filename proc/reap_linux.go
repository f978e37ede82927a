package proc

import (
	"os"
	"syscall"
	"time"

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
// adopted by this process. It looks again while a pass finds some, in case
// one forked while being killed, or finds a process in the middle of exec
// (which may be one of them), with a short pause. The caller holds startMu.
func killMarked(ids map[string]bool) {
	if len(ids) == 0 {
		return
	}
	self := os.Getpid()
	pause := time.Millisecond
	for range 8 {
		pgids, _ := snapshot() // running leaders: their Wait reaps them
		found, unsure := false, false
		for _, pid := range pids() {
			if pid == self {
				continue
			}
			id, u := markOf(pid)
			unsure = unsure || u
			if !ids[id] {
				continue
			}
			p, ok := pin(pid)
			if !ok {
				continue
			}
			// Check again now that the pid cannot be reused.
			st, ok := readStat(pid)
			if id, _ := markOf(pid); ok && ids[id] {
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
		switch {
		case found:
		case unsure:
			time.Sleep(pause) // an exec takes well under a millisecond when not starved
			pause *= 2
		default:
			return
		}
	}
}

// sweepOrphans is Sweep with startMu held. An orphan in the middle of
// exec cannot be told from one of a live run yet: it is looked at again
// after a short pause.
func sweepOrphans() int {
	n, pause := 0, time.Millisecond
	for range 8 {
		k, unsure := sweepOnce()
		n += k
		if !unsure {
			break
		}
		time.Sleep(pause)
		pause *= 2
	}
	return n
}

func sweepOnce() (n int, unsure bool) {
	self, own := os.Getpid(), syscall.Getpgrp()
	pgids, ids := snapshot()
	orphan := func(pid int) bool {
		st, ok := readStat(pid)
		return ok && st.ppid == self && st.pgid != own && !pgids[st.pgid] && !pgids[pid]
	}
	for _, pid := range pids() {
		if !orphan(pid) {
			continue
		}
		p, ok := pin(pid)
		if !ok {
			continue
		}
		id, u := markOf(pid)
		unsure = unsure || u
		if orphan(pid) && !u && !ids[id] {
			p.kill()
			p.reap()
			n++
		}
		p.close()
	}
	return n, unsure
}
