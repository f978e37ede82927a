// Package cli is architect's command line: it parses each subcommand's
// flags, builds the configuration, runs the work, and turns the outcome
// into output and an exit status in one place.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/loop"
	"github.com/architect-dev/architect/proc"
	"github.com/spf13/pflag"
)

// Version is set at build time with -ldflags "-X .../cli.Version=v1.2.3".
var Version = "dev"

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
	// workspace is the workspace of the loop this process runs, once it
	// has started: a SIGTERM that `architect cancel` sent is told apart
	// by the request it left there.
	workspace atomic.Pointer[string]
}

type command struct {
	name, summary string
	run           func(ctx context.Context, e *env, args []string) error
	hidden        bool
}

func commands() []command {
	return []command{
		{name: "loop", summary: "run an agent in a check-driven loop until the checks pass", run: runLoop},
		{name: "demo", summary: "run a real loop with the built-in demo agent on a temporary repository", run: runDemo},
		{name: "status", summary: "show the state of a loop", run: runStatus},
		{name: "pause", summary: "pause a running loop after its current agent run", run: runPause},
		{name: "resume", summary: "resume a paused loop, or restart a stopped one from its state", run: runResume},
		{name: "cancel", summary: "stop a running loop gracefully", run: runCancel},
		{name: "clean", summary: "remove a loop's worktree and branch", run: runClean},
		{name: "report", summary: "write a self-contained HTML report of a run", run: runReport},
		{name: "init", summary: "write a starter PROMPT.md and a ralph.yaml with detected checks", run: runInit},
		{name: "template", summary: "print the starter prompt on stdout", run: runTemplate},
		{name: "batch", summary: "run many tasks from a file, each in its own worktree, N at a time", run: runBatch},
		{name: "version", summary: "print the version", run: func(_ context.Context, e *env, _ []string) error {
			fmt.Fprintln(e.stdout, "architect", Version)
			return nil
		}},
		{name: demoAgentCommand, hidden: true, run: runDemoAgent},
	}
}

// Main runs architect with args and returns the exit status.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, lookup: os.LookupEnv}
	if len(args) == 0 {
		usage(e.stderr)
		return ExitUsage
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(e.stdout)
		return ExitOK
	}
	if args[0] == "--version" || args[0] == "-v" {
		fmt.Fprintln(stdout, "architect", Version)
		return ExitOK
	}
	for _, c := range commands() {
		if c.name == args[0] {
			ctx, stop := signalContext(e)
			defer stop()
			return exitCode(e, c.run(ctx, e, args[1:]))
		}
	}
	return exitCode(e, &loop.UsageError{
		Msg:  fmt.Sprintf("unknown command %q", args[0]),
		Hint: "run `architect help` to list the commands",
	})
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "architect runs AI coding agents in a check-driven loop.")
	fmt.Fprintln(w, "\nUsage:\n  architect <command> [flags]\n\nCommands:")
	for _, c := range commands() {
		if !c.hidden {
			fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
		}
	}
	fmt.Fprintln(w, "\nRun `architect <command> --help` for a command's flags.")
}

// errNoSuccess: the work ran but did not succeed; already reported.
var errNoSuccess = errors.New("no success")

// exitCode is the one place where outcomes become exit statuses.
func exitCode(e *env, err error) int {
	var ue *loop.UsageError
	var ce config.Errors
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, pflag.ErrHelp):
		return ExitOK
	case errors.Is(err, loop.ErrInterrupted):
		return ExitInterrupted
	case errors.Is(err, errNoSuccess):
		return ExitNoSuccess
	case errors.As(err, &ce):
		for _, x := range ce {
			fmt.Fprintf(e.stderr, "architect: error: %s\n", x.Error())
			if x.Hint != "" {
				fmt.Fprintf(e.stderr, "architect: hint: %s\n", x.Hint)
			}
		}
		return ExitUsage
	case errors.As(err, &ue):
		fmt.Fprintf(e.stderr, "architect: error: %s\n", ue.Msg)
		if ue.Hint != "" {
			fmt.Fprintf(e.stderr, "architect: hint: %s\n", ue.Hint)
		}
		return ExitUsage
	default:
		fmt.Fprintf(e.stderr, "architect: error: %s\n", err)
		return ExitNoSuccess
	}
}

// signalContext is cancelled (cause loop.ErrInterrupted) by the first
// SIGINT or SIGTERM; a second one kills every child process group at once.
func signalContext(e *env) (context.Context, func()) {
	stderr := e.stderr
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		n := 0
		for {
			select {
			case <-done:
				return
			case s := <-ch:
				n++
				if n == 1 {
					if ws := e.workspace.Load(); ws != nil && s == syscall.SIGTERM && controlAction(*ws) == "cancel" {
						fmt.Fprintln(stderr, "architect: `architect cancel` asked this loop to stop: stopping gracefully")
					} else {
						fmt.Fprintf(stderr, "architect: %s received: stopping (send it again to kill the agent and checks at once)\n", strings.ToLower(signalName(s)))
					}
					cancel(loop.ErrInterrupted)
					continue
				}
				fmt.Fprintln(stderr, "architect: killing the agent and checks now")
				proc.KillAll()
			}
		}
	}()
	return ctx, func() {
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

// newFlagSet returns a FlagSet that reports its own errors to nobody: the
// caller turns them into a usage error with a hint.
func newFlagSet(name string, stderr io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.SortFlags = false
	fs.Usage = func() {}
	return fs
}

func flagError(cmd string, err error) error {
	return &loop.UsageError{Msg: err.Error(), Hint: fmt.Sprintf("run `architect %s --help` to see the flags", cmd)}
}
