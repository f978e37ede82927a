package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/gitwt"
	"github.com/architect-dev/architect/merge"
	"github.com/architect-dev/architect/report"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/usererr"
)

// printSummary prints how the run cfg ended: the outcome, the checks
// still failing, what happened on the way, where the report and the work
// are, and for a run that did not succeed the command that goes on.
func printSummary(w io.Writer, r *runlog.Result, cfg config.Config) {
	printOutcome(w, r)
	if r.StopHint != "" {
		usererr.Say(w, usererr.LevelHint, "%s", r.StopHint)
	}
	printOnTheWay(w, r)
	printWhere(w, r)
	if next := nextStep(r, cfg); next != "" {
		fmt.Fprintf(w, "architect: next: %s\n", next)
	}
}

// printOutcome prints how the run ended: done, success (with what it
// rests on that the run only recorded), or no success with the checks
// still failing.
func printOutcome(w io.Writer, r *runlog.Result) {
	tail := fmt.Sprintf("after %d iteration%s (cost %s, %.1fs)", r.TotalIterations, plural(r.TotalIterations), r.Cost(), r.TotalDuration)
	switch {
	case r.Success && r.NoChecks:
		fmt.Fprintf(w, "architect: done: the agent declared completion %s; no check was run (the run has none), so nothing was verified\n", tail)
	case r.Success:
		fmt.Fprintf(w, "architect: success: all checks passed and the agent declared completion %s\n", tail)
		printKept(w, r)
	default:
		detail := ""
		if r.StopDetail != "" {
			detail = ": " + strings.TrimSuffix(r.StopDetail, " (hint: "+r.StopHint+")") // the hint has a line of its own
		}
		fmt.Fprintf(w, "architect: no success: stopped on %s%s; %d iteration%s, cost %s, %.1fs\n", r.StopReason, detail,
			r.TotalIterations, plural(r.TotalIterations), r.Cost(), r.TotalDuration)
		if line := failingLine(r); line != "" {
			fmt.Fprintf(w, "architect: %s\n", line)
		}
	}
}

// printKept warns of what a success rests on that the run only recorded:
// a check's definition changed (--judge warn), tests gone (--tests warn).
func printKept(w io.Writer, r *runlog.Result) {
	for _, c := range r.JudgeChanged {
		if c.Kept {
			usererr.Say(w, usererr.LevelWarning, "%s (kept: --judge warn)", printable(c.Text()))
		}
	}
	if t := r.TestsRemoved; t != nil && !t.Failed && t.Count > 0 {
		gone := slices.Concat(t.Tests, t.NotRun)
		if len(gone) < t.Count {
			gone = append(gone, fmt.Sprintf("%d more", t.Count-len(gone)))
		}
		usererr.Say(w, usererr.LevelWarning, "%d test%s of the start removed (kept: --tests warn): %s", t.Count, plural(t.Count), printable(strings.Join(gone, ", ")))
	}
}

// printOnTheWay prints what happened on the way: usage-limit waits, agent
// switches, the cost by agent, stalls, the notes the agent got.
func printOnTheWay(w io.Writer, r *runlog.Result) {
	if r.UsageLimitWaits > 0 {
		fmt.Fprintf(w, "architect: waited %s in all for the agent's usage limit (%d wait%s)\n",
			time.Duration(r.UsageLimitWaited*float64(time.Second)).Round(time.Second), r.UsageLimitWaits, plural(r.UsageLimitWaits))
	}
	for _, sw := range r.Switches {
		fmt.Fprintf(w, "architect: iteration %d ran on %s instead of %s (%s: %s)\n", sw.Iteration, sw.To, sw.From, sw.Reason, sw.Detail)
	}
	if len(r.Agents) > 1 {
		fmt.Fprintf(w, "architect: by agent: %s\n", byAgent(r.Agents))
	}
	for _, s := range r.Stalls {
		fmt.Fprintf(w, "architect: stalled at iteration %d on %s: %s (%s)\n", s.Iteration, s.Agent, s.Detail, s.Action)
	}
	if r.NotesDelivered > 0 {
		fmt.Fprintf(w, "architect: %d note%s from you reached the agent\n", r.NotesDelivered, plural(r.NotesDelivered))
	}
}

// byAgent is the iterations and the cost of each agent of a run.
func byAgent(agents []runlog.AgentCost) string {
	var parts []string
	for _, a := range agents {
		cost := "cost unknown"
		if a.Cost != nil {
			cost = fmt.Sprintf("$%.4f", *a.Cost)
		} else if a.KnownCost > 0 {
			cost = fmt.Sprintf("at least $%.4f", a.KnownCost)
		}
		parts = append(parts, fmt.Sprintf("%s %d iteration%s, %s", agentLabel(a.Agent, a.Model), a.Iterations, plural(a.Iterations), cost))
	}
	return strings.Join(parts, "; ")
}

// printWhere prints where the report is and where the work is: on the
// run's branch, to merge, or nowhere (nothing was committed).
func printWhere(w io.Writer, r *runlog.Result) {
	if r.Workspace != "" {
		if _, err := os.Stat(filepath.Join(r.Workspace, runlog.StateDir, report.File)); err == nil {
			fmt.Fprintf(w, "architect: report: %s\n", filepath.Join(r.Workspace, runlog.StateDir, report.File))
		}
	}
	if r.WorktreePath == "" {
		return
	}
	if n := branchCommits(r); n == 0 {
		fmt.Fprintf(w, "architect: nothing was committed on branch %s; remove it and its worktree with `architect clean%s`\n", r.Branch, merge.NameArg(r.Branch))
		return
	}
	fmt.Fprintf(w, "architect: the work is in %s on branch %s; bring it in with `architect merge%s` (or git merge %s)\n", r.WorktreePath, r.Branch, merge.NameArg(r.Branch), r.Branch)
}

// branchCommits counts the commits of the run's branch since it began; -1
// when unknown.
func branchCommits(r *runlog.Result) int {
	if r.InitialRef == "" {
		return -1
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	repo, err := gitwt.Open(ctx, r.WorktreePath)
	if err != nil {
		return -1
	}
	n, err := repo.UnmergedCommits(ctx, r.Branch, r.InitialRef)
	if err != nil {
		return -1
	}
	return n
}

// agentLabel names an agent and its model: "codex:gpt-5.5".
func agentLabel(name, model string) string {
	if model == "" {
		return name
	}
	return name + ":" + model
}

// maxFailing bounds the failing checks the summary names.
const maxFailing = 5

// failingLine names the checks that failed in the last iteration that ran
// them: "failing after iteration 5: go test ./... (exit status 1)"; "" when
// none failed or none ran.
func failingLine(r *runlog.Result) string {
	for i := len(r.Iterations) - 1; i >= 0; i-- {
		it := r.Iterations[i]
		if len(it.CheckResults) == 0 {
			continue
		}
		var names []string
		for _, c := range it.CheckResults {
			if !c.Passed {
				names = append(names, fmt.Sprintf("%s (%s)", printable(c.Name), c.Status()))
			}
		}
		if len(names) == 0 {
			return ""
		}
		if len(names) > maxFailing {
			names = append(names[:maxFailing], fmt.Sprintf("and %d more", len(names)-maxFailing))
		}
		return fmt.Sprintf("failing after iteration %d: %s", it.Iteration, strings.Join(names, "; "))
	}
	return ""
}

// nextStep is the command that goes on with a run that did not succeed,
// as the user types it from here (with -C naming the workspace when it is
// not the current folder): more of the limit it met, or a look at what
// failed first when it went round in circles. "" for a run that succeeded.
func nextStep(r *runlog.Result, cfg config.Config) string {
	if r.Success || r.Workspace == "" {
		return ""
	}
	at := workspaceArg(r.Workspace)
	resume := "`architect loop --resume" + at
	switch r.StopReason {
	case runlog.StopMaxIterations:
		return fmt.Sprintf("allow more iterations with %s --max-iterations %d`", resume, min(max(cfg.MaxIterations, r.TotalIterations)*2, 1000))
	case runlog.StopBudget:
		return fmt.Sprintf("raise the budget with %s --max-cost %s`", resume, strconv.FormatFloat(cfg.MaxCost*2, 'f', -1, 64))
	case runlog.StopTimeout:
		return fmt.Sprintf("give it more time with %s --max-time %s`", resume, config.FormatDuration(cfg.MaxTime*2))
	case runlog.StopCostUnknown:
		return "go on without a budget with " + resume + " --max-cost 0`"
	case runlog.StopIdle, runlog.StopStalled:
		if n := len(r.Iterations); n > 0 && r.Iterations[n-1].ChecksRun && r.Iterations[n-1].AllChecksPassed {
			// Nothing failed: the agent left the checks passing without declaring completion.
			return fmt.Sprintf("the checks pass but the agent did not declare completion: see what it said with `architect show%s`, then go on with %s`", at, resume)
		}
		return fmt.Sprintf("see what failed with `architect show%s --checks`, then go on with %s`", at, resume)
	case runlog.StopCircuitBreaker, runlog.StopAgentError, runlog.StopError:
		return fmt.Sprintf("see what failed with `architect show%s --checks`, then go on with %s`", at, resume)
	}
	return "go on with " + resume + "`" // stopped, interrupted, cancelled, waiting
}

// workspaceArg is " -C DIR" naming workspace from the current folder
// (relative when it is under it), "" when it is the current folder.
func workspaceArg(workspace string) string {
	cwd, err := os.Getwd()
	if err != nil {
		return " -C " + shellArg(workspace)
	}
	resolved := func(p string) string {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return p
	}
	rel, err := filepath.Rel(resolved(cwd), resolved(workspace))
	switch {
	case err == nil && rel == ".":
		return ""
	case err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)):
		return " -C " + shellArg(rel)
	}
	return " -C " + shellArg(workspace)
}
