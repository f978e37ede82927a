package proc

import (
	"context"
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
// start the process as the leader of a new group (in a cgroup of its own
// where there is a run cgroup), registered so that the sweeps and KillAll
// know about it; wait for the leader; then end whatever is left of the
// run (tree.finish: SIGTERM, the grace period, SIGKILL; nothing at all
// when nothing is left); then drain the output pipes.
func run(ctx context.Context, name string, args []string, opt Options) Result {
	if ctx.Err() != nil {
		return Result{ExitCode: -1, Canceled: true}
	}
	if opt.Wrap != nil {
		var err error
		if name, args, opt.Arg0, err = opt.Wrap(name, args, opt.Arg0); err != nil {
			return Result{ExitCode: -1, StartErr: err}
		}
	}
	grace := opt.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	id := newRunID()
	env := opt.Env
	if env == nil {
		env = os.Environ()
	}
	// exec keeps the last of duplicate keys, so this marker wins over any
	// inherited one.
	env = append(slices.Clip(env), RunIDEnv+"="+id)
	stdin := opt.Stdin
	if stdin == nil {
		if f, err := os.Open(os.DevNull); err == nil {
			defer f.Close()
			stdin = f
		}
	}

	start := time.Now()
	var last atomic.Int64 // time of the last output, as a duration since start
	out := &outputs{touch: func() { last.Store(int64(time.Since(start))) }}
	watch := opt.InactivityTimeout > 0
	stdout, stderr, err := out.attach(opt.Stdout, opt.Stderr, watch)
	if err != nil {
		out.close()
		return Result{ExitCode: -1, StartErr: err}
	}

	t := newTree(id)
	defer t.release()
	// stopCause and stopAt are written by Cancel (exec's context
	// goroutine) and read after Wait, which synchronises with it.
	var stopCause error
	var stopAt time.Time
	cmd, err := t.start(func() *exec.Cmd {
		c := exec.CommandContext(runCtx, name, args...)
		if opt.Arg0 != "" {
			c.Args[0] = opt.Arg0
		}
		c.Dir, c.Env, c.Stdin, c.Stdout, c.Stderr = opt.Dir, env, stdin, stdout, stderr
		c.SysProcAttr = t.attr()
		if opt.Attr != nil {
			opt.Attr(c.SysProcAttr)
		}
		c.WaitDelay = grace // then the leader is killed
		c.Cancel = func() error {
			stopCause, stopAt = context.Cause(runCtx), time.Now()
			t.signal(c.Process.Pid, syscall.SIGTERM)
			return nil
		}
		return c
	})
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
		timer := time.AfterFunc(opt.Timeout, func() { cancel(errTimeout) })
		defer timer.Stop()
	}
	stopWatchdog := func() {}
	if watch {
		stopWatchdog = watchdog(start, &last, opt.InactivityTimeout, func() { cancel(errInactive) })
	}

	_ = cmd.Wait() // the outcome is read from ProcessState and stopCause
	res := Result{Duration: time.Since(start)}
	stopWatchdog()
	pid := cmd.Process.Pid
	t.finish(pid, stopCause != nil, stopAt, grace)
	untrack(pid)
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

// register starts cmd and records its group, under startMu so that a
// sweep never sees the child before it is recorded.
func register(cmd *exec.Cmd, id string) error {
	startMu.RLock()
	defer startMu.RUnlock()
	if err := cmd.Start(); err != nil {
		return err
	}
	track(cmd.Process.Pid, id)
	return nil
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
