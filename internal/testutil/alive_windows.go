//go:build windows

package testutil

import "os"

// Alive reports whether pid is a running process (FindProcess opens a
// handle to it on Windows).
func Alive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	_ = p.Release()
	return true
}

// ProcessesIn lists the processes whose working directory is dir; on
// Windows it finds none.
func ProcessesIn(dir string) []string { return nil }
