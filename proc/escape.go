//go:build unix

package proc

import (
	"bytes"
	"encoding/binary"
)

// psEntry is one process of a process table (macOS: a kern.proc walk).
type psEntry struct {
	pid, ppid, pgid int
}

// escapees returns the processes of a run that are out of its process
// group pgid (whose leader is the process pgid): the leader's descendants
// by parentage while it lives; the processes re-parented to init (ppid 1,
// their parent having died) that carry the run's marker id; and the
// descendants of those. markOf reads a process's marker ("" when it has
// none or cannot tell); it is called for the children of init only.
func escapees(procs []psEntry, pgid int, id string, markOf func(pid int) string) []int {
	kids := map[int][]int{}
	for _, p := range procs {
		kids[p.ppid] = append(kids[p.ppid], p.pid)
	}
	found := map[int]bool{}
	queue := []int{pgid}
	if id != "" {
		for _, pid := range kids[1] {
			if pid != pgid && markOf(pid) == id {
				found[pid] = true
				queue = append(queue, pid)
			}
		}
	}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, k := range kids[pid] {
			if !found[k] && k != pgid {
				found[k] = true
				queue = append(queue, k)
			}
		}
	}
	var out []int
	for _, p := range procs {
		if found[p.pid] && p.pgid != pgid {
			out = append(out, p.pid) // the group's signal reaches the others
		}
	}
	return out
}

// procargsEnv returns the environment, NUL-separated, of a KERN_PROCARGS2
// buffer (macOS): argc (a 32-bit integer in the machine's order, little
// endian on every Mac Go builds for), the executable's path, NUL padding,
// argc arguments, then the environment strings, ended by an empty string.
func procargsEnv(b []byte) []byte {
	if len(b) < 4 {
		return nil
	}
	argc := int(binary.LittleEndian.Uint32(b))
	b = b[4:]
	i := bytes.IndexByte(b, 0) // the executable's path
	if i < 0 {
		return nil
	}
	b = b[i:]
	for len(b) > 0 && b[0] == 0 {
		b = b[1:]
	}
	for ; argc > 0; argc-- {
		i := bytes.IndexByte(b, 0)
		if i < 0 {
			return nil
		}
		b = b[i+1:]
	}
	end := 0 // the environment ends at the first empty string
	for end < len(b) && b[end] != 0 {
		i := bytes.IndexByte(b[end:], 0)
		if i < 0 {
			return b
		}
		end += i + 1
	}
	return b[:end]
}

// runIDOf returns the value of RunIDEnv in a NUL-separated environment.
func runIDOf(env []byte) string {
	prefix := []byte(RunIDEnv + "=")
	id := ""
	for len(env) > 0 {
		var entry []byte
		entry, env, _ = bytes.Cut(env, []byte{0})
		if bytes.HasPrefix(entry, prefix) {
			id = string(entry[len(prefix):])
		}
	}
	return id
}
