//go:build windows

package proc

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/architect-dev/architect/usererr"
)

// On Windows, proc builds but starts nothing: ending a run's whole
// process tree there needs Job Objects, which proc does not use. A run
// that could not end what it started would keep fewer promises than it
// states, so starting one fails with ErrUnsupported, and architect loop
// and batch refuse at start (see cli) with a hint pointing to WSL.

// ErrUnsupported is the start error of every run on Windows.
var ErrUnsupported = errors.New("architect does not run agents or checks on Windows: it cannot contain their process trees there (use WSL)")

// Owner says which architect process a run belongs to (see the Unix
// version); on Windows it records the pid only.
type Owner struct {
	PID             int    `json:"pid"`
	Start           uint64 `json:"start,omitempty"`
	Boot            string `json:"boot,omitempty"`
	Marker          string `json:"marker"`
	Supervisor      int    `json:"supervisor_pid,omitempty"`
	SupervisorStart uint64 `json:"supervisor_start,omitempty"`
	Cgroup          string `json:"cgroup,omitempty"`
}

// ContainOptions configure Contain (see the Unix version).
type ContainOptions struct {
	Supervisor []string
	NoCgroup   bool
	Warn       func(string)
}

// Contain does nothing on Windows: no run starts there.
func Contain(ContainOptions) (release func()) { return func() {} }

// Self returns this process's Owner record.
func Self() Owner { return Owner{PID: os.Getpid(), Marker: session} }

// SupervisorCommand is the hidden command of the supervisor (Unix only).
const SupervisorCommand = "__supervise"

// Supervise refuses on Windows.
func Supervise(_ []string, _ io.Reader) int {
	usererr.Say(os.Stderr, usererr.LevelError, "the supervisor does not run on Windows")
	return 2
}

// EnableSubreaper does nothing on Windows.
func EnableSubreaper() error { return nil }

// Sweep does nothing on Windows.
func Sweep() int { return 0 }

// KillAll does nothing on Windows: no run was started.
func KillAll() {}

// Leftovers is what EndLeftovers found of a dead architect's runs.
type Leftovers struct {
	Ended      []string
	OwnerAlive bool
}

// EndLeftovers does nothing on Windows.
func EndLeftovers(Owner) Leftovers { return Leftovers{} }

type tree struct{}

func newTree(string) *tree { return &tree{} }

func (t *tree) attr() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }

func (t *tree) start(cmd func() *exec.Cmd) (*exec.Cmd, error) {
	return cmd(), ErrUnsupported
}

func (t *tree) signal(int, syscall.Signal)                 {}
func (t *tree) finish(int, bool, time.Time, time.Duration) {}
func (t *tree) release()                                   {}

func exitStatus(st *os.ProcessState) (code int, signal string) {
	if st == nil {
		return -1, ""
	}
	return st.ExitCode(), ""
}
