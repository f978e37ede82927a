// Package checks runs the user's checks (tests, linters, builds) after an
// agent's iteration and reports which passed. Checks run concurrently, each
// by a shell with pipefail (proc.ResolveShell: a failing stage of a
// pipeline fails the check) in its own process group with a timeout that
// kills its whole process tree (see package proc), and keep only a
// bounded, cleaned tail of their output, which goes into the next prompt
// and the run's report.
package checks

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/sourcegraph/conc"

	"github.com/architect-dev/architect/proc"
	"github.com/architect-dev/architect/runlog"
)

// Defaults for Options.
const (
	DefaultTimeout   = 120 * time.Second
	DefaultTailBytes = 16 << 10
)

// Result is the outcome of one check: the type the run's records keep.
// Run sets its Said to how the check ended in words (see ending), so that
// its Status says "timeout after 1.5s", "canceled", "could not start" or
// "killed by SIGKILL", which a result read back from JSON cannot tell.
type Result = runlog.CheckResult

// ending is what Run knows of how a check ended that a Result does not
// keep: the configured timeout, a cancel, a failure to start, a signal.
type ending struct {
	timeout  time.Duration // configured
	canceled bool
	startErr bool
	signal   string
}

// status says in a few words how the check r ended, as people expect to
// read it: "exit status 1", "timeout after 120s".
func (e ending) status(r Result) string {
	switch {
	case r.TimedOut:
		d := e.timeout
		if d == 0 { // not known: as a Result decoded from JSON says it
			d = time.Duration(r.Duration * float64(time.Second)).Round(time.Second)
		}
		if d%time.Second == 0 {
			return fmt.Sprintf("timeout after %ds", d/time.Second)
		}
		return "timeout after " + d.String()
	case e.canceled:
		return "canceled"
	case e.startErr:
		return "could not start"
	case e.signal != "":
		return "killed by " + e.signal
	}
	return fmt.Sprintf("exit status %d", r.ExitCode)
}

// Options configure Run. Zero values mean the defaults.
type Options struct {
	Dir       string        // where the checks run
	Env       []string      // their environment; nil means this process's
	Timeout   time.Duration // per check; 0 means DefaultTimeout
	Grace     time.Duration // between SIGTERM and SIGKILL; 0 means proc.DefaultGrace
	TailBytes int           // output kept per check; 0 means DefaultTailBytes
	// Shell names what runs each check (proc.ResolveShell): "" is the
	// default, bash, else sh, else the built-in shell, with pipefail.
	Shell string
	// OnStart and OnFinish, if set, are called as each check i starts and
	// ends, for progress displays. They are called from the checks'
	// goroutines, but never two at once.
	OnStart  func(i int, name string)
	OnFinish func(i int, r Result)
	// Output, if set, gives for check i a writer that also receives all
	// its output as it comes (stdout and stderr as one stream), for a copy
	// on disk; it may return nil. A writer that is an io.Closer is closed
	// when the check ends, before OnFinish.
	Output func(i int) io.Writer
	// Wrap starts each check through the sandbox's helper
	// (proc.Options.Wrap); nil: unconfined.
	Wrap func(name string, args []string, arg0 string) (string, []string, string, error)
}

// Run runs every command in cmds at the same time and returns their
// results in the order of cmds. A check passes when it exits with status
// 0 in time. One that cannot be started fails, with the reason as its
// Output. When ctx ends, running checks are stopped and do not pass.
func Run(ctx context.Context, cmds []string, opt Options) []Result {
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
	}
	if opt.TailBytes <= 0 {
		opt.TailBytes = DefaultTailBytes
	}
	results := make([]Result, len(cmds))
	// A shell that cannot be used fails every check: none passes without
	// having run.
	sh, shErr := proc.ResolveShell(ctx, opt.Shell)
	var mu sync.Mutex // serialises the callbacks
	var wg conc.WaitGroup
	for i, name := range cmds {
		wg.Go(func() {
			if opt.OnStart != nil {
				mu.Lock()
				opt.OnStart(i, name)
				mu.Unlock()
			}
			var copyTo io.Writer
			if opt.Output != nil {
				copyTo = opt.Output(i)
			}
			if shErr != nil {
				results[i] = Result{Name: name, ExitCode: -1, Output: shErr.Error()}
				results[i].Said = ending{timeout: opt.Timeout, startErr: true}.status(results[i])
			} else {
				results[i] = run(ctx, sh, name, opt, copyTo)
			}
			if c, ok := copyTo.(io.Closer); ok {
				_ = c.Close()
			}
			if opt.OnFinish != nil {
				mu.Lock()
				opt.OnFinish(i, results[i])
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return results
}

// run runs one check with stdout and stderr into one bounded tail, and
// into copyTo when it is not nil.
func run(ctx context.Context, sh proc.ScriptShell, name string, opt Options, copyTo io.Writer) Result {
	out := proc.NewTail(opt.TailBytes)
	var w io.Writer = out
	if copyTo != nil {
		w = io.MultiWriter(out, copyTo)
	}
	pr := sh.Run(ctx, name, proc.Options{
		Dir:     opt.Dir,
		Env:     opt.Env,
		Stdout:  w,
		Stderr:  w,
		Timeout: opt.Timeout,
		Grace:   opt.Grace,
		Wrap:    opt.Wrap,
	})
	r := Result{
		Name:        name,
		ExitCode:    pr.ExitCode,
		TimedOut:    pr.TimedOut,
		Duration:    pr.Duration.Seconds(),
		Output:      out.String(),
		OutputBytes: out.Total(),
	}
	r.Said = ending{timeout: opt.Timeout, canceled: pr.Canceled, startErr: pr.StartErr != nil, signal: pr.Signalled}.status(r)
	if pr.StartErr != nil {
		r.Output = proc.Clean([]byte(pr.StartErr.Error()))
	}
	r.Passed = pr.StartErr == nil && pr.ExitCode == 0 && !pr.TimedOut && !pr.Canceled
	return r
}
