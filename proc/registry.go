package proc

import (
	"crypto/rand"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// RunIDEnv is the environment variable that marks every process of a run
// with the run's ID, "SESSION.N": SESSION is this architect process's own
// (Self().Marker), N counts its runs. Processes inherit it, so that
// descendants which leave the run's process group (setsid, daemons) can
// still be told apart, and a new architect can find what a killed one
// left (EndLeftovers).
const RunIDEnv = "ARCHITECT_RUN_ID"

// session is this process's part of every run ID: random, so that it
// names this process and no other, even after the pid is reused.
var (
	session = rand.Text()
	runSeq  atomic.Uint64
)

// newRunID returns the ID of a new run of this process.
func newRunID() string {
	return session + "." + strconv.FormatUint(runSeq.Add(1), 10)
}

// inSession reports whether run ID id was made by the process whose
// session is s.
func inSession(id, s string) bool {
	return s != "" && strings.HasPrefix(id, s+".")
}

// The processes proc is running. These are package state because what
// they describe is per process: the children of this process, and (see
// EnableSubreaper) the orphans it adopts.
var (
	// startMu is read-locked around Start and track, and write-locked
	// while adopted orphans are looked at, so that a child which exits
	// before it is tracked is never mistaken for an orphan and its exit
	// status stolen from its Wait.
	startMu sync.RWMutex

	liveMu sync.Mutex
	live   = map[int]string{} // leader pid (which is its pgid) → run ID
)

func track(pid int, id string) {
	liveMu.Lock()
	live[pid] = id
	liveMu.Unlock()
}

func untrack(pid int) {
	liveMu.Lock()
	delete(live, pid)
	liveMu.Unlock()
}

// snapshot returns the running groups and run IDs.
func snapshot() (pgids map[int]bool, ids map[string]bool) {
	liveMu.Lock()
	defer liveMu.Unlock()
	pgids = make(map[int]bool, len(live))
	ids = make(map[string]bool, len(live))
	for pid, id := range live {
		pgids[pid] = true
		ids[id] = true
	}
	return pgids, ids
}
