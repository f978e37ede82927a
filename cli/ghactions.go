package cli

import (
	"context"
	"fmt"
	"os"
	"time"

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
// reporter when GITHUB_ACTIONS=true.
func startGitHubActions(e *env) *githubActions {
	if !maskSecrets(e) {
		return nil
	}
	return &githubActions{e: e, rep: &ghactions.Reporter{W: e.stderr}}
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
