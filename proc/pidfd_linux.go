package proc

import (
	"bytes"
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// pinned is a process held by a pidfd, so that it cannot be confused with
// a later process that reuses its pid. fd is -1 on kernels without pidfds
// (before 5.3), where it falls back to the pid.
type pinned struct{ pid, fd int }

func pin(pid int) (pinned, bool) {
	fd, err := unix.PidfdOpen(pid, 0)
	switch {
	case err == nil:
		return pinned{pid, fd}, true
	case errors.Is(err, unix.ESRCH):
		return pinned{}, false
	default:
		return pinned{pid, -1}, true
	}
}

func (p pinned) kill() { p.signal(unix.SIGKILL) }

func (p pinned) signal(sig unix.Signal) {
	if p.fd >= 0 {
		_ = unix.PidfdSendSignal(p.fd, sig, nil, 0)
		return
	}
	_ = unix.Kill(p.pid, sig)
}

// waitExit waits, for a second at most, until the process has died, and
// reports whether it has. A killed process dies in microseconds unless
// stuck in uninterruptible sleep, which must not hang the caller.
func (p pinned) waitExit() bool {
	if p.fd < 0 {
		return false
	}
	fds := []unix.PollFd{{Fd: int32(p.fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, 1000)
		if err != unix.EINTR {
			return n > 0
		}
	}
}

// reap collects the exit status of a killed child of this process, unless
// it is stuck: then a later sweep reaps it.
func (p pinned) reap() {
	opts := 0
	if p.fd >= 0 && !p.waitExit() {
		opts = unix.WNOHANG
	}
	var ws unix.WaitStatus
	for {
		if _, err := unix.Wait4(p.pid, &ws, opts, nil); err != unix.EINTR {
			return
		}
	}
}

func (p pinned) close() {
	if p.fd >= 0 {
		_ = unix.Close(p.fd)
	}
}

// waitAll waits until every process of ps has died, or until deadline.
// Processes pinned without a pidfd cannot be waited for: they are not.
func waitAll(ps []pinned, deadline time.Time) {
	fds := make([]unix.PollFd, 0, len(ps))
	for _, p := range ps {
		if p.fd >= 0 {
			fds = append(fds, unix.PollFd{Fd: int32(p.fd), Events: unix.POLLIN})
		}
	}
	for len(fds) > 0 {
		ms := time.Until(deadline).Milliseconds()
		if ms <= 0 {
			return
		}
		n, err := unix.Poll(fds, int(min(ms, 1<<30)))
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 {
			return
		}
		fds = slices.DeleteFunc(fds, func(f unix.PollFd) bool { return f.Revents != 0 })
	}
}

func closeAll(ps []pinned) {
	for _, p := range ps {
		p.close()
	}
}

// scans counts the reads of the list of every process of the machine, which
// only a broken chain calls for (see killMarked).
var scans atomic.Int64

// pids lists the processes in /proc.
func pids() []int {
	scans.Add(1)
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	out := make([]int, 0, len(names))
	for _, name := range names {
		if pid, err := strconv.Atoi(name); err == nil && pid > 0 {
			out = append(out, pid)
		}
	}
	return out
}

// procStat is what proc needs from /proc/PID/stat.
type procStat struct {
	comm       string
	state      byte // R, S, D, Z, …
	ppid, pgid int
	kthread    bool
	start      uint64 // start time, in clock ticks after boot
	envEnd     int64  // 0 while exec is building the new image (or no mm); -1 unknown
}

func readStat(pid int) (procStat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	// "pid (comm) state ppid pgrp session tty tpgid flags …", where comm
	// may hold anything; env_end is field 51 (Linux 3.5 and later).
	i := bytes.LastIndexByte(b, ')')
	j := bytes.IndexByte(b, '(')
	if i < 0 || j < 0 || j > i {
		return procStat{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 || len(f[0]) != 1 {
		return procStat{}, false
	}
	st := procStat{comm: string(b[j+1 : i]), state: f[0][0], envEnd: -1}
	var err1, err2 error
	st.ppid, err1 = strconv.Atoi(f[1])
	st.pgid, err2 = strconv.Atoi(f[2])
	flags, _ := strconv.ParseUint(f[6], 10, 64)
	st.kthread = flags&0x00200000 != 0 // PF_KTHREAD
	st.start, _ = strconv.ParseUint(f[19], 10, 64)
	if len(f) > 48 {
		st.envEnd, _ = strconv.ParseInt(f[48], 10, 64)
	}
	return st, err1 == nil && err2 == nil
}

// markOf returns the run ID in the environment of pid, if any. unsure is
// true when the environment reads empty because the process is in the
// middle of exec (the kernel has not laid out the new one yet): ask again
// shortly. A process whose environment is really empty, a zombie, a kernel
// thread or another user's process (unreadable) is never unsure.
func markOf(pid int) (id string, unsure bool) {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return "", false
	}
	if len(env) > 0 {
		return runIDOf(env), false
	}
	st, ok := readStat(pid)
	return "", ok && st.envEnd == 0 && !st.kthread && st.state != 'Z' && st.state != 'X'
}

// startOf returns the start time of pid (0 when it is gone), which with
// the pid names one process: a pid can be reused, not with the same start.
func startOf(pid int) uint64 {
	st, ok := readStat(pid)
	if !ok {
		return 0
	}
	return st.start
}

// running reports whether the process pid that started at start is alive
// (a zombie is not).
func running(pid int, start uint64) bool {
	st, ok := readStat(pid)
	return ok && pid > 0 && st.start == start && st.state != 'Z' && st.state != 'X'
}

// bootID names the current boot of the machine: pids and start times only
// mean something within one.
func bootID() string {
	b, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	return strings.TrimSpace(string(b))
}
