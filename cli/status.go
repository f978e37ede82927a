package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/merge"
	"github.com/architect-dev/architect/runlog"
	"github.com/spf13/cobra"
)

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
	round             string   // the last round of candidates in words; "" when none
}

func checksOf(ws string) lastChecks {
	c := lastChecks{Failing: []string{}}
	recs, err := runlog.ReadRecords(runlog.Path(ws, runlog.RecordsFile))
	if err != nil {
		return c
	}
	for _, r := range recs {
		if len(r.Candidates) > 0 {
			c.round = roundLine(r.Iteration.Iteration, r.Candidates)
		}
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

func runStatus(e *env, ws string, st *runlog.State, jsonOut bool) error {
	v := readStatus(ws, st)
	if jsonOut {
		out := struct {
			*runlog.State
			Running bool       `json:"running"`
			Checks  lastChecks `json:"checks"`
		}{st, v.running, v.checks}
		data, _ := json.MarshalIndent(out, "", "  ")
		fmt.Fprintln(e.stdout, string(data))
		return nil
	}
	v.printProgress(e.stdout)
	v.printAgents(e.stdout)
	v.printEnd(e.stdout)
	return nil
}

// runStatusView is what `architect status` says of one run: its state and
// what its other records say.
type runStatusView struct {
	ws      string
	st      *runlog.State
	running bool
	checks  lastChecks
	cfg     config.Config // what can be read of the saved configuration
	notes   int           // notes queued for the next iteration
}

// readStatus reads what status says of the run in ws, whose state is st.
func readStatus(ws string, st *runlog.State) runStatusView {
	v := runStatusView{ws: ws, st: st, running: runlog.Running(ws), checks: checksOf(ws)}
	v.cfg, _ = savedConfig(st)
	if notes, err := runlog.PendingNotes(ws); err == nil {
		v.notes = len(notes)
	}
	return v
}

// printProgress prints where the run is: status, phase, iterations, time,
// checks, failures.
func (v runStatusView) printProgress(w io.Writer) {
	st := v.st
	status := st.Status
	if !v.running && st.Active {
		status += fmt.Sprintf(" (but process %d is gone: continue with `architect resume -C %s`)", st.PID, v.ws)
	}
	fmt.Fprintf(w, "Ralph Loop: %s\n", v.ws)
	fmt.Fprintf(w, "Status: %s\n", status)
	if st.Phase != "" && v.running {
		fmt.Fprintf(w, "Phase: %s\n", st.Phase)
	}
	fmt.Fprintf(w, "Iteration: %d/%d\n", st.Iteration, st.MaxIterations)
	fmt.Fprintf(w, "Started: %s\n", localTime(st.StartedAt))
	if st.LastIterationAt != "" {
		fmt.Fprintf(w, "Current iteration started: %s\n", localTime(st.LastIterationAt))
	}
	if v.checks.Iteration > 0 {
		failing := ""
		if len(v.checks.Failing) > 0 {
			failing = " (failing: " + printable(strings.Join(v.checks.Failing, ", ")) + ")"
		}
		fmt.Fprintf(w, "Checks: %s in iteration %d%s\n", v.checks, v.checks.Iteration, failing)
		fmt.Fprintf(w, "Iterations with failing checks: %d of %d\n", v.checks.FailingIterations, st.Iteration)
	}
	if v.checks.round != "" {
		fmt.Fprintf(w, "Last round: %s\n", printable(v.checks.round))
	}
	// An agent failure is the agent not doing its part (an error, a crash,
	// a protected file changed), not a check that failed.
	fmt.Fprintf(w, "Agent failures: %d (%d in a row)\n", st.ErrorCount, st.ConsecutiveErrors)
	fmt.Fprintf(w, "Timeouts: %d\n", st.Timeouts)
	if v.cfg.InactivityTimeout > 0 {
		fmt.Fprintf(w, "Inactivity timeout: %s\n", v.cfg.InactivityTimeout)
	}
	if v.cfg.DonePattern != "" {
		fmt.Fprintf(w, "Done pattern: %s\n", v.cfg.DonePattern)
	}
}

// printAgents prints the cost, the usage-limit waits and the agents: set
// aside, switched, stalled.
func (v runStatusView) printAgents(w io.Writer) {
	st := v.st
	fmt.Fprintf(w, "Cost so far: %s\n", st.Cost())
	if st.UsageLimitWaits > 0 {
		fmt.Fprintf(w, "Usage-limit waits: %d, %s in all (at most %s)\n", st.UsageLimitWaits,
			time.Duration(st.UsageLimitWaited*float64(time.Second)).Round(time.Second), config.FormatDuration(v.cfg.MaxUsageWait))
	}
	if st.WaitUntil != "" && v.running {
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
}

// printEnd prints what waits for the user and how the run ended.
func (v runStatusView) printEnd(w io.Writer) {
	st := v.st
	if q := st.Question; q != nil && (q.Outcome == runlog.QuestionWaiting || st.StopReason == runlog.StopQuestion) {
		fmt.Fprintf(w, "Question (iteration %d): %s (answer with `architect answer \"…\"`)\n", q.Iteration, runlog.Clip(runlog.FirstLine(q.Text), 200))
	}
	if st.PausedFor != "" && v.running {
		fmt.Fprintf(w, "Paused on: %s (go on with `architect say \"…\"` or `architect resume`)\n", st.PausedFor)
	}
	if v.notes > 0 {
		fmt.Fprintf(w, "Notes queued: %d (the next iteration's prompt carries them)\n", v.notes)
	}
	if st.StopReason != "" {
		fmt.Fprintf(w, "Stop reason: %s\n", st.StopReason)
	}
	if st.Branch != "" {
		fmt.Fprintf(w, "Branch: %s\n", st.Branch)
	}
}

func localTime(s string) string {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return s
	}
	return t.Local().Format("2006-01-02 15:04:05")
}
