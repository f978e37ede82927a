package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/architect-dev/architect/batch"
	"github.com/architect-dev/architect/github"
	"github.com/architect-dev/architect/gitwt"
	"github.com/architect-dev/architect/usererr"
)

// batchPullRequests sets opts up to publish the tasks that ask for a pull
// request (pull_request: in the file, or --pull-request for all), through
// the code architect github publishes with: the receipt, the push, one
// pull request per branch (a rerun updates it). It reports whether any
// task asks for one. The client is made, and a missing token or
// repository refused, before any agent starts; the token is then kept
// from every task's agents, checks and hooks.
func batchPullRequests(ctx context.Context, e *env, tasks []batch.Task, o batchOptions, opts *batch.Options) (bool, error) {
	want := o.pullRequest
	for _, t := range tasks {
		want = want || t.PullRequest
	}
	if !want {
		if o.base != "" || o.draftOnFail {
			return false, &usererr.Error{Msg: "--base and --draft-on-failure are for pull requests, and no task asks for one", Hint: "add --pull-request, or pull_request: true to the tasks (or defaults:) of the batch file"}
		}
		return false, nil
	}
	g, err := newGHRun(e, o.repo)
	if ue := (*usererr.Error)(nil); errors.As(err, &ue) {
		// Say which input asked for the pull requests that need it.
		return true, &usererr.Error{Msg: "--pull-request (pull_request: in the batch file): " + ue.Msg, Hint: ue.Hint, Err: ue.Err}
	} else if err != nil {
		return true, err
	}
	repo, err := gitwt.Open(ctx, o.dir)
	if err != nil {
		return true, &usererr.Error{Msg: "pull requests need a git repository: " + err.Error(), Hint: "run the batch in a checkout of the repository, or pass it with -C DIR", Err: err}
	}
	base := o.base
	if base == "" {
		if base, _ = repo.CurrentBranch(ctx); base == "" {
			base = "main"
		}
	}
	for id, env := range opts.Env {
		opts.Env[id] = withoutGitHubToken(env)
	}
	hideGitHubToken(nil)
	opts.Publish = publishTask(g, repo, base, o)
	return true, nil
}

// publishTask pushes a batch task's branch and opens or updates its pull
// request (closing its issue when it comes from one), after the task ends.
func publishTask(g *ghRun, repo *gitwt.Repo, base string, o batchOptions) func(context.Context, batch.Task, *batch.TaskResult, io.Writer) {
	gho := &githubOptions{draftOnFail: o.draftOnFail}
	return func(ctx context.Context, t batch.Task, r *batch.TaskResult, log io.Writer) {
		if !(o.pullRequest || t.PullRequest) || r.Result == nil {
			return
		}
		if ctx.Err() != nil {
			fmt.Fprintf(log, "architect: no pull request: the batch was interrupted\n")
			return
		}
		tg := *g
		tg.log = log
		if is, ok := o.issues[t.Issue]; ok && t.Issue > 0 {
			tg.n, tg.facts.Issue = t.Issue, is
		}
		_, pr, err := tg.deliver(ctx, repo, r.Result, gho, github.PRSpec{Head: r.Branch, Base: base, Title: batchTitle(t)})
		if pr != nil {
			r.PullRequest, r.PullRequestURL = pr.Number, pr.URL
		}
		if err != nil {
			r.PullRequestError = errText(err)
			usererr.Say(log, usererr.LevelError, "%s", printable(errText(err)))
			var ue *usererr.Error
			if errors.As(err, &ue) && ue.Hint != "" {
				usererr.Say(log, usererr.LevelHint, "%s", printable(ue.Hint))
			}
		}
	}
}

// batchTitle is a batch task's pull request title: its task's first line,
// or its id when it works from a spec file.
func batchTitle(t batch.Task) string {
	if strings.TrimSpace(t.Config.Task) != "" {
		return github.Title(t.Config.Task)
	}
	return github.Title("architect: " + t.ID)
}
