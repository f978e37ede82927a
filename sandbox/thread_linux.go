//go:build linux

package sandbox

import (
	"runtime"
	"syscall"

	"github.com/architect-dev/architect/sandbox/helper"
)

// thread is a goroutine locked to its OS thread for good, which Landlock
// and no_new_privs bind (helper.RestrictThread), and which runs the
// starts it is given (exec.Cmd.Start, through proc.Options.Start). Go's
// fork and exec clone from the calling thread (syscall's
// forkAndExecInChild1: rawVforkSyscall), so a process started there
// inherits its rules. The thread never runs another goroutine, and
// while it is locked the Go runtime starts no thread from it: a new
// thread is made by the runtime's template thread (runtime's newm,
// lockedExt), so the rest of architect stays unconfined. The thread ends
// with the goroutine (close).
type thread struct {
	reqs chan request
	stop chan struct{}
	done chan struct{}
}

type request struct {
	start func() error
	err   chan error
}

// newThread makes a thread confined by p, or says why it could not.
func newThread(p helper.Policy) (*thread, error) {
	t := &thread{reqs: make(chan request), stop: make(chan struct{}), done: make(chan struct{})}
	ready := make(chan error, 1)
	go t.serve(p, ready)
	if err := <-ready; err != nil {
		<-t.done
		return nil, err
	}
	return t, nil
}

func (t *thread) serve(p helper.Policy, ready chan<- error) {
	// Never unlocked once confined: the goroutine's end ends the thread
	// (a thread that failed to be confined, half confined, too).
	runtime.LockOSThread()
	if syscall.Gettid() == syscall.Getpid() {
		// The main thread, whose ID is the process's: confined, it would
		// share its Landlock domain, and so the right to signal and to
		// ptrace, with what it starts. It is held until another
		// goroutine has locked another thread, then given back as it was.
		locked := make(chan struct{})
		go func() {
			runtime.LockOSThread()
			close(locked)
			t.serve(p, ready)
		}()
		<-locked
		runtime.UnlockOSThread()
		return
	}
	defer close(t.done)
	if err := helper.RestrictThread(p); err != nil {
		ready <- err
		return
	}
	ready <- nil
	for {
		select {
		case r := <-t.reqs:
			r.err <- r.start()
		case <-t.stop:
			return
		}
	}
}

// run runs start on the thread and returns its error.
func (t *thread) run(start func() error) error {
	r := request{start: start, err: make(chan error, 1)}
	select {
	case t.reqs <- r:
	case <-t.done:
		return errThreadEnded
	}
	return <-r.err
}

// close ends the thread, after the start it is running.
func (t *thread) close() {
	close(t.stop)
	<-t.done
}
