package testutil

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ProcessesIn lists the processes whose working directory is dir.
func ProcessesIn(dir string) []string {
	var pids []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd")); err == nil && cwd == dir {
			pids = append(pids, e.Name())
		}
	}
	return pids
}

// Alive reports whether pid is a running process: it has a /proc entry
// and is neither a zombie (Z, ended but not reaped) nor dead (X).
func Alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the command's name may hold spaces and parentheses
	return i > 0 && len(s) > i+2 && s[i+2] != 'Z' && s[i+2] != 'X'
}
