// Package proc runs the processes architect supervises (agents, checks,
// hooks): each in its own process group, with a timeout, an inactivity
// timeout and a graceful-then-forced kill, and with output delivered to
// caller-supplied writers so that memory stays bounded whatever a process
// prints. Agents and checks share this one helper.
//
// Nothing a run starts outlives it. When the leader has exited (or been
// stopped: SIGTERM to the group, then after Grace SIGKILL) the whole group
// is killed; then every process still carrying the run's RunIDEnv marker
// in its environment, which finds descendants that left the group with
// setsid or by daemonizing (Linux); then, with EnableSubreaper, the
// orphans this process has adopted (Sweep). KillAll is for a second
// interrupt. Tail, Head and LineWriter keep output bounded; Clean makes it
// safe to show.
package proc

import (
	"context"
	"io"
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

// Shell runs script with "sh -c".
func Shell(ctx context.Context, script string, opt Options) Result {
	return run(ctx, "sh", []string{"-c", script}, opt)
}
