//go:build unix && !linux

package testutil

import "syscall"

// Alive reports whether pid is a process this user may signal. Without
// /proc it cannot tell a zombie (ended, not yet reaped) from a running
// process: both count as alive here.
func Alive(pid int) bool {
	return syscall.Kill(pid, 0) == nil
}

// ProcessesIn lists the processes whose working directory is dir; without
// /proc it finds none.
func ProcessesIn(dir string) []string { return nil }
