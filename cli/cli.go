// Package cli is architect's command line: one cobra command per file
// (pflag underneath), each parsing its flags into a configuration and
// running the work; the outcome becomes output and an exit status in one
// place (exitCode).
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/loop"
	"github.com/architect-dev/architect/preflight"
	"github.com/architect-dev/architect/proc"
	"github.com/architect-dev/architect/sandbox"
	"github.com/architect-dev/architect/usererr"
	"github.com/spf13/pflag"
)

// Exit statuses.
const (
	ExitOK          = 0
	ExitNoSuccess   = 1
	ExitUsage       = 2
	ExitInterrupted = 130
)

// env is what a command needs from the outside world.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	lookup         func(string) (string, bool)
	// interrupt stops the run as SIGINT does (a key in the terminal view).
	interrupt *interrupter
	// workspace is the workspace of the loop this process runs, once it
	// has started: a SIGTERM that `architect cancel` sent is told apart
	// by the request it left there.
	workspace atomic.Pointer[string]
}

// Main runs architect with args and returns the exit status.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == proc.SupervisorCommand {
		return proc.Supervise(args[1:], stdin) // see contain below
	}
	sandbox.EnableHelper() // this program serves sandbox.Command
	if len(args) > 0 && args[0] == sandbox.Command {
		return sandbox.Main(args[1:]) // confines itself, then execs the agent or check
	}
	if len(args) > 0 && args[0] == proc.ShellCommand {
		return proc.Interpret(args[1:], stdin, stdout, stderr) // the built-in check shell
	}
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, lookup: os.LookupEnv}
	root := newRoot(e)
	root.SetArgs(args)
	ctx, in, stop := signalContext(e)
	defer stop()
	e.interrupt = in
	return exitCode(e, root.ExecuteContext(ctx))
}

// errNoSuccess: the work ran but did not succeed; already reported.
var errNoSuccess = errors.New("no success")

// errShown: the problem was already printed (usage on stderr); exit 2.
var errShown = errors.New("usage shown")

// failure is an error that ends a command with status code, with a hint.
type failure struct {
	msg, hint string
	code      int
}

func (f *failure) Error() string { return f.msg }

// genericHint follows an error that is neither the user's input nor a
// refusal with its own hint.
const genericHint = "if the message does not say enough, report it with the command you ran: https://github.com/architect-dev/architect/issues"

// exitCode is the one place where outcomes become exit statuses. Every
// error is printed as `architect: error: ...` then `architect: hint: ...`.
func exitCode(e *env, err error) int {
	var ue *usererr.Error
	var ce config.Errors
	var pf preflight.Failures
	var f *failure
	say := func(msg, hint string) {
		fmt.Fprintf(e.stderr, "architect: error: %s\n", printable(msg))
		if hint == "" {
			hint = genericHint
		}
		fmt.Fprintf(e.stderr, "architect: hint: %s\n", printable(hint))
	}
	switch {
	case err == nil, errors.Is(err, pflag.ErrHelp):
		return ExitOK
	case errors.Is(err, loop.ErrInterrupted):
		return ExitInterrupted
	case errors.Is(err, errNoSuccess):
		return ExitNoSuccess
	case errors.Is(err, errShown):
		return ExitUsage
	case errors.As(err, &ce):
		for _, x := range ce {
			say(x.Error(), x.Hint)
		}
		return ExitUsage
	case errors.As(err, &pf):
		for _, x := range pf {
			say(x.Check+": "+x.Detail, x.Hint)
		}
		return ExitUsage
	case errors.As(err, &ue):
		say(ue.Msg, ue.Hint)
		return ExitUsage
	case errors.As(err, &f):
		say(f.msg, f.hint)
		return f.code
	default:
		say(err.Error(), "")
		return ExitNoSuccess
	}
}

// contain sets architect up, before a loop or batch starts anything, so
// that nothing it starts outlives it even if it is killed (proc.Contain):
// a run cgroup where one can be made, and a supervisor, which is architect
// started again with the hidden command proc.SupervisorCommand. The
// returned function ends it cleanly. ARCHITECT_NO_CGROUP=1 keeps the runs
// out of a cgroup.
func contain(e *env) (release func()) {
	noCgroup, _ := e.lookup("ARCHITECT_NO_CGROUP")
	return proc.Contain(proc.ContainOptions{
		Supervisor: []string{proc.SupervisorCommand},
		NoCgroup:   noCgroup != "" && noCgroup != "0",
		Warn:       func(msg string) { fmt.Fprintf(e.stderr, "architect: warning: %s\n", msg) },
	})
}
