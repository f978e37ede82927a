package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/loop"
	"github.com/architect-dev/architect/merge"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/usererr"
	"github.com/gofrs/flock"
	"github.com/spf13/cobra"
)

// controlCmd is a command that acts on one run, found with -C DIR and
// --worktree-name NAME (findRun); run gets its workspace and state.
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

func newStatusCmd(e *env) *cobra.Command {
	c := controlCmd("status [-C DIR] [--worktree-name NAME] [--json]", "show the state of a loop",
		"Shows the state of the loop run in the workspace (or in the repository's\nworktree): status, phase, iteration, the last checks, failures, cost so\nfar, branch. In a repository with several runs in its worktrees (a\nbatch's tasks), one row per run.",
		`  architect status
  architect status --worktree-name fix-auth
  architect status --json | jq .iteration`,
		func(_ context.Context, ws string, st *runlog.State, jsonOut bool) error {
			return runStatus(e, ws, st, jsonOut)
		})
	one := c.RunE
	c.RunE = func(cmd *cobra.Command, args []string) error {
		dir, _ := cmd.Flags().GetString("dir")
		name, _ := cmd.Flags().GetString("worktree-name")
		jsonOut, _ := cmd.Flags().GetBool("json")
		if abs, err := filepath.Abs(dir); err == nil && name == "" && !merge.HasRun(abs) {
			if runs := merge.RunsUnder(abs); len(runs) > 1 {
				return runStatusAll(e, abs, runs, jsonOut)
			}
		}
		return one(cmd, args)
	}
	return c
}

// lastChecks is what a run's records say of its checks: the last
// iteration whose checks ran, how many passed there and which failed, and
// how many iterations ended with a failing check.
type lastChecks struct {
	Iteration         int      `json:"iteration"` // 0: no checks have run
	Passing           int      `json:"passing"`
	Total             int      `json:"total"`
	Failing           []string `json:"failing"`
	FailingIterations int      `json:"failing_iterations"`
}

func checksOf(ws string) lastChecks {
	c := lastChecks{Failing: []string{}}
	recs, err := runlog.ReadRecords(runlog.Path(ws, runlog.RecordsFile))
	if err != nil {
		return c
	}
	for _, r := range recs {
		if !r.ChecksRun || len(r.CheckResults) == 0 {
			continue
		}
		c.Iteration, c.Passing, c.Total, c.Failing = r.Iteration.Iteration, 0, len(r.CheckResults), []string{}
		for _, cr := range r.CheckResults {
			if cr.Passed {
				c.Passing++
			} else {
				c.Failing = append(c.Failing, cr.Name)
			}
		}
		if len(c.Failing) > 0 {
			c.FailingIterations++
		}
	}
	return c
}

// String is the checks in a few words: "1/2 passing", "-" before any ran.
func (c lastChecks) String() string {
	if c.Iteration == 0 {
		return "-"
	}
	return fmt.Sprintf("%d/%d passing", c.Passing, c.Total)
}

// runStatusAll shows the runs in the worktrees of the repository at abs
// (a batch's tasks), one row each.
func runStatusAll(e *env, abs string, runs []string, jsonOut bool) error {
	type row struct {
		Name      string     `json:"name"`
		Workspace string     `json:"workspace"`
		Status    string     `json:"status"`
		Running   bool       `json:"running"`
		Iteration int        `json:"iteration"`
		MaxIter   int        `json:"max_iterations"`
		Checks    lastChecks `json:"checks"`
		Cost      *float64   `json:"total_cost"`
		KnownCost float64    `json:"known_cost"`
		Stop      string     `json:"stop_reason,omitempty"`
		Branch    string     `json:"branch,omitempty"`
		cost      string
	}
	var rows []row
	for _, ws := range runs {
		st, err := runlog.ReadStateNow(ws)
		if err != nil {
			rows = append(rows, row{Name: filepath.Base(ws), Workspace: ws, Status: "unreadable (" + unwrapPath(err) + ")", Checks: lastChecks{Failing: []string{}}, cost: "-"})
			continue
		}
		r := row{Name: filepath.Base(ws), Workspace: ws, Status: st.Status, Running: runlog.Running(ws), Iteration: st.Iteration,
			MaxIter: st.MaxIterations, Checks: checksOf(ws), Cost: st.TotalCost, KnownCost: st.KnownCost, Stop: st.StopReason,
			Branch: st.Branch, cost: st.Cost().String()}
		if !r.Running && st.Active {
			r.Status += " (process gone)"
		}
		rows = append(rows, r)
	}
	if jsonOut {
		data, _ := json.MarshalIndent(struct {
			Dir  string `json:"dir"`
			Runs []row  `json:"runs"`
		}{abs, rows}, "", "  ")
		fmt.Fprintln(e.stdout, string(data))
		return nil
	}
	w := e.stdout
	fmt.Fprintf(w, "Runs under %s: %d\n", abs, len(rows))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tSTATUS\tITERATION\tCHECKS\tCOST\tSTOP REASON")
	for _, r := range rows {
		stop := r.Stop
		if len(r.Checks.Failing) > 0 {
			stop = strings.TrimSpace(stop + " (failing: " + strings.Join(r.Checks.Failing, ", ") + ")")
		}
		if stop == "" {
			stop = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%s\t%s\t%s\n", r.Name, printable(r.Status), r.Iteration, r.MaxIter, r.Checks, r.cost, printable(stop))
	}
	_ = tw.Flush()
	fmt.Fprintln(w, "One run in detail: architect status --worktree-name NAME")
	return nil
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

func runStatus(e *env, ws string, st *runlog.State, jsonOut bool) error {
	running := runlog.Running(ws)
	checks := checksOf(ws)
	if jsonOut {
		out := struct {
			*runlog.State
			Running bool       `json:"running"`
			Checks  lastChecks `json:"checks"`
		}{st, running, checks}
		data, _ := json.MarshalIndent(out, "", "  ")
		fmt.Fprintln(e.stdout, string(data))
		return nil
	}
	status := st.Status
	if !running && st.Active {
		status += fmt.Sprintf(" (but process %d is gone: continue with `architect resume -C %s`)", st.PID, ws)
	}
	w := e.stdout
	fmt.Fprintf(w, "Ralph Loop: %s\n", ws)
	fmt.Fprintf(w, "Status: %s\n", status)
	if st.Phase != "" && running {
		fmt.Fprintf(w, "Phase: %s\n", st.Phase)
	}
	fmt.Fprintf(w, "Iteration: %d/%d\n", st.Iteration, st.MaxIterations)
	fmt.Fprintf(w, "Started: %s\n", localTime(st.StartedAt))
	if st.LastIterationAt != "" {
		fmt.Fprintf(w, "Current iteration started: %s\n", localTime(st.LastIterationAt))
	}
	if checks.Iteration > 0 {
		failing := ""
		if len(checks.Failing) > 0 {
			failing = " (failing: " + printable(strings.Join(checks.Failing, ", ")) + ")"
		}
		fmt.Fprintf(w, "Checks: %s in iteration %d%s\n", checks, checks.Iteration, failing)
		fmt.Fprintf(w, "Iterations with failing checks: %d of %d\n", checks.FailingIterations, st.Iteration)
	}
	// An agent failure is the agent not doing its part (an error, a crash,
	// a protected file changed), not a check that failed.
	fmt.Fprintf(w, "Agent failures: %d (%d in a row)\n", st.ErrorCount, st.ConsecutiveErrors)
	fmt.Fprintf(w, "Timeouts: %d\n", st.Timeouts)
	cfg, _ := savedConfig(st) // what can be read of it
	if cfg.InactivityTimeout > 0 {
		fmt.Fprintf(w, "Inactivity timeout: %s\n", cfg.InactivityTimeout)
	}
	if cfg.DonePattern != "" {
		fmt.Fprintf(w, "Done pattern: %s\n", cfg.DonePattern)
	}
	fmt.Fprintf(w, "Cost so far: %s\n", st.Cost())
	if st.UsageLimitWaits > 0 {
		fmt.Fprintf(w, "Usage-limit waits: %d, %s in all (at most %s)\n", st.UsageLimitWaits,
			time.Duration(st.UsageLimitWaited*float64(time.Second)).Round(time.Second), config.FormatDuration(cfg.MaxUsageWait))
	}
	if st.WaitUntil != "" && running {
		fmt.Fprintf(w, "Waiting until: %s\n", localTime(st.WaitUntil))
	}
	if st.Agent != "" {
		fmt.Fprintf(w, "Agent: %s\n", st.Agent)
	}
	for _, a := range st.Agents {
		switch {
		case a.Retired:
			fmt.Fprintf(w, "  %s: set aside for the rest of the run (%s)\n", a.Agent, a.Reason)
		case a.Until != "":
			fmt.Fprintf(w, "  %s: set aside until %s (%s)\n", a.Agent, localTime(a.Until), a.Reason)
		}
	}
	if n := len(st.Switches); n > 0 {
		last := st.Switches[n-1]
		fmt.Fprintf(w, "Agent switches: %d (last: iteration %d, %s -> %s, %s)\n", n, last.Iteration, last.From, last.To, last.Reason)
	}
	if n := len(st.Stalls); n > 0 {
		last := st.Stalls[n-1]
		fmt.Fprintf(w, "Stalls: %d (last: iteration %d, %s: %s)\n", n, last.Iteration, last.Kind, last.Action)
	}
	if st.PausedFor != "" && running {
		fmt.Fprintf(w, "Paused on: %s (go on with `architect say \"…\"` or `architect resume`)\n", st.PausedFor)
	}
	if notes, err := runlog.PendingNotes(ws); err == nil && len(notes) > 0 {
		fmt.Fprintf(w, "Notes queued: %d (the next iteration's prompt carries them)\n", len(notes))
	}
	if st.StopReason != "" {
		fmt.Fprintf(w, "Stop reason: %s\n", st.StopReason)
	}
	if st.Branch != "" {
		fmt.Fprintf(w, "Branch: %s\n", st.Branch)
	}
	return nil
}

func localTime(s string) string {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return s
	}
	return t.Local().Format("2006-01-02 15:04:05")
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
		fmt.Fprintf(e.stderr, "architect: warning: ralph loop for %s is already paused\n", ws)
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
			fmt.Fprintf(e.stderr, "architect: warning: ralph loop for %s is not paused\n", ws)
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
	return resumeRun(ctx, e, ws, func(*config.Config) {})
}

func runCancel(e *env, ws string, st *runlog.State) error {
	if !runlog.Running(ws) {
		fmt.Fprintf(e.stderr, "architect: warning: ralph loop for %s is not running\n", ws)
		return nil
	}
	// The request first, so that the loop says who stopped it.
	if err := runlog.WriteControl(ws, "cancel"); err != nil {
		return err
	}
	if err := syscall.Kill(st.PID, syscall.SIGTERM); err != nil {
		return fmt.Errorf("signalling the loop (pid %d): %w", st.PID, err)
	}
	fmt.Fprintf(e.stdout, "cancelled ralph loop for %s (pid %d)\n", ws, st.PID)
	return nil
}

func controlAction(ws string) string {
	return runlog.ReadControl(runlog.Path(ws, runlog.ControlFile))
}
