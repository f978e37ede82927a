package proc

import "sync"

// RunIDEnv is the environment variable that marks every process of a run
// with the run's unique ID. Processes inherit it, so descendants that
// leave the run's process group (setsid, daemons) can still be found and
// killed when the run ends.
const RunIDEnv = "ARCHITECT_RUN_ID"

// The processes proc is running. These are package state because what
// they describe is per process: the children of this process, and (see
// EnableSubreaper) the orphans it adopts.
var (
	// startMu is read-locked around Start and track, and write-locked
	// while orphans are reaped, so that a child which exits before it is
	// tracked is never mistaken for an orphan and its exit status stolen
	// from its Wait.
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
