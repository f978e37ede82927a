//go:build unix

package cli

import "syscall"

// terminate asks the process pid to stop (SIGTERM).
func terminate(pid int) error { return syscall.Kill(pid, syscall.SIGTERM) }
