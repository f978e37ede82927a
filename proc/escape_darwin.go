//go:build darwin

package proc

import (
	"os"

	"golang.org/x/sys/unix"
)

// processes lists this user's processes from the kernel's process table
// (sysctl kern.proc.all): macOS has no /proc and no child subreaper.
func processes() []psEntry {
	kps, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil
	}
	uid := uint32(os.Getuid())
	self := os.Getpid()
	out := make([]psEntry, 0, len(kps))
	for _, k := range kps {
		pid := int(k.Proc.P_pid)
		if k.Eproc.Ucred.Uid != uid || pid == self || pid <= 1 || pid == supervisorPID() {
			continue // another user's (out of reach anyway), this process, launchd, the supervisor
		}
		out = append(out, psEntry{pid: pid, ppid: int(k.Eproc.Ppid), pgid: int(k.Eproc.Pgid)})
	}
	return out
}

// markOf returns the run marker in the environment pid started with
// (sysctl kern.procargs2, which macOS gives for this user's processes),
// "" when it has none or cannot be read.
func markOf(pid int) string {
	b, err := unix.SysctlRaw("kern.procargs2", pid)
	if err != nil {
		return ""
	}
	return runIDOf(procargsEnv(b))
}

// escaped returns the processes of run id that are out of its group pgid
// (see escapees).
func escaped(pgid int, id string) []int { return escapees(processes(), pgid, id, markOf) }

// marked returns the processes whose marker is a run of the session
// marker (see RunIDEnv).
func marked(marker string) []int {
	var out []int
	for _, p := range processes() {
		if inSession(markOf(p.pid), marker) {
			out = append(out, p.pid)
		}
	}
	return out
}
