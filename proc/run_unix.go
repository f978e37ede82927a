//go:build unix

package proc

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// exitStatus returns the exit code (-1 when killed by a signal) and the
// name of the signal, if any.
func exitStatus(st *os.ProcessState) (code int, signal string) {
	if st == nil {
		return -1, ""
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1, unix.SignalName(ws.Signal())
	}
	return st.ExitCode(), ""
}

// KillAll sends SIGKILL to every process group proc is running and, on
// Linux, to every process of the run cgroup and every adopted orphan with
// its descendants, without waiting for the runs to end. It is for a second
// interrupt: the runs then end as killed.
func KillAll() {
	startMu.Lock()
	defer startMu.Unlock()
	pgids, _ := snapshot()
	for pgid := range pgids {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
	killRest()
}
