package proc

import (
	"context"
	"crypto/rand"
	"errors"
	"os"
	"os/exec"
	"slices"
	"sync/atomic"
	"syscall"
	"time"
)

// Why a run was stopped: the cause given to the run's context.
var (
	errTimeout  = errors.New("proc: timeout")
	errInactive = errors.New("proc: inactivity timeout")
)

// run is the one place where processes are started. The sequence is:
// start the process as the leader of a new group, registered so that
// Sweep and KillAll know about it; wait for the leader; if the run was
// stopped, give the rest of the group what is left of the grace period;
// SIGKILL whatever is left of the group; kill escaped descendants by their
// run marker and adopted orphans (sweepRun); then drain the output pipes.
func run(ctx context.Context, name string, args []string, opt Options) Result {
	if ctx.Err() != nil {
		return Result{ExitCode: -1, Canceled: true}
	}
	grace := opt.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	id := rand.Text()
	env := opt.Env
	if env == nil {
		env = os.Environ()
	}
	cmd := exec.CommandContext(runCtx, name, args...)
	cmd.Dir = opt.Dir
	// exec keeps the last of duplicate keys, so this marker wins over any
	// inherited one.
	cmd.Env = append(slices.Clip(env), RunIDEnv+"="+id)
	cmd.SysProcAttr = groupAttr()
	cmd.WaitDelay = grace
	// stopCause and stopAt are written by Cancel (exec's context
	// goroutine) and read after Wait, which synchronises with it.
	var stopCause error
	var stopAt time.Time
	cmd.Cancel = func() error {
		stopCause, stopAt = context.Cause(runCtx), time.Now()
		return killGroup(cmd.Process.Pid, syscall.SIGTERM)
	}
	if opt.Stdin != nil {
		cmd.Stdin = opt.Stdin
	} else if f, err := os.Open(os.DevNull); err == nil {
		defer f.Close()
		cmd.Stdin = f
	}

	start := time.Now()
	var last atomic.Int64 // time of the last output, as a duration since start
	out := &outputs{touch: func() { last.Store(int64(time.Since(start))) }}
	watch := opt.InactivityTimeout > 0
	if err := out.attach(cmd, opt.Stdout, opt.Stderr, watch); err != nil {
		out.close()
		return Result{ExitCode: -1, StartErr: err}
	}

	startMu.RLock()
	err := cmd.Start()
	if err == nil {
		track(cmd.Process.Pid, id)
	}
	startMu.RUnlock()
	out.closeWriteEnds()
	if err != nil {
		out.close()
		if runCtx.Err() != nil {
			return Result{ExitCode: -1, Canceled: true}
		}
		return Result{ExitCode: -1, StartErr: err}
	}
	out.start()

	if opt.Timeout > 0 {
		t := time.AfterFunc(opt.Timeout, func() { cancel(errTimeout) })
		defer t.Stop()
	}
	stopWatchdog := func() {}
	if watch {
		stopWatchdog = watchdog(start, &last, opt.InactivityTimeout, func() { cancel(errInactive) })
	}

	_ = cmd.Wait() // the outcome is read from ProcessState and stopCause
	res := Result{Duration: time.Since(start)}
	stopWatchdog()
	if stopCause != nil {
		// The leader often dies of SIGTERM at once (sh does); the rest of
		// the group gets the rest of the grace period too. Those holding
		// the output pipes are waited for; the others are not seen.
		out.drain(stopAt.Add(grace))
	}
	pid := cmd.Process.Pid
	_ = killGroup(pid, syscall.SIGKILL)
	untrack(pid)
	sweepRun(id)
	out.wait(grace)

	res.ExitCode, res.Signalled = exitStatus(cmd.ProcessState)
	switch {
	case stopCause == nil:
	case errors.Is(stopCause, errTimeout):
		res.TimedOut = true
	case errors.Is(stopCause, errInactive):
		res.Inactive = true
	default:
		res.Canceled = true
	}
	return res
}

// watchdog calls fire once no output has been seen for d. It is one
// goroutine and one timer per run, re-armed for the remaining time when it
// wakes, so output costs a single atomic store per chunk read.
func watchdog(start time.Time, last *atomic.Int64, d time.Duration, fire func()) (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTimer(d)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			idle := time.Since(start) - time.Duration(last.Load())
			if idle >= d {
				fire()
				return
			}
			t.Reset(d - idle)
		}
	}()
	return func() { close(done) }
}
