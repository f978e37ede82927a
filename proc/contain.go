//go:build unix

package proc

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// Owner says which architect process a run belongs to and where its
// processes can be found, so that if it dies without ending them a later
// architect can (EndLeftovers). The run's state records it. Pids are
// paired with start times and the boot, so that a reused pid is never
// taken for the one recorded.
type Owner struct {
	PID             int    `json:"pid"`
	Start           uint64 `json:"start,omitempty"` // clock ticks after boot
	Boot            string `json:"boot,omitempty"`  // the kernel's boot ID
	Marker          string `json:"marker"`          // the SESSION of its runs' RunIDEnv
	Supervisor      int    `json:"supervisor_pid,omitempty"`
	SupervisorStart uint64 `json:"supervisor_start,omitempty"`
	Cgroup          string `json:"cgroup,omitempty"` // the run cgroup's directory
}

// ContainOptions configure Contain.
type ContainOptions struct {
	// Supervisor holds the arguments that make this program, started
	// again, call Supervise (for architect: SupervisorCommand); empty
	// means no supervisor.
	Supervisor []string
	// NoCgroup keeps the runs out of a cgroup even where one can be made.
	NoCgroup bool
	// Warn is told of what weakens the containment without stopping the
	// work (the supervisor could not start or has died).
	Warn func(string)
}

// The containment set up by Contain, for the whole process.
var (
	contMu   sync.Mutex
	contOn   bool
	contDone bool
	contWarn = func(string) {}
	runCg    atomic.Pointer[runCgroup] // nil: none, or spawning into it failed
	madeCg   atomic.Pointer[runCgroup] // the run cgroup made, even when off
	supFD    atomic.Int64              // write end of the supervisor's stdin; -1 without one
	supPID   atomic.Int64
	supStart uint64
)

func init() { supFD.Store(-1) }

// Contain sets this process up to end everything its runs start, even if
// it dies by SIGKILL, and returns the function that ends the containment
// once the work is over (call it before exiting; it is safe to call more
// than once). It is called once, before the first run; later calls do
// nothing.
//
// Where a cgroup v2 can be made (root, or a delegated cgroup such as a
// systemd user session's), the runs' processes are created inside a run
// cgroup and cannot leave it. Elsewhere this process becomes a child
// subreaper, and runs find their descendants through the children lists.
// With ContainOptions.Supervisor a supervisor process is started, in a
// session of its own so that a signal to this process's group does not
// reach it; when this process dies, by any signal, the supervisor sees
// its stdin reach end of file and ends the runs: cgroup.kill of the run
// cgroup, or else the process groups it was told of and one scan of the
// machine for this process's run marker. See Supervise.
func Contain(o ContainOptions) (release func()) {
	contMu.Lock()
	defer contMu.Unlock()
	if contOn {
		return func() {}
	}
	contOn = true
	if o.Warn != nil {
		contWarn = o.Warn
	}
	if !o.NoCgroup {
		if c, err := makeRunCgroup(session); err == nil {
			madeCg.Store(c)
			runCg.Store(c)
		}
	}
	if runCg.Load() == nil {
		ensureReaper()
	}
	if len(o.Supervisor) > 0 {
		if err := startSupervisor(o.Supervisor); err != nil {
			contWarn(fmt.Sprintf("cannot start the supervisor that ends the agent and checks if architect is killed: %v", err))
		}
	}
	return releaseContainment
}

// releaseContainment ends the containment after a clean end: the run
// cgroup is removed, and the supervisor is told it has nothing to do.
// Left populated (a process stuck in the kernel), the cgroup is left to
// the supervisor, which is then not told.
func releaseContainment() {
	contMu.Lock()
	defer contMu.Unlock()
	if !contOn || contDone {
		return
	}
	contDone = true
	clean := true
	if c := madeCg.Load(); c != nil {
		runCg.Store(nil)
		clean = c.remove()
	}
	if fd := int(supFD.Swap(-1)); fd >= 0 {
		if clean {
			_, _ = unix.Write(fd, []byte("done\n"))
		}
		_ = unix.Close(fd)
	}
}

// currentCgroup returns the run cgroup new runs go in, or nil.
func currentCgroup() *runCgroup { return runCg.Load() }

// cgroupFailed turns the run cgroup off for new runs after a process
// could not be started in it, and tells the supervisor to look for the
// runs by their groups and marker from now on.
func cgroupFailed(err error) {
	if c := runCg.Swap(nil); c != nil {
		tell("nocgroup\n")
		contWarn(fmt.Sprintf("cannot start processes in the cgroup %s (%v): going on without it", c.path, err))
	}
}

// Self returns this process's Owner record, for the run's state.
func Self() Owner {
	o := Owner{PID: os.Getpid(), Start: selfStart(), Boot: boot(), Marker: session}
	if c := currentCgroup(); c != nil {
		o.Cgroup = c.path
	}
	contMu.Lock()
	defer contMu.Unlock()
	if pid := int(supPID.Load()); pid > 0 {
		o.Supervisor, o.SupervisorStart = pid, supStart
	}
	return o
}

var (
	selfStart = sync.OnceValue(func() uint64 { return startOf(os.Getpid()) })
	boot      = sync.OnceValue(bootID)
)

// supervisorPID is the supervisor's pid, 0 without one: a child of this
// process that the sweeps must leave alone.
func supervisorPID() int { return int(supPID.Load()) }

// startSupervisor starts this program again with args, the session and the
// run cgroup, its stdin a pipe of which this process holds the only write
// end (close-on-exec: no child inherits it). The caller holds contMu.
func startSupervisor(args []string) error {
	// Both ends close-on-exec, made under ForkLock as the os package
	// does, so that no process started meanwhile inherits them.
	var fds [2]int
	syscall.ForkLock.RLock()
	err := syscall.Pipe(fds[:])
	if err == nil {
		syscall.CloseOnExec(fds[0])
		syscall.CloseOnExec(fds[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return err
	}
	r := os.NewFile(uintptr(fds[0]), "supervisor stdin")
	defer r.Close()
	// A supervisor that is stopped must never block a run: messages that
	// do not fit in the pipe are dropped (the marker scan still finds
	// what they would have named).
	_ = unix.SetNonblock(fds[1], true)
	exe, err := self()
	if err != nil {
		_ = unix.Close(fds[1])
		return err
	}
	cg := ""
	if c := currentCgroup(); c != nil {
		cg = c.path
	}
	cmd := &exec.Cmd{
		Path: exe,
		// os.Args[0] first: a program that dispatches on its name (a
		// test binary serving several commands) stays itself.
		Args:  append(append([]string{os.Args[0]}, args...), session, cg),
		Stdin: r,
		Dir:   "/",
		// No environment: nothing to inherit, no secret to expose, and no
		// run marker, so that no scan takes it for part of a run.
		Env:         []string{},
		SysProcAttr: &syscall.SysProcAttr{Setsid: true},
	}
	if err := cmd.Start(); err != nil {
		_ = unix.Close(fds[1])
		return err
	}
	pid := cmd.Process.Pid
	supStart = startOf(pid)
	supPID.Store(int64(pid))
	supFD.Store(int64(fds[1]))
	go func() {
		_ = cmd.Wait()
		supPID.Store(0)
		contMu.Lock()
		done := contDone
		contMu.Unlock()
		if !done {
			contWarn(fmt.Sprintf("the supervisor (pid %d) has ended: if architect is killed now, what it runs is ended only when the next run in this workspace starts", pid))
		}
	}()
	return nil
}

// tell sends msg to the supervisor, if there is one and it keeps up.
func tell(msg string) {
	if fd := int(supFD.Load()); fd >= 0 {
		_, _ = unix.Write(fd, []byte(msg))
	}
}

// tellGroup tells the supervisor that a process group started ('+') or
// ended ('-'), for runs outside a run cgroup.
func tellGroup(op byte, pgid int) {
	if supFD.Load() >= 0 {
		tell(string(op) + strconv.Itoa(pgid) + "\n")
	}
}
