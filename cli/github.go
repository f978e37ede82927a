package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/ghactions"
	"github.com/architect-dev/architect/github"
	"github.com/architect-dev/architect/gitwt"
	"github.com/architect-dev/architect/loop"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/usererr"
	"github.com/spf13/cobra"
)

// githubOptions are the flags of `architect github`: the loop's, and
// what to do on GitHub.
type githubOptions struct {
	loop               loopOptions
	repo               string
	issue              int
	event              string
	label              string
	base               string
	draft, draftOnFail bool
	noPR               bool
	labels, reviewers  []string
}

func newGitHubCmd(e *env) *cobra.Command {
	var o githubOptions
	c := &cobra.Command{
		Use:   "github [TASK] [flags]",
		Short: "run the loop on a task or a GitHub issue, then open or update its pull request",
		Long: `Runs the loop as architect loop does, on its own branch, then pushes the
branch and opens one pull request for it, or updates the one open already (a
rerun never makes a second). The body says the outcome, the iterations, the
cost (reported or unknown), each check's command and result, the change, the
run's link, and carries the run receipt (.architect/receipt.json in the run's
folder: base and head commits, the diff's sha256, the checks, the cost).

With --issue N, or in a workflow triggered by an issues or issue_comment
event, the task is the issue's title and body (data: never run by a shell;
cut past 64 KiB, with the cut said). Only people with write access start a
run (a comment must start with /architect). Before any agent starts, architect
asks GitHub whether there is anything to do: an issue closed, or with a pull
request whose checks are green (or still running) on its head and whose text
has not changed since that run, starts nothing and exits 0 with one line
saying why. Between iterations it looks again, and stops (saved, resumable:
stop reason issue_closed) once the issue is closed. A comment on the issue
says the work started, and is updated with the outcome and the pull request.

GitHub is reached at GITHUB_API_URL (GitHub Enterprise too; default
https://api.github.com), as GITHUB_TOKEN or GH_TOKEN, which is masked in all
output and removed from the agents' and checks' environment. The push uses
the checkout's own credentials (actions/checkout keeps the token for git).
The workflow needs permissions: contents: write, pull-requests: write,
issues: write.

Exit status: 0 success or nothing to do, 1 ended without success, 2 usage,
configuration, pre-flight or GitHub permission error, 130 interrupted.`,
		Example: `  # In a workflow on issues: [labeled] (see examples/workflows/issue-to-pr.yml)
  architect github --agent claude --check "go test ./..." --max-cost 5

  # A task of your own, then a pull request into develop
  architect github "make the parser accept tabs" --check "go test ./parser" --base develop`,
		GroupID: groupRun,
		Args:    atMostOneArg("expected one TASK argument", `quote the task: architect github "fix the failing test" --check "go test ./..."`),
		RunE: func(cmd *cobra.Command, args []string) error {
			task := ""
			if len(args) > 0 {
				task = args[0]
			}
			return runGitHub(cmd, e, &o, task)
		},
	}
	fs := c.Flags()
	fs.SortFlags = false
	fs.IntVar(&o.issue, "issue", 0, "work on GitHub issue `N` (without it, the issue of the workflow's issues or issue_comment event)")
	fs.StringVar(&o.event, "event", "", "read the issues or issue_comment event from `file` (default $GITHUB_EVENT_PATH when $GITHUB_EVENT_NAME is one of them)")
	fs.StringVar(&o.label, "trigger-label", "architect", "the `label` whose adding to an issue starts a run (\"\" starts on any opened, labeled or reopened issue)")
	fs.StringVar(&o.repo, "repo", "", "the repository, `OWNER/NAME` (default $GITHUB_REPOSITORY)")
	fs.StringVar(&o.base, "base", "", "the pull request's base `branch` (default the checkout's branch)")
	fs.BoolVar(&o.draft, "draft", false, "open the pull request as a draft")
	fs.BoolVar(&o.draftOnFail, "draft-on-failure", false, "without success, still push and open (or update) the pull request, as a draft")
	fs.BoolVar(&o.noPR, "no-pr", false, "push nothing and open no pull request (the facts, the comment and the receipt still)")
	fs.StringSliceVar(&o.labels, "labels", nil, "labels to add to the pull request (`a,b`)")
	fs.StringSliceVar(&o.reviewers, "reviewers", nil, "people to ask for a review (`login,...`)")
	fs.StringVarP(&o.loop.cfgPath, "config", "c", "", "YAML configuration `file` (its ralph_loop: section); also ARCHITECT_CONFIG; without either, the project's ralph.yaml if there is one")
	fs.BoolVar(&o.loop.noConfig, "no-config", false, "read no configuration file, not even the project's ralph.yaml")
	config.RegisterFlags(fs, &o.loop.flagged)
	group(c, config.GroupTask, "config", "no-config")
	group(c, "GitHub", "issue", "event", "trigger-label", "repo", "base", "draft", "draft-on-failure", "no-pr", "labels", "reviewers")
	completeLoopFlags(c)
	return c
}

// ghRun is one `architect github`: where it talks, and what it found.
type ghRun struct {
	e *env
	// onRemote: the run went on from its branch as pushed before (a
	// rerun), whose pull request it updates even when it added nothing.
	onRemote bool
	client   *github.Client
	n        int // the issue; 0 for none
	facts    github.Facts
	runURL   string
	slug     string
	log      io.Writer // where the lines go; nil means stderr
}

func (g *ghRun) getenv(name string) string {
	v, _ := g.e.lookup(name)
	return v
}

// nothing ends a run that starts no agent: one line, on stderr and in the
// step summary, and exit 0.
func (g *ghRun) nothing(why string) error {
	fmt.Fprintf(g.e.stderr, "architect: %s\n", why)
	g.summary("architect: " + why)
	g.outputs(ghactions.Output{Name: "started", Value: "false"}, ghactions.Output{Name: "reason", Value: why})
	return nil
}

// summary adds a line to the step summary, on a runner.
func (g *ghRun) summary(line string) {
	if path := g.getenv("GITHUB_STEP_SUMMARY"); path != "" && ghactions.Enabled(g.e.lookup) {
		if err := ghactions.AppendFile(path, "\n"+line+"\n"); err != nil {
			usererr.Say(g.e.stderr, usererr.LevelWarning, "cannot write the step summary: %v", err)
		}
	}
}

func (g *ghRun) outputs(outs ...ghactions.Output) {
	if path := g.getenv("GITHUB_OUTPUT"); path != "" && ghactions.Enabled(g.e.lookup) {
		if err := ghactions.AppendFile(path, ghactions.FormatOutputs(outs)); err != nil {
			usererr.Say(g.e.stderr, usererr.LevelWarning, "cannot write the step outputs: %v", err)
		}
	}
}

// newGHRun is a run's GitHub side: the client for repo (default
// $GITHUB_REPOSITORY), as GITHUB_TOKEN or GH_TOKEN, and the Actions run's
// link when on a runner.
func newGHRun(e *env, repo string) (*ghRun, error) {
	g := &ghRun{e: e, slug: repo}
	if g.slug == "" {
		g.slug = g.getenv("GITHUB_REPOSITORY")
	}
	if s, r, id := g.getenv("GITHUB_SERVER_URL"), g.getenv("GITHUB_REPOSITORY"), g.getenv("GITHUB_RUN_ID"); s != "" && r != "" && id != "" {
		g.runURL = strings.TrimSuffix(s, "/") + "/" + r + "/actions/runs/" + id
	}
	var err error
	g.client, err = github.New(github.Options{APIURL: g.getenv("GITHUB_API_URL"), Token: github.TokenFrom(g.getenv("GITHUB_TOKEN"), g.getenv("GH_TOKEN")), Repo: g.slug})
	return g, err
}

func runGitHub(cmd *cobra.Command, e *env, o *githubOptions, task string) error {
	ctx := cmd.Context()
	maskSecrets(e) // on a runner, the token is masked before any call
	g, err := newGHRun(e, o.repo)
	if err != nil {
		return err
	}
	g.n = o.issue
	instructions, why, err := g.fromEvent(ctx, o, task)
	if err != nil || why != "" {
		if err == nil {
			err = g.nothing(why)
		}
		return err
	}
	if g.n > 0 && task != "" {
		return &usererr.Error{Msg: "a TASK and --issue both given", Hint: "the issue's title and body are the task: drop one of them"}
	}

	// The facts, before anything is spent.
	if g.n > 0 {
		if g.facts, err = g.client.Facts(ctx, g.n); err != nil {
			return err
		}
		run, why := g.facts.Decide()
		if !run {
			return g.nothing(why)
		}
		fmt.Fprintf(e.stderr, "architect: %s: starting\n", why)
		task = github.Task(g.facts.Issue, instructions)
	}
	if task == "" && o.loop.flagged.Spec == "" {
		return &usererr.Error{Msg: "nothing to work on: no TASK, no --issue and no issue event", Hint: `give a task (architect github "fix the parser"), --issue N, or run it from a workflow on issues or issue_comment`}
	}
	return g.run(cmd, o, task)
}

// fromEvent reads the workflow's issues or issue_comment event, when
// there is one to read (--event, or the runner's with neither a TASK nor
// --issue), and sets the issue it names. It returns the instructions of
// the comment that asked for the run, or why the event starts nothing.
func (g *ghRun) fromEvent(ctx context.Context, o *githubOptions, task string) (instructions, why string, err error) {
	evName := g.getenv("GITHUB_EVENT_NAME")
	evPath := o.event
	if evPath == "" && o.issue == 0 && task == "" && (evName == "issues" || evName == "issue_comment") {
		evPath = g.getenv("GITHUB_EVENT_PATH")
	}
	if evPath == "" {
		return "", "", nil
	}
	if task != "" || o.issue != 0 {
		return "", "", &usererr.Error{Msg: "an event file and a TASK or --issue both given", Hint: "the event names the issue: drop TASK and --issue, or drop --event"}
	}
	if evName != "issues" && evName != "issue_comment" {
		evName = "" // --event off a runner: the payload says which
	}
	ev, err := github.ReadEvent(evName, evPath)
	if err != nil {
		return "", "", err
	}
	ins, ok, why := ev.Trigger(o.label)
	if !ok {
		return "", "not started: " + why, nil
	}
	perm, err := g.client.Permission(ctx, ev.Actor)
	if err != nil {
		return "", "", err
	}
	if !github.CanWrite(perm) {
		return "", fmt.Sprintf("not started: @%s has %s access to %s, and only people with write access start architect", ev.Actor, perm, g.slug), nil
	}
	g.n = ev.Issue.Number
	return ins, "", nil
}

// config is the loop's configuration for task, as architect loop reads
// it, on a branch of its own: for an issue, the one its pull request is
// found by.
func (g *ghRun) config(cmd *cobra.Command, o *githubOptions, task string) (config.Config, error) {
	path, _, err := loopConfigFile(cmd, g.e, &o.loop)
	if err != nil {
		return config.Config{}, err
	}
	cfg, _, warnings, err := config.LoadSources(path, task, g.e.lookup, cmd.Flags(), &o.loop.flagged)
	if err != nil {
		return cfg, err
	}
	if !cfg.Quiet {
		for _, w := range warnings {
			usererr.Say(g.e.stderr, usererr.LevelWarning, "%s", printable(w))
		}
	}
	cfg.Worktree = true
	if g.n > 0 {
		cfg.WorktreeName = github.WorktreeName(g.n)
	}
	return cfg, nil
}

// run runs the loop on task, then writes the receipt, pushes, opens or
// updates the pull request and the issue's comment.
func (g *ghRun) run(cmd *cobra.Command, o *githubOptions, task string) error {
	ctx, e := cmd.Context(), g.e
	cfg, err := g.config(cmd, o, task)
	if err != nil {
		return err
	}
	_, branch := loop.WorktreeFor(cfg.WorktreeName)
	repo, err := gitwt.Open(ctx, cfg.Dir)
	if err != nil {
		return &usererr.Error{Msg: "architect github works in a git repository: " + err.Error(), Hint: "run it in a checkout of the repository (actions/checkout)", Err: err}
	}
	base := o.base
	if base == "" {
		if base, _ = repo.CurrentBranch(ctx); base == "" {
			base = "main"
		}
	}
	if err := g.startFromRemote(ctx, repo, branch); err != nil {
		return err
	}
	var comment int64
	if g.n > 0 {
		text := "🏗️ architect started working on this issue."
		if g.runURL != "" {
			text += " Run: " + g.runURL
		}
		if comment, err = g.client.Comment(ctx, g.n, text); err != nil {
			return err
		}
	}
	res, loopErr := g.loop(ctx, cfg)
	if res == nil {
		g.endComment(ctx, comment, "❌ architect could not run: "+errText(loopErr))
		return loopErr
	}

	receipt, pr, prErr := g.deliver(ctx, repo, res, o, github.PRSpec{Head: branch, Base: base, Title: g.title(task), Labels: o.labels, Reviewers: o.reviewers})
	outs := []ghactions.Output{{Name: "started", Value: "true"}, {Name: "receipt", Value: receipt}}
	if pr != nil {
		outs = append(outs, ghactions.Output{Name: "pull-request-number", Value: fmt.Sprint(pr.Number)}, ghactions.Output{Name: "pull-request-url", Value: pr.URL})
		g.summary(fmt.Sprintf("Pull request: [#%d](%s)", pr.Number, pr.URL))
	}
	g.outputs(outs...)
	g.endComment(ctx, comment, g.outcomeComment(res, pr, prErr))
	if prErr != nil {
		return prErr
	}
	if res.StopReason == runlog.StopIssueClosed {
		fmt.Fprintf(e.stderr, "architect: %s; the run is saved (architect loop --resume -C %s continues it)\n", res.StopDetail, printable(res.Workspace))
		return nil
	}
	return loopErr
}

// deliver writes the receipt of the run res (returning its path, "" for
// none), then, unless the run makes no pull request (the line says why),
// pushes spec.Head and opens or updates its pull request, a draft without
// success or with --draft. spec's Body and Draft are set here.
func (g *ghRun) deliver(ctx context.Context, repo *gitwt.Repo, res *runlog.Result, o *githubOptions, spec github.PRSpec) (string, *github.PR, error) {
	rc, stat := g.receipt(ctx, res)
	receipt := runlog.Path(res.Workspace, runlog.ReceiptFile)
	if res.Workspace == "" {
		receipt = ""
	} else if err := runlog.WriteJSON(receipt, rc); err != nil {
		usererr.Say(g.out(), usererr.LevelWarning, "could not write the run receipt: %v", err)
	} else {
		fmt.Fprintf(g.out(), "architect: run receipt: %s\n", printable(receipt))
	}
	if why := g.noPullRequest(o, res, rc); why != "" {
		fmt.Fprintf(g.out(), "architect: no pull request: %s\n", why)
		return receipt, nil, nil
	}
	spec.Draft = o.draft || !res.Success
	pr, err := g.publish(ctx, repo, res, rc, stat, spec)
	return receipt, pr, err
}

// out is where the run's lines go: the batch task's log, or stderr.
func (g *ghRun) out() io.Writer {
	if g.log != nil {
		return g.log
	}
	return g.e.stderr
}

// loop runs the loop as architect loop does, looking at the issue between
// iterations, and returns its result and what architect loop would exit
// with.
func (g *ghRun) loop(ctx context.Context, cfg config.Config) (*runlog.Result, error) {
	r, err := prepare(ctx, g.e, cfg, "")
	if err != nil {
		return nil, err
	}
	defer r.release()
	if g.n > 0 {
		r.deps.Between = g.between
	}
	// The agents and the checks never see the GitHub token: architect
	// has read it, and the runner's git keeps its own for the push.
	hideGitHubToken(&r.deps)
	res, err := loop.Run(ctx, cfg, r.deps)
	return res, r.finish(res, err)
}

// between is the loop's look at the issue between iterations: it stops
// the run once the issue is closed. A look that fails does not.
func (g *ghRun) between(ctx context.Context, done int) (string, string) {
	closed, err := g.client.StillOpen(ctx, g.n)
	if err != nil {
		usererr.Say(g.e.stderr, usererr.LevelWarning, "could not look at issue #%d after iteration %d: %v", g.n, done, err)
		return "", ""
	}
	if closed != "" {
		return runlog.StopIssueClosed, closed
	}
	return "", ""
}

// noPullRequest says why the run makes no pull request, "" when it makes one.
func (g *ghRun) noPullRequest(o *githubOptions, res *runlog.Result, rc github.Receipt) string {
	switch {
	case o.noPR:
		return "--no-pr"
	case res.StopReason == runlog.StopCancelled:
		return "the run was interrupted"
	case res.StopReason == runlog.StopIssueClosed:
		return "the issue was closed"
	case !res.Success && !o.draftOnFail:
		return "the run ended without success (--draft-on-failure opens a draft)"
	case rc.Head == "" || (rc.Head == rc.Base && !g.onRemote):
		return "the run changed nothing"
	}
	return ""
}

// startFromRemote makes a rerun go on from the work already pushed: when
// the remote has the run's branch (and the checkout does not), the
// checkout is moved (detached, nothing overwritten: git refuses over
// local changes) to that branch's commit, from which the worktree starts.
func (g *ghRun) startFromRemote(ctx context.Context, repo *gitwt.Repo, branch string) error {
	if ok, err := repo.BranchExists(ctx, branch); err != nil || ok {
		return err // a local branch: the loop says what to do with it
	}
	out, err := repo.Output(ctx, "ls-remote", "--heads", "origin", "refs/heads/"+branch)
	if err != nil || strings.TrimSpace(out) == "" {
		return nil // no remote, or no such branch there: a new branch
	}
	if err := repo.Git(ctx, gitwt.Command{}, "fetch", "--quiet", "origin", "refs/heads/"+branch); err != nil {
		return &usererr.Error{Msg: "could not fetch " + branch + " from origin: " + err.Error(), Hint: "the checkout needs read access to origin", Err: err}
	}
	if err := repo.Git(ctx, gitwt.Command{}, "checkout", "--quiet", "--detach", "FETCH_HEAD"); err != nil {
		return &usererr.Error{Msg: "could not check out " + branch + " as pushed: " + err.Error(), Hint: "commit or stash the checkout's changes first", Err: err}
	}
	fmt.Fprintf(g.e.stderr, "architect: %s exists on origin: this run goes on from its work\n", branch)
	g.onRemote = true
	return nil
}

// receipt builds the run's receipt and returns it with the run's diff
// stat (for the pull request's body).
func (g *ghRun) receipt(ctx context.Context, res *runlog.Result) (github.Receipt, string) {
	head, hash := "", ""
	if res.Workspace != "" {
		if wt, err := gitwt.Open(ctx, res.Workspace); err == nil {
			head, _ = wt.Output(ctx, "rev-parse", "HEAD")
			head = strings.TrimSpace(head)
			if res.InitialRef != "" && head != "" {
				if d, err := wt.Output(ctx, "diff", "--binary", res.InitialRef, head); err == nil {
					sum := sha256.Sum256([]byte(d))
					hash = hex.EncodeToString(sum[:])
				}
			}
		}
	}
	rc := github.NewReceipt(res, readBuildInfo(debug.ReadBuildInfo()).Version, res.InitialRef, head, hash, time.Now())
	rc.Repository, rc.RunURL = g.slug, g.runURL
	if g.n > 0 {
		rc.Issue = github.IssueReceipt(g.facts.Issue)
	}
	return rc, diffStat(res)
}

// publish pushes the branch and opens or updates its pull request.
func (g *ghRun) publish(ctx context.Context, repo *gitwt.Repo, res *runlog.Result, rc github.Receipt, stat string, spec github.PRSpec) (*github.PR, error) {
	if err := repo.Push(ctx, "origin", spec.Head); err != nil {
		return nil, &usererr.Error{Msg: "could not push " + spec.Head + " to origin: " + err.Error(),
			Hint: "the job needs `permissions: " + github.PermContents + "` (and actions/checkout's persisted credentials); if origin's branch moved on, merge or delete it", Err: err}
	}
	spec.Body = github.Body(res, github.BodyInfo{Issue: g.n, RunURL: g.runURL, DiffStat: stat, Receipt: rc})
	pr, created, err := g.client.OpenOrUpdate(ctx, spec)
	if err != nil {
		return pr, err
	}
	verb := "updated"
	if created {
		verb = "opened"
	}
	fmt.Fprintf(g.out(), "architect: %s pull request #%d: %s\n", verb, pr.Number, pr.URL)
	return pr, nil
}

// title is the pull request's title: the issue's, or the task's first line.
func (g *ghRun) title(task string) string {
	if g.n > 0 {
		return github.Title(g.facts.Issue.Title)
	}
	return github.Title(task)
}

// outcomeComment is the issue comment's text at the end.
func (g *ghRun) outcomeComment(res *runlog.Result, pr *github.PR, prErr error) string {
	var b strings.Builder
	b.WriteString(github.Outcome(res))
	fmt.Fprintf(&b, " after %d iteration%s (cost %s).", res.TotalIterations, plural(res.TotalIterations), github.CostText(github.CostOf(res)))
	if res.StopDetail != "" {
		b.WriteString("\n\nStopped: " + res.StopDetail)
	}
	if pr != nil {
		fmt.Fprintf(&b, "\n\nPull request: #%d", pr.Number)
	}
	if prErr != nil {
		b.WriteString("\n\nThe pull request could not be made: " + prErr.Error())
	}
	if g.runURL != "" {
		b.WriteString("\n\nRun: " + g.runURL)
	}
	return b.String()
}

// endComment replaces the issue's "started" comment (id) with text.
func (g *ghRun) endComment(ctx context.Context, id int64, text string) {
	if id == 0 {
		return
	}
	if err := g.client.EditComment(context.WithoutCancel(ctx), id, text); err != nil {
		usererr.Say(g.e.stderr, usererr.LevelWarning, "could not update the issue's comment: %v", err)
	}
}

// hideGitHubToken removes GITHUB_TOKEN and GH_TOKEN from what the run's
// agents, checks and hooks inherit.
func hideGitHubToken(deps *loop.Deps) {
	for _, k := range []string{"GITHUB_TOKEN", "GH_TOKEN"} {
		_ = os.Unsetenv(k)
	}
	if deps != nil && deps.Env != nil {
		deps.Env = withoutGitHubToken(deps.Env)
	}
}

// withoutGitHubToken is env without GITHUB_TOKEN and GH_TOKEN.
func withoutGitHubToken(env []string) []string {
	kept := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "GITHUB_TOKEN=") && !strings.HasPrefix(kv, "GH_TOKEN=") {
			kept = append(kept, kv)
		}
	}
	return kept
}

func errText(err error) string {
	if err == nil {
		return "unknown error"
	}
	var ue *usererr.Error
	if errors.As(err, &ue) {
		return ue.Msg
	}
	return err.Error()
}
