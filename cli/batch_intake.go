package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/architect-dev/architect/batch"
	"github.com/architect-dev/architect/github"
	"github.com/architect-dev/architect/intake"
	"github.com/architect-dev/architect/usererr"
)

// batchTasks is the batch's tasks: the batch FILE's, or, with --from, the
// plan's unticked items or the labelled issues, with the shared settings
// of FILE's defaults: (when given) or the project's ralph.yaml. With
// --from, a batch always continues its earlier runs (as --resume): a task
// whose records say it succeeded is not run again, an unfinished one goes
// on from its saved state. nothing, when not "", says why there is no
// task to run (exit 0).
func batchTasks(ctx context.Context, e *env, file string, o *batchOptions) (tasks []batch.Task, warnings []string, nothing string, err error) {
	if o.from == "" {
		if o.label != "" {
			return nil, nil, "", &usererr.Error{Msg: "--label without --from github-issues", Hint: "architect batch --from github-issues --label NAME"}
		}
		tasks, warnings, err = batch.Load(file)
		return tasks, warnings, "", err
	}
	var specs []batch.Spec
	if o.from == intake.GitHubIssues {
		specs, nothing, err = issueSpecs(ctx, e, o)
	} else {
		specs, nothing, err = planSpecs(o)
	}
	if err != nil || nothing != "" {
		return nil, nil, nothing, err
	}
	project := ""
	if file == "" {
		if project, err = projectConfig(o.dir); err != nil {
			return nil, nil, "", err
		}
	}
	tasks, warnings, err = batch.LoadSpecs(file, project, specs)
	if file != "" {
		o.file = file
	}
	o.resume = true
	return tasks, warnings, "", err
}

// issueSpecs is a task for each open issue with --label.
func issueSpecs(ctx context.Context, e *env, o *batchOptions) ([]batch.Spec, string, error) {
	if o.label == "" {
		return nil, "", &usererr.Error{Msg: "--from github-issues needs --label", Hint: "name the label of the issues to work on: --from github-issues --label NAME"}
	}
	g, err := newGHRun(e, o.repo)
	if ue := (*usererr.Error)(nil); errors.As(err, &ue) {
		hint := ue.Hint
		if g.getenv("GITHUB_TOKEN") == "" && g.getenv("GH_TOKEN") == "" {
			hint = "set GITHUB_TOKEN (or GH_TOKEN) to a token that can read the repository's issues (in a workflow, the job needs `permissions:` issues: read)"
		}
		return nil, "", &usererr.Error{Msg: "--from github-issues: " + ue.Msg, Hint: hint, Err: ue.Err}
	} else if err != nil {
		return nil, "", err
	}
	issues, err := g.client.ListIssues(ctx, o.label)
	if err != nil {
		return nil, "", err
	}
	specs, notes := intake.IssueSpecsOf(issues)
	o.issues = map[int]github.Issue{}
	for _, is := range issues {
		o.issues[is.Number] = is
	}
	for _, n := range notes {
		usererr.Say(e.stderr, usererr.LevelWarning, "%s", printable(n))
	}
	if len(specs) == 0 {
		return nil, fmt.Sprintf("no open issue of %s has the label %q: nothing to do", g.slug, o.label), nil
	}
	o.file = "github-issues-" + o.label
	return specs, "", nil
}

// planSpecs is a task for each unticked item of the plan --from names.
func planSpecs(o *batchOptions) ([]batch.Spec, string, error) {
	if fi, err := os.Stat(o.from); err != nil || fi.IsDir() {
		return nil, "", intake.UnknownSource(o.from)
	}
	if o.label != "" {
		return nil, "", &usererr.Error{Msg: "--label is for --from github-issues, not a plan", Hint: "drop --label"}
	}
	var err error
	if o.plan, err = intake.ReadPlan(o.from); err != nil {
		return nil, "", err
	}
	specs, err := intake.PlanSpecs(o.plan)
	if err != nil {
		return nil, "", err
	}
	if len(specs) == 0 {
		return nil, fmt.Sprintf("every item of %s is ticked: nothing to do", o.from), nil
	}
	o.file = o.from
	return specs, "", nil
}

// keepTokenFromTasks, once the issues are read (and the pull requests'
// client made), removes the GitHub token from what every task's agents,
// checks and hooks inherit.
func keepTokenFromTasks(o batchOptions, opts *batch.Options) {
	if o.from != intake.GitHubIssues {
		return
	}
	hideGitHubToken(nil)
	for id, env := range opts.Env {
		opts.Env[id] = withoutGitHubToken(env)
	}
}

// tickPlan ticks, in the plan given with --from, the item of every task
// that succeeded now or earlier. An item is ticked only while the file is
// what architect read: after someone else's edit the next run ticks it.
func tickPlan(e *env, o batchOptions, results []batch.TaskResult) {
	if o.plan == nil {
		return
	}
	for _, r := range results {
		if !r.Success {
			continue
		}
		err := o.plan.Tick(r.ID)
		switch {
		case errors.Is(err, intake.ErrChanged):
			usererr.Say(e.stderr, usererr.LevelWarning, "%s changed while the batch ran: item %s, which succeeded, is not ticked", printable(o.from), r.ID)
			usererr.Say(e.stderr, usererr.LevelHint, "run the batch again to tick it (its records say it succeeded, so it does not run again), or tick it yourself")
			return
		case err != nil:
			usererr.Say(e.stderr, usererr.LevelWarning, "could not tick item %s in %s: %v", r.ID, printable(o.from), err)
		default:
			if !o.quiet {
				fmt.Fprintf(e.stderr, "architect: ticked %s in %s\n", r.ID, printable(filepath.Base(o.from)))
			}
		}
	}
}
