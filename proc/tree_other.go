//go:build unix && !linux

package proc

import (
	"errors"
	"os/exec"
	"syscall"
	"time"
)

// EnableSubreaper does nothing on this system: only Linux has child
// subreapers.
func EnableSubreaper() error { return nil }

func ensureReaper() {}

// Sweep does nothing on this system; see the Linux version.
func Sweep() int { return 0 }

// tree is a run's process group, and on macOS its processes that left
// the group (setsid, daemons), found in the kernel's process table by
// parentage and by the run's marker (see escaped). Elsewhere those are out
// of reach.
type tree struct {
	id     string
	pgid   int
	told   bool
	termed map[int]bool // processes out of the group sent SIGTERM at a stop
}

func newTree(id string) *tree { return &tree{id: id} }

func (t *tree) attr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func (t *tree) start(cmd func() *exec.Cmd) (*exec.Cmd, error) {
	c := cmd()
	err := register(c, t.id)
	if err == nil {
		t.pgid, t.told = c.Process.Pid, true
		tellGroup('+', t.pgid)
	}
	return c, err
}

// signal sends sig to the group and to the run's processes that left it,
// which are found first: once the group has the signal, processes die and
// their children move to new parents while they are looked for.
func (t *tree) signal(pgid int, sig syscall.Signal) {
	others := escaped(pgid, t.id)
	_ = syscall.Kill(-pgid, sig)
	for _, pid := range others {
		_ = syscall.Kill(pid, sig)
		if sig == syscall.SIGTERM {
			if t.termed == nil {
				t.termed = map[int]bool{}
			}
			t.termed[pid] = true
		}
	}
}

// finish gives what is left of the run, its group and its processes out
// of it, what is left of the grace period (a normal exit: SIGTERM and the
// whole period; a process that had SIGTERM at the stop does not get it
// again), then SIGKILL. Without a way to wait for processes, it looks
// every 10 ms. The processes out of the group are looked for again before
// each signal, so that a pid that was reused is never signalled.
func (t *tree) finish(pgid int, stopped bool, stopAt time.Time, grace time.Duration) {
	others := escaped(pgid, t.id)
	if syscall.Kill(-pgid, 0) != nil && len(others) == 0 {
		return
	}
	deadline := stopAt.Add(grace)
	if !stopped {
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		deadline = time.Now().Add(grace)
	}
	for _, pid := range others {
		if !t.termed[pid] {
			_ = syscall.Kill(pid, syscall.SIGTERM)
		}
	}
	for time.Now().Before(deadline) && (syscall.Kill(-pgid, 0) == nil || len(others) > 0) {
		time.Sleep(10 * time.Millisecond)
		if len(others) > 0 {
			others = escaped(pgid, t.id)
		}
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	for _, pid := range escaped(pgid, t.id) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

func (t *tree) release() {
	if t.told {
		tellGroup('-', t.pgid)
		t.told = false
	}
}

// killRest is KillAll's part beyond the groups: this session's marked
// processes (macOS). The caller holds startMu.
func killRest() {
	for _, pid := range marked(session) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// runCgroup: there are no cgroups on this system.
type runCgroup struct{ path string }

func makeRunCgroup(string) (*runCgroup, error) { return nil, errors.New("no cgroups on this system") }
func (c *runCgroup) remove() bool              { return true }

// Leftovers is what EndLeftovers found of a dead architect's runs.
type Leftovers struct {
	Ended      []string
	OwnerAlive bool
}

// EndLeftovers does nothing on this system: finding processes by their
// marker needs /proc.
func EndLeftovers(Owner) Leftovers { return Leftovers{} }

// endRuns is the supervisor's work once the supervised process has died:
// SIGKILL to the groups it was told of, then, with scan, to the processes
// carrying its session's marker that left them (macOS).
func endRuns(marker, _ string, groups map[int]bool, scan bool) {
	for pgid := range groups {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
	if scan {
		for _, pid := range marked(marker) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

func startOf(int) uint64 { return 0 }
func bootID() string     { return "" }
