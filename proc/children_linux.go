package proc

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"sync/atomic"
)

// The children lists (/proc/PID/task/TID/children) find a process's
// children by reading as many small files as it has threads, where a scan
// of /proc reads every process of the machine. Kernels built without
// CONFIG_PROC_CHILDREN lack them: then noChildren is set and proc scans.
var noChildren atomic.Bool

// adopted lists the children of this process's main thread. That is where
// the kernel re-parents the orphans of a subreaper: it picks the first
// live thread of the thread group, and Go's main thread never exits. The
// children that proc started itself may be listed under any thread; they
// are known by other means (the registry).
func adopted() []int {
	self := os.Getpid()
	if !noChildren.Load() {
		kids, err := readChildren("/proc/self/task/" + strconv.Itoa(self) + "/children")
		if err == nil {
			return kids
		}
		if errors.Is(err, fs.ErrNotExist) {
			noChildren.Store(true)
		}
	}
	return scanChildren(self)
}

// childrenOf lists the children of pid, forked by any of its threads.
func childrenOf(pid int) []int {
	if noChildren.Load() {
		return scanChildren(pid)
	}
	dir := "/proc/" + strconv.Itoa(pid) + "/task/"
	d, err := os.Open(dir)
	if err != nil {
		return nil
	}
	tids, _ := d.Readdirnames(-1)
	d.Close()
	var out []int
	for _, tid := range tids {
		kids, err := readChildren(dir + tid + "/children")
		if errors.Is(err, fs.ErrNotExist) && tid == strconv.Itoa(pid) {
			// The main thread has no list: no CONFIG_PROC_CHILDREN (a
			// thread that just exited has none either, but not the main
			// one while the process lives).
			noChildren.Store(true)
			return scanChildren(pid)
		}
		out = append(out, kids...)
	}
	return out
}

func readChildren(path string) ([]int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []int
	for _, f := range bytes.Fields(b) {
		if pid, err := strconv.Atoi(string(f)); err == nil {
			out = append(out, pid)
		}
	}
	return out, nil
}

// scanChildren finds the children of parent by reading the parent of
// every process: for kernels without children lists.
func scanChildren(parent int) []int {
	var out []int
	for _, pid := range pids() {
		if st, ok := readStat(pid); ok && st.ppid == parent {
			out = append(out, pid)
		}
	}
	return out
}
