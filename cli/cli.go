// Package cli is architect's command line: one cobra command per file
// (pflag underneath), each parsing its flags into a configuration and
// calling the package that does the work (loop, batch, merge); the outcome
// becomes output and an exit status in one place (exitCode).
package cli

import (
	"errors"
	"io"
	"os"
	"sync/atomic"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/loop"
	"github.com/architect-dev/architect/merge"
	"github.com/architect-dev/architect/preflight"
	"github.com/architect-dev/architect/proc"
	"github.com/architect-dev/architect/sandbox"
	"github.com/architect-dev/architect/usererr"
	"github.com/spf13/pflag"
)

// Exit statuses.
const (
	ExitOK        = 0
	ExitNoSuccess = 1
	ExitUsage     = 2
	// ExitSetup: the worktree's setup command (worktree_setup.command)
	// failed before the first iteration; no agent started.
	ExitSetup       = 3
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

// errSetup: the worktree's setup failed, so no agent started; already
// reported.
var errSetup = errors.New("setup error")

// errShown: the problem was already printed (usage on stderr); exit 2.
var errShown = errors.New("usage shown")

// failure is an error that ends a command with status code, with a hint;
// err, when set, is its cause, and its text follows msg ("msg: cause").
type failure struct {
	msg, hint string
	code      int
	err       error
}

func (f *failure) Error() string {
	switch {
	case f.err == nil:
		return f.msg
	case f.msg == "":
		return f.err.Error()
	}
	return f.msg + ": " + f.err.Error()
}

func (f *failure) Unwrap() error { return f.err }

// genericHint follows an error that is neither the user's input nor a
// refusal with its own hint.
const genericHint = "if the message does not say enough, report it with the command you ran: https://github.com/architect-dev/architect/issues"

// exitCode is the one place where outcomes become exit statuses. Every
// error is printed as `architect: error: ...` then `architect: hint: ...`.
// A failure or a merge.Error is taken as it is, before what it wraps.
func exitCode(e *env, err error) int {
	var ue *usererr.Error
	var ce config.Errors
	var pf preflight.Failures
	var f *failure
	var me *merge.Error
	say := func(msg, hint string) {
		usererr.Say(e.stderr, usererr.LevelError, "%s", printable(msg))
		if hint == "" {
			hint = genericHint
		}
		usererr.Say(e.stderr, usererr.LevelHint, "%s", printable(hint))
	}
	switch {
	case err == nil, errors.Is(err, pflag.ErrHelp):
		return ExitOK
	case errors.As(err, &f):
		say(f.Error(), f.hint)
		return f.code
	case errors.As(err, &me):
		say(me.Error(), me.Hint)
		if me.Merge {
			return ExitNoSuccess
		}
		return ExitUsage
	case errors.Is(err, loop.ErrInterrupted):
		return ExitInterrupted
	case errors.Is(err, errNoSuccess):
		return ExitNoSuccess
	case errors.Is(err, errSetup):
		return ExitSetup
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
		Warn:       func(msg string) { usererr.Say(e.stderr, usererr.LevelWarning, "%s", msg) },
	})
}
