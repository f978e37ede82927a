// Package proc runs the processes architect supervises (agents, checks,
// hooks, git): each in its own process group, with a timeout, an
// inactivity timeout and a graceful-then-forced stop, and with output
// delivered to caller-supplied writers so that memory stays bounded
// whatever a process prints. It is the one place that starts processes.
// Tail, Head and LineWriter keep output bounded; Clean makes it safe to
// show.
//
// Nothing a run starts outlives it. When the leader has exited, or been
// stopped (SIGTERM to every process of the run, the grace period, then
// SIGKILL), what is left of the run gets SIGTERM and the grace period,
// then SIGKILL, until nothing is left. What "the run" is depends on what
// the machine allows:
//
//   - With a run cgroup (Contain, on Linux with cgroup v2 where architect
//     may write: root, or a delegated cgroup such as a systemd user
//     session's), each run is created inside a cgroup of its own
//     (CLONE_INTO_CGROUP). No unprivileged process can leave it: setsid,
//     nohup, double forks and re-parenting change nothing. Its
//     cgroup.events says whether anything is left; cgroup.kill ends it.
//   - Without one (and on every run when Contain was not called), this
//     process is a child subreaper, so every descendant that leaves the
//     run's group is re-parented to it and found through the children
//     lists (/proc/PID/task/TID/children); each carries the run's ID in
//     RunIDEnv, which tells whose it is. A descendant that both left the
//     group and removed RunIDEnv from its environment is ended by the next
//     run to end (it belongs to none that runs), not by its own.
//
// Either way no run reads the list of every process of the machine: the
// cost of a run grows with the run, not with the machine, and a run whose
// processes all exited costs one read (cgroup.events, or this process's
// children list).
//
// If architect itself dies, even by SIGKILL, its supervisor (Contain,
// Supervise) ends everything: cgroup.kill of the run cgroup; without one,
// SIGKILL to the process groups it was told of and one scan of the
// machine for the run marker, which misses only a process that left its
// group and removed RunIDEnv. If the supervisor was killed too, the next
// run in the workspace ends what was left (EndLeftovers), from the Owner
// record in the run's state. On systems other than Linux only the
// process groups are ended.
//
// No library keeps a run's descendants in a cgroup or under a subreaper and ends them all.
// Clean is not charmbracelet/x/ansi's decoder, which lets an unended string sequence eat the rest (TestClean).
package proc

import (
	"context"
	"io"
	"syscall"
	"time"
)

// DefaultGrace is how long a process group gets between SIGTERM and SIGKILL.
const DefaultGrace = 5 * time.Second

// Options describe one process run.
type Options struct {
	Dir   string
	Env   []string  // full environment; nil means os.Environ()
	Stdin io.Reader // nil means /dev/null
	// Stdout and Stderr receive the output as it arrives; nil discards it.
	// They may be the same writer (combined output); writes are serialised.
	Stdout, Stderr io.Writer
	// Timeout ends the run (SIGTERM to the group, Grace, SIGKILL); 0 = none.
	Timeout time.Duration
	// InactivityTimeout ends the run when it writes nothing to stdout or
	// stderr for that long; 0 = none.
	InactivityTimeout time.Duration
	// Grace between SIGTERM and SIGKILL; 0 means DefaultGrace.
	Grace time.Duration
	// Arg0 is the process's argv[0]; "" means the name it was run by.
	Arg0 string
	// Wrap, when set, starts the process through another program (the
	// sandbox's helper, which confines itself and then execs name): it
	// returns the program started instead, its arguments and argv[0]. An
	// error is the run's StartErr.
	Wrap func(name string, args []string, arg0 string) (string, []string, string, error)
	// Attr, when set, adds to the attributes the process is started with
	// what the program Wrap starts needs (the sandbox's helper: namespaces
	// of its own); proc's own (the process group, the cgroup) are kept.
	Attr func(*syscall.SysProcAttr)
}

// Result is what became of a run.
type Result struct {
	ExitCode  int           // the exit status; -1 when killed by a signal or never started
	Duration  time.Duration // wall time from start to the end of Wait
	TimedOut  bool          // Options.Timeout was reached
	Inactive  bool          // Options.InactivityTimeout was reached
	Canceled  bool          // the parent context ended (cancellation or max-time)
	StartErr  error         // the process could not be started (not found, permission denied)
	Signalled string        // name of the signal that ended it, if any
}

// Run runs name with args. See Options.
func Run(ctx context.Context, name string, args []string, opt Options) Result {
	return run(ctx, name, args, opt)
}

// Shell runs script with "sh -c". The user's checks and hooks run with a
// ScriptShell instead, which has pipefail.
func Shell(ctx context.Context, script string, opt Options) Result {
	return run(ctx, "sh", []string{"-c", script}, opt)
}
