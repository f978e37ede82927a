package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/gitwt"
	"github.com/architect-dev/architect/loop"
	"github.com/architect-dev/architect/preflight"
	"github.com/architect-dev/architect/redact"
	"github.com/architect-dev/architect/report"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/tui"
	"github.com/architect-dev/architect/usererr"
	"github.com/spf13/cobra"
)

func newLoopCmd(e *env) *cobra.Command {
	var flagged config.Config
	var cfgPath string
	var resume, dryRun, noConfig bool
	c := &cobra.Command{
		Use:   "loop [TASK] [flags]",
		Short: "run an agent in a check-driven loop until the checks pass",
		Long: `Runs a fresh agent each iteration with the task, the changes so far, the
failing checks and the progress file, then runs the checks. Stops when every
check passes and the agent printed <promise>TAG</promise>, or at a limit.

Options come from the built-in defaults, then the file given with -c (its
ralph_loop: section; every key is in ralph.yaml.example), or without -c the
project's ralph.yaml (the one in -C DIR, as architect init writes it;
--no-config reads none), then ARCHITECT_* variables (ARCHITECT_MAX_COST=5),
then the flags. Before anything is created
or started, a pre-flight checks that the agent and each check's programs are
installed, the specification exists and the limits fit together; --dry-run
shows it all and runs nothing.

Exit status: 0 success, 1 ended without success, 2 usage, configuration or
pre-flight error, 130 interrupted.`,
		Example: `  # A task, two checks, on a branch of its own, at most $5
  architect loop "make the failing auth tests pass" \
    --check "go test ./..." --check "golangci-lint run" --worktree --max-cost 5

  # A specification file with Codex, two hours at most
  architect loop --spec docs/auth-spec.md --agent codex --check "pytest tests/" --max-time 2h

  # What ralph.yaml would run: configuration, pre-flight, first prompt
  architect loop -c ralph.yaml --dry-run`,
		GroupID: groupRun,
		Args:    maxArgs(1, "expected one TASK argument", `quote the task: architect loop "fix the failing test" --check "go test ./..."`),
		RunE: func(cmd *cobra.Command, args []string) error {
			fs := cmd.Flags()
			task := ""
			if len(args) > 0 {
				task = args[0]
			}
			if resume {
				if task != "" || cfgPath != "" || dryRun || noConfig {
					return &usererr.Error{Msg: "--resume continues the saved run with its own task and configuration", Hint: "drop TASK, -c, --no-config and --dry-run, or start a new run without --resume"}
				}
				ws, err := findRun(flagged.Dir, flagged.WorktreeName)
				if err != nil {
					return err
				}
				return resumeRun(cmd.Context(), e, ws, func(c *config.Config) {
					config.Override(fs, &flagged, c)
					c.Quiet, c.Plain, c.JSON = flagged.Quiet, flagged.Plain, flagged.JSON
				})
			}
			if noConfig && fs.Changed("config") {
				return &usererr.Error{Msg: "--no-config and -c both given", Hint: "-c FILE reads FILE; --no-config reads no file at all: give one of them"}
			}
			var path string
			found := false
			if !noConfig {
				var err error
				if path, err = configPath(cmd, e, cfgPath); err != nil {
					return err
				}
				if path == "" {
					if path, err = projectConfig(flagged.Dir); err != nil {
						return err
					}
					found = path != ""
				}
			}
			cfg, src, warnings, err := config.LoadSources(path, task, e.lookup, fs, &flagged)
			if found && (err != nil || !cfg.Quiet) {
				fmt.Fprintf(e.stderr, "architect: reading %s (the project's configuration; -c FILE reads another, --no-config none)\n", printable(path))
			}
			if err != nil {
				return err
			}
			if dryRun {
				return dryRunLoop(cmd.Context(), e, cfg, src, warnings, path)
			}
			if !cfg.Quiet {
				for _, w := range warnings {
					fmt.Fprintf(e.stderr, "architect: warning: %s\n", printable(w))
				}
			}
			return execute(cmd.Context(), e, cfg)
		},
	}
	fs := c.Flags()
	fs.SortFlags = false
	fs.StringVarP(&cfgPath, "config", "c", "", "YAML configuration `file` (its ralph_loop: section); also ARCHITECT_CONFIG; without either, the project's ralph.yaml if there is one")
	fs.BoolVar(&noConfig, "no-config", false, "read no configuration file, not even the project's ralph.yaml")
	config.RegisterFlags(fs, &flagged)
	fs.BoolVar(&resume, "resume", false, "continue the run saved in the workspace's .architect/state.json (flags given adjust its configuration)")
	fs.BoolVar(&dryRun, "dry-run", false, "print the resolved configuration (and where each value came from), the pre-flight results and the first prompt; run nothing")
	group(c, config.GroupTask, "config", "no-config")
	group(c, config.GroupWorkspace, "resume")
	group(c, config.GroupOutput, "dry-run")
	completeLoopFlags(c)
	return c
}

// completeLoopFlags registers the completions of the flags whose values
// are known: enumerations, files and folders.
func completeLoopFlags(c *cobra.Command) {
	for name, values := range config.FlagValues() {
		_ = c.RegisterFlagCompletionFunc(name, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return values(), cobra.ShellCompDirectiveNoFileComp
		})
	}
	_ = c.MarkFlagFilename("config", "yaml", "yml")
	_ = c.MarkFlagFilename("spec", "md", "txt")
	_ = c.MarkFlagDirname("dir")
	_ = c.RegisterFlagCompletionFunc("worktree-name", completeWorktreeNames)
}

// execute runs a validated configuration and reports the result.
func execute(ctx context.Context, e *env, cfg config.Config) error {
	return drive(ctx, e, cfg, "", func(deps loop.Deps) (*runlog.Result, error) { return loop.Run(ctx, cfg, deps) })
}

// resumeRun continues the saved run in workspace.
func resumeRun(ctx context.Context, e *env, workspace string, override func(*config.Config)) error {
	st, err := runlog.ReadState(workspace)
	if err != nil {
		return &usererr.Error{Msg: "no run to resume in " + workspace + ": " + unwrapPath(err), Hint: "start one with `architect loop`"}
	}
	cfg, err := savedConfig(st)
	if err != nil {
		return runlog.Damaged(runlog.Path(workspace, runlog.StateFile), err)
	}
	override(&cfg)
	return drive(ctx, e, cfg, workspace, func(deps loop.Deps) (*runlog.Result, error) {
		return loop.Resume(ctx, workspace, func(c *config.Config) { *c = cfg }, deps)
	})
}

// savedConfig is the configuration a run's state keeps (its secrets
// masked).
func savedConfig(st *runlog.State) (config.Config, error) {
	var cfg config.Config
	err := st.DecodeConfig(&cfg)
	return cfg, err
}

// redactor masks secret environment values, --redact matches and (unless
// --redact-known off) credentials of a known format in all architect
// writes; nil when there is nothing to mask. Values that appear
// in the task or the specification are left alone: they are the user's own
// words, and masking them would change the task.
func redactor(cfg config.Config) (func(string) string, error) {
	keep := []string{cfg.Task}
	if cfg.Spec != "" {
		if b, err := os.ReadFile(cfg.Spec); err == nil {
			keep = append(keep, string(b))
		}
	}
	r, err := redact.FromEnv(cfg.Redact, keep...)
	if err != nil {
		return nil, &usererr.Error{Msg: "--redact: " + config.RegexpProblem(err), Hint: "use Go (RE2) syntax that matches some text"}
	}
	if cfg.RedactKnown != config.RedactKnownOff {
		r = r.WithKnown()
	}
	if r.Empty() {
		return nil, nil
	}
	return r.String, nil
}

// newAgent builds cfg's agent.
func newAgent(cfg config.Config) (agent.Agent, error) {
	ag, err := agent.New(cfg.AgentConfig())
	if err != nil {
		return nil, &usererr.Error{Msg: err.Error(), Hint: "see `architect loop --help` for the agents and their flags"}
	}
	return ag, nil
}

// drive builds the agent for cfg, runs the pre-flight (refusing before
// anything is created when it fails), runs start, and reports the result.
// resumed is the workspace of the run start resumes, "" for a new run.
func drive(ctx context.Context, e *env, cfg config.Config, resumed string, start func(loop.Deps) (*runlog.Result, error)) error {
	ag, err := newAgent(cfg)
	if err != nil {
		return err
	}
	defer contain(e)() // before the pre-flight's first process
	routes, err := planBrokers(cfg, os.Environ())
	if err != nil {
		return err
	}
	// The redactor and the Actions masks read the model keys' values, then
	// the keys leave architect's environment before any process starts.
	redact, err := redactor(cfg)
	if err != nil {
		return err
	}
	gha := startGitHubActions(e) // masks the secrets before anything runs
	passBack := hideKeys(e.stderr, cfg, routes)
	pre := preflight.Run(ctx, cfg, ag, preflight.Options{NoWorkspace: resumed != ""})
	if err := pre.Err(); err != nil {
		return err
	}
	passBack()
	if !cfg.Quiet {
		printWarnings(e.stderr, pre.Warnings())
	}
	deps := loop.Deps{Agent: ag, Redact: redact}
	bs, err := startBrokers(e.stderr, cfg.Quiet, cfg, routes, &deps)
	if err != nil {
		return err
	}
	defer bs.close()
	stopWatch, err := watch(ctx, e, cfg, viewInfo(cfg, ag.Name(), resumed), &deps)
	if err != nil {
		return err
	}
	gha.observe(&deps)
	observed := deps.Events
	deps.Events = func(ev runlog.Event) {
		if ev.Type == runlog.EventLoopStarted {
			ws := ev.Workspace
			e.workspace.Store(&ws)
		}
		if observed != nil {
			observed(ev)
		}
	}
	res, err := start(deps)
	stopWatch()
	if err != nil {
		return err
	}
	data, _ := json.MarshalIndent(res, "", "  ")
	if cfg.JSON {
		fmt.Fprintln(e.stdout, string(data))
	}
	gha.finish(res, data)
	printSummary(e.stderr, res, cfg)
	switch {
	case res.Success:
		return nil
	case res.StopReason == runlog.StopCancelled:
		return loop.ErrInterrupted
	}
	return errNoSuccess
}

// viewInfo is what the view's header says about the run before it starts;
// for a resumed run (in workspace resumed) also its earlier iterations.
func viewInfo(cfg config.Config, agentName, resumed string) tui.Info {
	info := tui.Info{Task: taskTitle(cfg.Task, cfg.Spec), Agent: agentName, Model: cfg.Model,
		MaxIterations: cfg.MaxIterations, Budget: cfg.MaxCost, MaxTime: cfg.MaxTime}
	if resumed == "" {
		return info
	}
	if st, err := runlog.ReadState(resumed); err == nil {
		info.Elapsed = time.Duration(st.Elapsed * float64(time.Second))
		info.Workspace, info.Branch = st.Workspace, st.Branch
	}
	if its, err := report.ReadIterations(resumed); err == nil {
		info.History = tui.Rows(its)
	}
	return info
}

// printWarnings prints pre-flight warnings, each with its hint.
func printWarnings(w io.Writer, items []preflight.Item) {
	for _, it := range items {
		fmt.Fprintf(w, "architect: warning: %s\n", printable(it.Check+": "+it.Detail))
		if it.Hint != "" {
			fmt.Fprintf(w, "architect: hint: %s\n", printable(it.Hint))
		}
	}
}

// printSummary prints how the run cfg ended: the outcome, the checks
// still failing, what happened on the way, where the report and the work
// are, and for a run that did not succeed the command that goes on.
func printSummary(w io.Writer, r *runlog.Result, cfg config.Config) {
	tail := fmt.Sprintf("after %d iteration%s (cost %s, %.1fs)", r.TotalIterations, plural(r.TotalIterations), r.Cost(), r.TotalDuration)
	switch {
	case r.Success && r.NoChecks:
		fmt.Fprintf(w, "architect: done: the agent declared completion %s; no check was run (the run has none), so nothing was verified\n", tail)
	case r.Success:
		fmt.Fprintf(w, "architect: success: all checks passed and the agent declared completion %s\n", tail)
		// What the success rests on that the run only recorded: a check's
		// definition changed (--judge warn), tests gone (--tests warn).
		for _, c := range r.JudgeChanged {
			if c.Kept {
				fmt.Fprintf(w, "architect: warning: %s (kept: --judge warn)\n", printable(c.Text()))
			}
		}
		if t := r.TestsRemoved; t != nil && !t.Failed && t.Count > 0 {
			gone := slices.Concat(t.Tests, t.NotRun)
			if len(gone) < t.Count {
				gone = append(gone, fmt.Sprintf("%d more", t.Count-len(gone)))
			}
			fmt.Fprintf(w, "architect: warning: %d test%s of the start removed (kept: --tests warn): %s\n", t.Count, plural(t.Count), printable(strings.Join(gone, ", ")))
		}
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
	if r.StopHint != "" {
		fmt.Fprintf(w, "architect: hint: %s\n", r.StopHint)
	}
	defer func() {
		if next := nextStep(r, cfg); next != "" {
			fmt.Fprintf(w, "architect: next: %s\n", next)
		}
	}()
	if r.UsageLimitWaits > 0 {
		fmt.Fprintf(w, "architect: waited %s in all for the agent's usage limit (%d wait%s)\n",
			time.Duration(r.UsageLimitWaited*float64(time.Second)).Round(time.Second), r.UsageLimitWaits, plural(r.UsageLimitWaits))
	}
	for _, sw := range r.Switches {
		fmt.Fprintf(w, "architect: iteration %d ran on %s instead of %s (%s: %s)\n", sw.Iteration, sw.To, sw.From, sw.Reason, sw.Detail)
	}
	if len(r.Agents) > 1 {
		var parts []string
		for _, a := range r.Agents {
			cost := "cost unknown"
			if a.Cost != nil {
				cost = fmt.Sprintf("$%.4f", *a.Cost)
			} else if a.KnownCost > 0 {
				cost = fmt.Sprintf("at least $%.4f", a.KnownCost)
			}
			parts = append(parts, fmt.Sprintf("%s %d iteration%s, %s", agentLabel(a.Agent, a.Model), a.Iterations, plural(a.Iterations), cost))
		}
		fmt.Fprintf(w, "architect: by agent: %s\n", strings.Join(parts, "; "))
	}
	for _, s := range r.Stalls {
		fmt.Fprintf(w, "architect: stalled at iteration %d on %s: %s (%s)\n", s.Iteration, s.Agent, s.Detail, s.Action)
	}
	if r.NotesDelivered > 0 {
		fmt.Fprintf(w, "architect: %d note%s from you reached the agent\n", r.NotesDelivered, plural(r.NotesDelivered))
	}
	if r.Workspace != "" {
		if _, err := os.Stat(filepath.Join(r.Workspace, runlog.StateDir, report.File)); err == nil {
			fmt.Fprintf(w, "architect: report: %s\n", filepath.Join(r.Workspace, runlog.StateDir, report.File))
		}
	}
	if r.WorktreePath == "" {
		return
	}
	if n := branchCommits(r); n == 0 {
		fmt.Fprintf(w, "architect: nothing was committed on branch %s; remove it and its worktree with `architect clean%s`\n", r.Branch, cleanName(r.Branch))
		return
	}
	fmt.Fprintf(w, "architect: the work is in %s on branch %s; bring it in with `architect merge%s` (or git merge %s)\n", r.WorktreePath, r.Branch, cleanName(r.Branch), r.Branch)
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

// cleanName is the NAME argument that names branch in clean and merge: ""
// for the default worktree.
func cleanName(branch string) string {
	if branch == loop.DefaultBranch || branch == "" {
		return ""
	}
	return " " + branch[len("architect/"):]
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// unwrapPath drops the path an *os.PathError repeats.
func unwrapPath(err error) string {
	if pe := (*os.PathError)(nil); errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// agentLabel names an agent and its model: "codex:gpt-5.5".
func agentLabel(name, model string) string {
	if model == "" {
		return name
	}
	return name + ":" + model
}

// shellArg is s as one word of a command line to copy: as it is when sh
// would read it so, else quoted.
func shellArg(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./~@%+=:,-") == "" && s[0] != '~' {
		return s
	}
	return shellQuote(s)
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
