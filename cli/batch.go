package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/architect-dev/architect/batch"
	"github.com/architect-dev/architect/github"
	"github.com/architect-dev/architect/intake"
	"github.com/architect-dev/architect/loop"
	"github.com/architect-dev/architect/preflight"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/tui"
	"github.com/architect-dev/architect/usererr"
	"github.com/spf13/cobra"
)

func newBatchCmd(e *env) *cobra.Command {
	var o batchOptions
	c := &cobra.Command{
		Use:   "batch {FILE | --from SOURCE [FILE]} [flags]",
		Short: "run many tasks from a file, each in its own worktree, N at a time",
		Long: `Runs every task of FILE (see ralph-batch.yaml.example) in its own loop, in
its own worktree .architect-worktrees/ID on branch architect/ID, N at a
time. One task's failure does not stop the others; Ctrl-C stops them all.
Every task's agent and checks go through the pre-flight before any runs.
The model API keys stay with architect's credential broker, as in a loop:
the agents get a made-up key, the checks and hooks none (a task's
check_env: names those they get; broker: off gives it every key).

With pull_request: true in the file (defaults: or a task) or --pull-request,
each task that succeeds pushes its branch and opens its one pull request, or
updates the one open already, as architect github does (GITHUB_TOKEN and
GITHUB_REPOSITORY; the token is kept from the tasks' processes).

With --from, the tasks come from elsewhere, and FILE, when given, gives only
the shared settings (its defaults:; without FILE, the project's ralph.yaml):
--from plan.md makes a task of every unticked checklist item (- [ ] ...) of
a Markdown plan and ticks each item whose task succeeds; --from
github-issues --label NAME makes a task of every open issue with the label
(GITHUB_TOKEN, GITHUB_REPOSITORY or --repo, GITHUB_API_URL). Each task has a
stable ID (issue-N; for a plan item a slug of its text and a hash), and a
run with --from always continues the earlier ones, as --resume: what
succeeded is not run again. See docs/task-intake.md.

Exit status: 0 every task succeeded (and got its pull request, when asked),
1 some did not, 2 usage, configuration or pre-flight error, 130 interrupted.`,
		Example: `  # Every task, three at a time
  architect batch ralph-batch.yaml --parallel 3

  # Continue after an interruption; tasks that succeeded are skipped
  architect batch ralph-batch.yaml --resume

  # One job per task in GitHub Actions (strategy.matrix)
  architect batch ralph-batch.yaml --matrix

  # A task per unticked item of a plan, settings from defaults.yaml
  architect batch --from PLAN.md defaults.yaml

  # A task per open issue labelled "architect"
  architect batch --from github-issues --label architect`,
		GroupID: groupRun,
		Args: func(cmd *cobra.Command, args []string) error {
			if from, _ := cmd.Flags().GetString("from"); from != "" && len(args) <= 1 {
				return nil
			} else if from == "" && cmd.Flags().Changed("from") {
				return &usererr.Error{Msg: "--from: empty", Hint: "--from github-issues --label NAME, or --from FILE.md"}
			}
			if len(args) != 1 {
				return &usererr.Error{Msg: fmt.Sprintf("expected one batch FILE, got %d arguments", len(args)), Hint: "architect batch ralph-batch.yaml (see ralph-batch.yaml.example)"}
			}
			return nil
		},
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return []string{"yaml", "yml"}, cobra.ShellCompDirectiveFilterFileExt
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if !o.merge {
				for _, f := range []string{"onto", "how", "order", "no-resolve", "resolve-max-iterations", "resolve-max-cost", "squash"} {
					if cmd.Flags().Changed(f) {
						return &usererr.Error{Msg: "--" + f + " is an option of the merge queue, which --merge runs", Hint: "architect batch FILE --merge --" + f + " ..."}
					}
				}
			}
			if cmd.Flags().Changed("only") && o.only == "" {
				return &usererr.Error{Msg: "--only: empty", Hint: "give the id of a task, or leave --only out to run them all"}
			}
			file := ""
			if len(args) > 0 {
				file = args[0]
			}
			return runBatch(cmd.Context(), e, file, o)
		},
	}
	fs := c.Flags()
	fs.SortFlags = false
	fs.IntVarP(&o.parallel, "parallel", "p", 2, "run up to `N` tasks at a time")
	fs.StringVarP(&o.dir, "dir", "C", ".", "the repository `directory`")
	fs.BoolVar(&o.resume, "resume", false, "continue unfinished tasks from their saved state; tasks that succeeded are not run again")
	fs.BoolVar(&o.matrix, "matrix", false, "print the JSON of a GitHub Actions strategy.matrix with one entry per task, and exit")
	fs.StringVar(&o.only, "only", "", "run only the task `ID`")
	fs.BoolVar(&o.jsonOut, "json", false, "print the per-task results as JSON on stdout")
	fs.BoolVar(&o.quiet, "quiet", false, "print only the summary")
	fs.BoolVar(&o.plain, "plain", false, "plain lines, each prefixed with its task, even on a terminal (no full-screen board)")
	fs.BoolVar(&o.pullRequest, "pull-request", false, "for every task that succeeds, push its branch and open or update its one pull request (as pull_request: true in the file does for a task); needs GITHUB_TOKEN and GITHUB_REPOSITORY")
	fs.StringVar(&o.base, "base", "", "the pull requests' base `branch` (default the checkout's branch)")
	fs.BoolVar(&o.draftOnFail, "draft-on-failure", false, "with pull requests, a task that ends without success still pushes and opens (or updates) its pull request, as a draft")
	fs.StringVar(&o.from, "from", "", "take the tasks from `SOURCE`: a Markdown plan (a task per unticked checklist item, ticked when it succeeds) or github-issues (with --label); FILE then gives only the shared settings (defaults:), else the project's ralph.yaml")
	fs.StringVar(&o.label, "label", "", "with --from github-issues: a task per open issue with this `label`")
	fs.StringVar(&o.repo, "repo", "", "the GitHub repository, `OWNER/NAME`, of --from github-issues and the pull requests (default $GITHUB_REPOSITORY)")
	fs.BoolVar(&o.merge, "merge", false, "when the tasks have ended, run the merge queue (as architect merge --batch FILE does): the tasks that succeeded, one at a time, onto --onto with their checks green")
	fs.BoolVar(&o.queue.squash, "squash", false, "with --merge, each task lands on the target as one commit")
	addQueueFlags(fs, &o.queue)
	_ = c.MarkFlagDirname("dir")
	return c
}

type batchOptions struct {
	parallel                       int
	dir, only                      string
	resume, matrix, jsonOut, quiet bool
	plain                          bool
	pullRequest, draftOnFail       bool
	base                           string
	merge                          bool       // run the merge queue at the end
	queue                          queueFlags // its options
	file                           string     // the batch file
	// from, label and repo: --from, --label, --repo (task intake).
	from, label, repo string
	// plan is the plan of --from plan.md, whose items are ticked.
	plan *intake.Plan
	// issues are the issues of --from github-issues, by number: a task's
	// pull request closes its issue and its receipt records it.
	issues map[int]github.Issue
	// prs: some task asks for a pull request.
	prs bool
	// formats, on a GitHub Actions runner, is each task's errorformat
	// setting by task id (nil: not on a runner).
	formats map[string][]string
}

func runBatch(ctx context.Context, e *env, file string, o batchOptions) error {
	o.file = file
	if o.parallel < 1 {
		return &usererr.Error{Msg: fmt.Sprintf("--parallel %d: must be at least 1", o.parallel), Hint: "e.g. --parallel 2"}
	}
	tasks, done, err := loadBatch(ctx, e, file, &o)
	if err != nil || done {
		return err
	}
	if err := platformRefusal(); err != nil {
		return err
	}
	defer contain(e)() // before the pre-flight's first process
	opts := batch.Options{Dir: o.dir, Parallel: o.parallel, Resume: o.resume}
	warn := func(it preflight.Item) {
		if !o.quiet {
			printWarnings(e.stderr, []preflight.Item{it})
		}
	}
	// The masking (and, on a GitHub Actions runner, the log's masks) reads
	// the model keys' values, then the keys leave architect's environment
	// before the pre-flight's first process.
	if err := batch.Prepare(tasks, &opts, redactor); err != nil {
		return err
	}
	if maskSecrets(e) {
		o.formats = map[string][]string{}
		for _, t := range tasks {
			o.formats[t.ID] = t.Config.Errorformat
		}
	}
	routes, err := planBatchBrokers(e.stderr, o.quiet, tasks)
	if err != nil {
		return err
	}
	hideBatchKeys(e.stderr, o.quiet, tasks, routes, &opts)
	prs, err := batchPullRequests(ctx, e, tasks, o, &opts)
	if err != nil {
		return err
	}
	o.prs = prs
	keepTokenFromTasks(o, &opts)
	if o.merge {
		if err := checkQueue(ctx, e, o.dir, o.file, tasks, o.queue); err != nil {
			return err
		}
	}
	if err := batch.Setup(ctx, tasks, &opts, warn); err != nil {
		return err
	}
	if !o.resume {
		if err := batch.Preflight(ctx, o.dir, tasks); err != nil {
			return err
		}
	}
	bs, err := startBatchBrokers(e.stderr, o.quiet, tasks, routes, &opts)
	if err != nil {
		return err
	}
	defer bs.close()
	stop, restore := showBatch(e, tasks, o, &opts)
	defer restore()
	results := batch.Run(ctx, tasks, opts)
	stop()
	tickPlan(e, o, results)
	return mergeAfter(ctx, e, tasks, results, o, opts.Env, reportBatch(ctx, e, results, o))
}

// loadBatch is the batch's tasks as runBatch runs them: FILE's or those of
// --from, their warnings said and --only applied. done is true when there
// is nothing more to do: no task to run (said), or --matrix printed.
func loadBatch(ctx context.Context, e *env, file string, o *batchOptions) (tasks []batch.Task, done bool, err error) {
	tasks, warnings, nothing, err := batchTasks(ctx, e, file, o)
	if err != nil {
		return nil, false, err
	}
	if nothing != "" {
		fmt.Fprintf(e.stderr, "architect: %s\n", printable(nothing))
		return nil, true, nil
	}
	if o.matrix {
		data, _ := json.Marshal(batch.Matrix(tasks))
		fmt.Fprintln(e.stdout, string(data))
		return nil, true, nil
	}
	for _, w := range warnings {
		usererr.Say(e.stderr, usererr.LevelWarning, "%s", printable(w))
	}
	if o.only != "" {
		if tasks, err = batch.Only(tasks, o.only); err != nil {
			return nil, false, err
		}
	}
	return tasks, false, nil
}

// mergeAfter runs the merge queue when --merge asks for it and the batch
// was not interrupted; err is the batch's own outcome, which a queue that
// merged everything there was to merge leaves as it is.
func mergeAfter(ctx context.Context, e *env, tasks []batch.Task, results []batch.TaskResult, o batchOptions, env map[string][]string, err error) error {
	if !o.merge || ctx.Err() != nil {
		return err
	}
	if qerr := runQueue(ctx, e, o.dir, o.file, tasks, results, o.queue, env); qerr != nil && (err == nil || !errors.Is(qerr, errNoSuccess)) {
		return qerr
	}
	return err
}

// showBatch sets opts up for the way the batch is watched: nothing with
// --quiet, the board on a terminal (unless --plain), else plain lines on
// stderr. stop ends the board when the tasks have ended; restore, once
// the command is done, gives the interrupt messages back to stderr.
func showBatch(e *env, tasks []batch.Task, o batchOptions, opts *batch.Options) (stop, restore func()) {
	out, in, tty := e.terminal()
	switch {
	case o.quiet:
		return func() {}, func() {}
	case !tty || o.plain:
		opts.Log = e.stderr
		opts.Events = tui.PlainTaskEvents(e.stderr) // a line per candidate of a round
		if o.formats != nil {
			opts.Group = batchGroup // a log group per task on an Actions runner
		}
		return func() {}, func() {}
	}
	ids := make([]string, len(tasks))
	for i, t := range tasks {
		ids[i] = t.ID
	}
	board := tui.StartBoard(ids, e.interrupt.key, tui.Options{Out: out, In: in, NoColor: e.noColor()})
	restore = e.interrupt.say(board)
	opts.Events, opts.Finished = board.Event, func(r batch.TaskResult) { board.Finish(outcome(r)) }
	return func() {
		board.Stop()
		if in != nil && in != e.stdin {
			in.Close()
		}
	}, restore
}

func reportBatch(ctx context.Context, e *env, results []batch.TaskResult, o batchOptions) error {
	ok := true
	for _, r := range results {
		ok = ok && r.Success && r.PullRequestError == ""
	}
	data, _ := json.MarshalIndent(struct {
		Success bool               `json:"success"`
		Tasks   []batch.TaskResult `json:"tasks"`
	}{ok, results}, "", "  ")
	if o.jsonOut {
		fmt.Fprintln(e.stdout, string(data))
	}
	batch.WriteSummary(e.stderr, results)
	finishBatchActions(e, o.formats, o.prs, results, data)
	var runs []runDir
	for _, r := range results {
		if d := filepath.Join(r.WorktreePath, runlog.StateDir); r.WorktreePath != "" {
			if _, err := os.Stat(filepath.Join(d, runlog.StateFile)); err == nil {
				runs = append(runs, runDir{r.ID, d})
			}
		}
	}
	if abs, err := filepath.Abs(o.dir); err == nil && len(runs) > 0 {
		path := filepath.Join(abs, runlog.StateDir, "overview.html")
		if err := writeOverview(e, path, "architect batch "+filepath.Base(o.file), runs); err != nil {
			usererr.Say(e.stderr, usererr.LevelWarning, "%v", err)
		} else {
			fmt.Fprintf(e.stderr, "architect: report: %s\n", path)
		}
	}
	switch {
	case ok:
		return nil
	case ctx.Err() != nil:
		return loop.ErrInterrupted
	}
	return errNoSuccess
}

// outcome is how a task ended, for the board.
func outcome(r batch.TaskResult) tui.Outcome {
	return tui.Outcome{ID: r.ID, Outcome: r.Outcome, Success: r.Success, StopReason: r.StopReason,
		Iterations: r.Iterations, Cost: r.KnownCost, CostKnown: r.CostKnown, Duration: r.Duration}
}
