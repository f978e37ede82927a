package cli

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/architect-dev/architect/batch"
	"github.com/architect-dev/architect/changes"
	"github.com/architect-dev/architect/ghactions"
	"github.com/architect-dev/architect/gitwt"
	"github.com/architect-dev/architect/loop"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/usererr"
)

// githubActions is architect's side of a GitHub Actions runner: masks,
// log groups, annotations, the step summary and the step outputs. A nil
// *githubActions (not on a runner) does nothing.
type githubActions struct {
	e   *env
	rep *ghactions.Reporter
}

// startGitHubActions masks the secrets in the environment and returns the
// reporter when GITHUB_ACTIONS=true; errorformat is the configuration's
// (the formats that read given checks' output).
func startGitHubActions(e *env, errorformat []string) *githubActions {
	if !maskSecrets(e) {
		return nil
	}
	return &githubActions{e: e, rep: &ghactions.Reporter{W: e.stderr, Formats: ghactions.FormatChoices(errorformat)}}
}

// maskSecrets, on a GitHub Actions runner, has the runner mask in its log
// the values of the environment's secret variables (ghactions.Masks),
// and says whether it is on one. It must run before the model keys
// leave architect's environment (hideKeys), so that their values are
// masked too.
func maskSecrets(e *env) bool {
	if !ghactions.Enabled(e.lookup) {
		return false
	}
	for _, m := range ghactions.Masks(os.Environ()) {
		fmt.Fprintln(e.stderr, m)
	}
	return true
}

// observe adds the log groups to deps' event observers.
func (g *githubActions) observe(deps *loop.Deps) {
	if g == nil {
		return
	}
	prev := deps.Events
	deps.Events = func(ev runlog.Event) {
		if prev != nil {
			prev(ev)
		}
		g.rep.Event(ev)
	}
}

// finish annotates the failing checks and writes the step summary and
// outputs; resultJSON is the --json document.
func (g *githubActions) finish(res *runlog.Result, resultJSON []byte) {
	if g == nil || res == nil {
		return
	}
	g.rep.Finish(res)
	if path, ok := g.e.lookup("GITHUB_STEP_SUMMARY"); ok && path != "" {
		if err := ghactions.AppendFile(path, ghactions.Summary(res, diffStat(res))); err != nil {
			usererr.Say(g.e.stderr, usererr.LevelWarning, "cannot write the step summary: %v", err)
		}
	}
	if path, ok := g.e.lookup("GITHUB_OUTPUT"); ok && path != "" {
		if err := ghactions.AppendFile(path, ghactions.FormatOutputs(ghactions.Outputs(res, resultJSON))); err != nil {
			usererr.Say(g.e.stderr, usererr.LevelWarning, "cannot write the step outputs: %v", err)
		}
	}
}

// diffStat is `git diff --stat` of the whole run, "" when unknown.
func diffStat(res *runlog.Result) string {
	if res.Workspace == "" || res.InitialRef == "" {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	repo, err := gitwt.Open(ctx, res.Workspace)
	if err != nil {
		return ""
	}
	d, err := changes.Compare(ctx, repo, res.InitialRef, []string{runlog.StateDir, loop.DefaultWorktree, loop.NamedWorktreesDir}, 0)
	if err != nil {
		return ""
	}
	return d.Stat
}

// batchGroup is the ::group:: that holds a batch task's log lines on a
// GitHub Actions runner.
func batchGroup(r batch.TaskResult) (begin, end string) {
	return ghactions.Command("group", nil, fmt.Sprintf("task %s: %s", r.ID, describeOutcome(r))), "::endgroup::"
}

func describeOutcome(r batch.TaskResult) string {
	switch {
	case r.Outcome == batch.Succeeded:
		return fmt.Sprintf("succeeded after %d iteration%s", r.Iterations, plural(r.Iterations))
	case r.StopReason != "":
		return fmt.Sprintf("%s (%s) after %d iteration%s", r.Outcome, r.StopReason, r.Iterations, plural(r.Iterations))
	}
	return r.Outcome
}

// finishBatchActions, on a GitHub Actions runner (formats not nil),
// annotates each task's failing checks (titles prefixed with the task's
// id, one budget for the step) and writes the batch's step summary and
// outputs (with a pull request column when prs); resultJSON is the --json
// document.
func finishBatchActions(e *env, formats map[string][]string, prs bool, results []batch.TaskResult, resultJSON []byte) {
	if formats == nil {
		return
	}
	budget := &ghactions.Budget{}
	tasks := make([]ghactions.Task, len(results))
	for i, r := range results {
		tasks[i] = ghactions.Task{ID: r.ID, Outcome: r.Outcome, StopReason: r.StopReason, Success: r.Success,
			Iterations: r.Iterations, Branch: r.Branch, Error: r.Error, Result: r.Result,
			PullRequests: prs, PullRequest: r.PullRequest, PullRequestURL: r.PullRequestURL, PullRequestError: r.PullRequestError}
		if r.Result != nil && r.Outcome != batch.Skipped {
			rep := &ghactions.Reporter{W: e.stderr, Formats: ghactions.FormatChoices(formats[r.ID]), Prefix: "[" + r.ID + "] ", Budget: budget}
			rep.Annotate(r.Result)
		}
	}
	budget.Close(e.stderr)
	if path, ok := e.lookup("GITHUB_STEP_SUMMARY"); ok && path != "" {
		if err := ghactions.AppendFile(path, ghactions.BatchSummary(tasks)); err != nil {
			usererr.Say(e.stderr, usererr.LevelWarning, "cannot write the step summary: %v", err)
		}
	}
	if path, ok := e.lookup("GITHUB_OUTPUT"); ok && path != "" {
		if err := ghactions.AppendFile(path, ghactions.FormatOutputs(ghactions.BatchOutputs(tasks, resultJSON))); err != nil {
			usererr.Say(e.stderr, usererr.LevelWarning, "cannot write the step outputs: %v", err)
		}
	}
}
