package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/architect-dev/architect/loop"
	"github.com/architect-dev/architect/proc"
)

// interrupter stops a run. The first request (SIGINT, SIGTERM, or q or
// Ctrl-C in the terminal view, where the terminal sends no signal) cancels
// the context with cause loop.ErrInterrupted: the agent and the checks get
// SIGTERM and the state is saved. Any later one kills every child process
// group at once.
type interrupter struct {
	mu     sync.Mutex
	n      int
	cancel context.CancelCauseFunc
	out    io.Writer // where it says what it does; the view's while it owns the terminal
}

// request stops the run; first is what it says the first time.
func (in *interrupter) request(first string) {
	in.mu.Lock()
	in.n++
	n, out := in.n, in.out
	in.mu.Unlock()
	if n == 1 {
		fmt.Fprintln(out, first)
		in.cancel(loop.ErrInterrupted)
		return
	}
	fmt.Fprintln(out, "architect: killing the agent and checks now")
	proc.KillAll()
}

// key is the terminal view's q or Ctrl-C.
func (in *interrupter) key() {
	in.request("architect: stop requested: stopping (press q or ctrl+c again to kill the agent and checks at once)")
}

// say redirects the messages to w until the returned function is called.
func (in *interrupter) say(w io.Writer) (restore func()) {
	in.mu.Lock()
	defer in.mu.Unlock()
	old := in.out
	in.out = w
	return func() {
		in.mu.Lock()
		in.out = old
		in.mu.Unlock()
	}
}

// signalContext returns a context that the interrupter cancels, and
// routes SIGINT and SIGTERM to it. A SIGTERM that `architect cancel` sent
// (it leaves its request in the workspace) says so.
func signalContext(e *env) (context.Context, *interrupter, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	in := &interrupter{cancel: cancel, out: e.stderr}
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case s := <-ch:
				if ws := e.workspace.Load(); ws != nil && s == syscall.SIGTERM && controlAction(*ws) == "cancel" {
					in.request("architect: `architect cancel` asked this loop to stop: stopping gracefully")
					continue
				}
				in.request("architect: " + strings.ToLower(signalName(s)) + " received: stopping (send it again to kill the agent and checks at once)")
			}
		}
	}()
	return ctx, in, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}

func signalName(s os.Signal) string {
	if s == syscall.SIGINT {
		return "SIGINT"
	}
	return "SIGTERM"
}
