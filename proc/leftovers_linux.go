package proc

import (
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// Leftovers is what EndLeftovers found of a dead architect's runs.
type Leftovers struct {
	// Ended lists the processes it ended, as "PID NAME".
	Ended []string
	// OwnerAlive: the recorded architect process is still running (it is
	// left alone, and so is what it runs).
	OwnerAlive bool
}

// ended remembers the sessions already dealt with: the tasks of a batch
// share one owner.
var (
	endedMu sync.Mutex
	ended   = map[string]bool{}
)

// EndLeftovers ends what is left of the runs of o, an architect process
// that died without ending them (its supervisor died too, or has not
// finished): the second line of defence, called before a new run or a
// resume starts anything in the workspace o worked in. If o's supervisor
// is still ending them, it is given a few seconds first. Then: the run
// cgroup, if o had one, is killed and removed; and the machine is scanned,
// once, for processes carrying o's run marker, which are killed with their
// process groups. It does nothing for a live o, for this very process,
// after a reboot (nothing survives one), or a second time for the same o.
func EndLeftovers(o Owner) Leftovers {
	if o.Marker == "" || o.Marker == session || o.Boot != "" && o.Boot != boot() {
		return Leftovers{}
	}
	if running(o.PID, o.Start) {
		return Leftovers{OwnerAlive: true}
	}
	endedMu.Lock()
	defer endedMu.Unlock()
	if ended[o.Marker] {
		return Leftovers{}
	}
	ended[o.Marker] = true
	if o.Supervisor > 0 && running(o.Supervisor, o.SupervisorStart) {
		if p, ok := pin(o.Supervisor); ok {
			if running(o.Supervisor, o.SupervisorStart) {
				waitAll([]pinned{p}, time.Now().Add(5*time.Second))
			}
			p.close()
		}
	}
	var out Leftovers
	if o.Cgroup != "" && filepath.Base(o.Cgroup) == cgroupName(o.Marker) {
		if _, err := os.Stat(o.Cgroup); err == nil {
			for _, pid := range cgroupPids(o.Cgroup) {
				out.Ended = append(out.Ended, describe(pid))
			}
			_ = killCgroup(o.Cgroup, 5*time.Second)
		}
	}
	out.Ended = append(out.Ended, killMarked(func(id string) bool { return inSession(id, o.Marker) }, o.PID)...)
	return out
}

// endRuns is the supervisor's work once the supervised process has died.
func endRuns(marker, cg string, groups map[int]bool, scan bool) {
	if cg != "" && filepath.Base(cg) == cgroupName(marker) {
		_ = killCgroup(cg, 5*time.Second)
	}
	for pgid := range groups {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
	if scan {
		killMarked(func(id string) bool { return inSession(id, marker) }, 0)
	}
}

func describe(pid int) string {
	st, _ := readStat(pid)
	return strconv.Itoa(pid) + " " + st.comm
}

// killMarked kills every process whose run marker matches, and the
// process groups they are in (sparing group spare, the dead owner's own,
// which may hold the user's shell pipeline), waiting for each to die and
// reaping it if it is a child of this process. It is the one place that
// reads every process of the machine: it looks again while a pass finds
// some, in case one forked while being killed, or finds a process in the
// middle of exec (which may be one of them), with a short pause. It
// returns the processes it killed, as "PID NAME".
func killMarked(match func(id string) bool, spare int) []string {
	self, own := os.Getpid(), syscall.Getpgrp()
	pause := time.Millisecond
	var killed []string
	for range 8 {
		startMu.Lock()
		pgids, _ := snapshot() // running leaders: their Wait reaps them
		var found []pinned
		var stats []procStat
		unsure := false
		for _, pid := range pids() {
			if pid == self {
				continue
			}
			id, u := markOf(pid)
			unsure = unsure || u
			if id == "" || !match(id) {
				continue
			}
			p, ok := pin(pid)
			if !ok {
				continue
			}
			// Check again now that the pid cannot be reused.
			st, ok := readStat(pid)
			if id, _ := markOf(pid); !ok || !match(id) || st.state == 'Z' {
				p.close()
				continue
			}
			found = append(found, p)
			stats = append(stats, st)
		}
		for i, p := range found {
			killed = append(killed, strconv.Itoa(p.pid)+" "+stats[i].comm)
			p.kill()
			if g := stats[i].pgid; g > 1 && g != spare && g != own {
				_ = syscall.Kill(-g, syscall.SIGKILL)
			}
		}
		for i, p := range found {
			if stats[i].ppid == self && !pgids[p.pid] {
				p.reap()
			} else {
				p.waitExit()
			}
			p.close()
		}
		startMu.Unlock()
		switch {
		case len(found) > 0:
		case unsure:
			time.Sleep(pause) // an exec takes well under a millisecond when not starved
			pause *= 2
		default:
			return killed
		}
	}
	return killed
}
