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

// tree is a run's process group: without /proc and cgroups, descendants
// that leave the group are out of reach on this system.
type tree struct {
	id   string
	pgid int
	told bool
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

func (t *tree) signal(pgid int, sig syscall.Signal) { _ = syscall.Kill(-pgid, sig) }

// finish gives the group what is left of the grace period (a normal exit:
// SIGTERM and the whole period), then SIGKILL. Without a way to wait for
// a group, it looks every 10 ms.
func (t *tree) finish(pgid int, stopped bool, stopAt time.Time, grace time.Duration) {
	if syscall.Kill(-pgid, 0) != nil {
		return
	}
	deadline := stopAt.Add(grace)
	if !stopped {
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		deadline = time.Now().Add(grace)
	}
	for time.Now().Before(deadline) && syscall.Kill(-pgid, 0) == nil {
		time.Sleep(10 * time.Millisecond)
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}

func (t *tree) release() {
	if t.told {
		tellGroup('-', t.pgid)
		t.told = false
	}
}

func killRest() {}

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

func endRuns(_, _ string, groups map[int]bool, _ bool) {
	for pgid := range groups {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
}

func startOf(int) uint64 { return 0 }
func bootID() string     { return "" }
