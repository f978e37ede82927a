package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/loop"
	"github.com/architect-dev/architect/merge"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/usererr"
	"github.com/gofrs/flock"
	"github.com/spf13/cobra"
)

// controlCmd is a command that acts on one run, found with -C DIR and
// --worktree-name NAME (merge.FindRun); run gets its workspace and state.
func controlCmd(use, short, long, example string, run func(ctx context.Context, ws string, st *runlog.State, jsonOut bool) error) *cobra.Command {
	var dir, name string
	var jsonOut bool
	c := &cobra.Command{
		Use: use, Short: short, Long: long, Example: example,
		GroupID: groupControl,
		Args:    noArgs("select the run with -C DIR or --worktree-name NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ws, err := merge.FindRun(dir, name)
			if err != nil {
				return err
			}
			st, err := runlog.ReadStateNow(ws) // with the iteration running and its phase
			if err != nil {
				return err
			}
			return run(cmd.Context(), ws, st, jsonOut)
		},
	}
	c.Flags().StringVarP(&dir, "dir", "C", ".", "workspace `directory` (or the repository of a --worktree run)")
	c.Flags().StringVar(&name, "worktree-name", "", "the run's worktree `NAME`")
	if c.Name() == "status" {
		c.Flags().BoolVar(&jsonOut, "json", false, "print the state as JSON")
	}
	_ = c.MarkFlagDirname("dir")
	_ = c.RegisterFlagCompletionFunc("worktree-name", completeWorktreeNames)
	return c
}

func newPauseCmd(e *env) *cobra.Command {
	return controlCmd("pause [-C DIR] [--worktree-name NAME]", "pause a running loop after its current agent run",
		"Pauses the running loop: the running agent finishes, then the loop waits\nfor `architect resume`.",
		`  architect pause
  architect pause -C ../other-repo --worktree-name fix-auth`,
		func(_ context.Context, ws string, st *runlog.State, _ bool) error { return runPause(e, ws, st) })
}

func newResumeCmd(e *env) *cobra.Command {
	return controlCmd("resume [-C DIR] [--worktree-name NAME]", "resume a paused loop, or restart a stopped one from its state",
		"Resumes a paused loop; a loop whose process is gone (stopped, crashed,\nwaiting) is restarted from its state in this terminal.",
		`  architect resume
  architect resume --worktree-name fix-auth`,
		func(ctx context.Context, ws string, st *runlog.State, _ bool) error { return runResume(ctx, e, ws, st) })
}

func newCancelCmd(e *env) *cobra.Command {
	return controlCmd("cancel [-C DIR] [--worktree-name NAME]", "stop a running loop gracefully",
		"Stops the running loop now, gracefully: the agent and checks get SIGTERM,\nthe state is saved and the loop exits with status 130.",
		`  architect cancel
  architect cancel --worktree-name fix-auth`,
		func(_ context.Context, ws string, st *runlog.State, _ bool) error { return runCancel(e, ws, st) })
}

// completeWorktreeNames completes --worktree-name and clean/merge's NAME
// with the named worktrees of the repository in -C (or here).
func completeWorktreeNames(cmd *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	dir := "."
	if f := cmd.Flags().Lookup("dir"); f != nil {
		dir = f.Value.String()
	}
	var names []string
	found, _ := filepath.Glob(filepath.Join(dir, loop.NamedWorktreesDir, "*"))
	for _, p := range found {
		if n := filepath.Base(p); strings.HasPrefix(n, toComplete) {
			names = append(names, n)
		}
	}
	return names, cobra.ShellCompDirectiveNoFileComp
}

func runPause(e *env, ws string, st *runlog.State) error {
	if !runlog.Running(ws) {
		return &usererr.Error{Msg: "no loop is running in " + ws, Hint: "see `architect status -C " + ws + "`"}
	}
	unlock, err := lockControl(ws)
	if err != nil {
		return err
	}
	defer unlock()
	if paused(ws, st) {
		usererr.Say(e.stderr, usererr.LevelWarning, "ralph loop for %s is already paused", ws)
		return nil
	}
	if err := runlog.WriteControl(ws, "pause"); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "paused ralph loop for %s\n", ws)
	return nil
}

// paused reports whether the running loop in ws is paused or asked to be,
// and not already asked to resume.
func paused(ws string, st *runlog.State) bool {
	switch controlAction(ws) {
	case "pause":
		return true
	case "resume":
		return false // a resume on its way: the loop has not seen it yet
	}
	return st.Status == runlog.StatusPaused
}

// lockControl serialises the control commands on one workspace, so that
// two quick `architect resume` (or pause) do not both see the loop paused
// and both report that they resumed it.
func lockControl(ws string) (unlock func(), err error) {
	l := flock.New(filepath.Join(ws, runlog.StateDir, "control.lock"))
	if err := l.Lock(); err != nil {
		return nil, fmt.Errorf("locking the control file: %w", err)
	}
	return func() { _ = l.Unlock() }, nil
}

func runResume(ctx context.Context, e *env, ws string, st *runlog.State) error {
	if runlog.Running(ws) {
		unlock, err := lockControl(ws)
		if err != nil {
			return err
		}
		defer unlock()
		if !paused(ws, st) {
			usererr.Say(e.stderr, usererr.LevelWarning, "ralph loop for %s is not paused", ws)
			return nil
		}
		if err := runlog.WriteControl(ws, "resume"); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "resumed ralph loop for %s\n", ws)
		return nil
	}
	if !st.Resumable() {
		return &usererr.Error{Msg: "the run in " + ws + " already succeeded; there is nothing to resume", Hint: "start a new run with `architect loop`"}
	}
	fmt.Fprintf(e.stdout, "resumed ralph loop for %s\n", ws)
	return resumeRun(ctx, e, ws, func(*config.Config) error { return nil })
}

func runCancel(e *env, ws string, st *runlog.State) error {
	if !runlog.Running(ws) {
		usererr.Say(e.stderr, usererr.LevelWarning, "ralph loop for %s is not running", ws)
		return nil
	}
	// The request first, so that the loop says who stopped it.
	if err := runlog.WriteControl(ws, "cancel"); err != nil {
		return err
	}
	if err := terminate(st.PID); err != nil {
		return fmt.Errorf("signalling the loop (pid %d): %w", st.PID, err)
	}
	fmt.Fprintf(e.stdout, "cancelled ralph loop for %s (pid %d)\n", ws, st.PID)
	return nil
}

func controlAction(ws string) string {
	return runlog.ReadControl(runlog.Path(ws, runlog.ControlFile))
}
