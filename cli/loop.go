package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/gitwt"
	"github.com/architect-dev/architect/loop"
	"github.com/architect-dev/architect/merge"
	"github.com/architect-dev/architect/preflight"
	"github.com/architect-dev/architect/redact"
	"github.com/architect-dev/architect/report"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/tui"
	"github.com/architect-dev/architect/usererr"
	"github.com/architect-dev/architect/wtsetup"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func newLoopCmd(e *env) *cobra.Command {
	var o loopOptions
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
pre-flight error, 3 the worktree's setup command failed (no agent started),
130 interrupted.`,
		Example: `  # A task, two checks, on a branch of its own, at most $5
  architect loop "make the failing auth tests pass" \
    --check "go test ./..." --check "golangci-lint run" --worktree --max-cost 5

  # A specification file with Codex, two hours at most
  architect loop --spec docs/auth-spec.md --agent codex --check "pytest tests/" --max-time 2h

  # Three agents per iteration, each in its own worktree; the checks pick one
  architect loop "fix the flaky parser test" --check "go test ./parser" --candidates 3

  # What ralph.yaml would run: configuration, pre-flight, first prompt
  architect loop -c ralph.yaml --dry-run`,
		GroupID: groupRun,
		Args:    atMostOneArg("expected one TASK argument", `quote the task: architect loop "fix the failing test" --check "go test ./..."`),
		RunE: func(cmd *cobra.Command, args []string) error {
			task := ""
			if len(args) > 0 {
				task = args[0]
			}
			return runLoop(cmd, e, &o, task)
		},
	}
	fs := c.Flags()
	fs.SortFlags = false
	fs.StringVarP(&o.cfgPath, "config", "c", "", "YAML configuration `file` (its ralph_loop: section); also ARCHITECT_CONFIG; without either, the project's ralph.yaml if there is one")
	fs.BoolVar(&o.noConfig, "no-config", false, "read no configuration file, not even the project's ralph.yaml")
	config.RegisterFlags(fs, &o.flagged)
	fs.BoolVar(&o.resume, "resume", false, "continue the run saved in the workspace's .architect/state.json (flags given adjust its configuration)")
	fs.BoolVar(&o.dryRun, "dry-run", false, "print the resolved configuration (and where each value came from), the pre-flight results and the first prompt; run nothing")
	group(c, config.GroupTask, "config", "no-config")
	group(c, config.GroupWorkspace, "resume")
	group(c, config.GroupOutput, "dry-run")
	completeLoopFlags(c)
	return c
}

// loopOptions are the flags of `architect loop`: the configuration they
// set (flagged), and those that say where it comes from and what to do.
type loopOptions struct {
	flagged                  config.Config
	cfgPath                  string
	resume, dryRun, noConfig bool
}

// runLoop runs `architect loop`: --resume continues the saved run;
// otherwise the configuration is read (the file, the environment, the
// flags), then shown (--dry-run) or run.
func runLoop(cmd *cobra.Command, e *env, o *loopOptions, task string) error {
	fs := cmd.Flags()
	if o.resume {
		if task != "" || o.cfgPath != "" || o.dryRun || o.noConfig {
			return &usererr.Error{Msg: "--resume continues the saved run with its own task and configuration", Hint: "drop TASK, -c, --no-config and --dry-run, or start a new run without --resume"}
		}
		ws, err := merge.FindRun(o.flagged.Dir, o.flagged.WorktreeName)
		if err != nil {
			return err
		}
		return resumeRun(cmd.Context(), e, ws, func(c *config.Config) error {
			config.Override(fs, &o.flagged, c)
			c.Quiet, c.Plain, c.JSON = o.flagged.Quiet, o.flagged.Plain, o.flagged.JSON
			return c.ValidateCandidates(flagSources(fs, "candidates", "candidates_finish", "candidates_lessons"))
		})
	}
	path, found, err := loopConfigFile(cmd, e, o)
	if err != nil {
		return err
	}
	cfg, src, warnings, err := config.LoadWithPreset(presetLayer(e), path, task, e.lookup, fs, &o.flagged)
	if found && (err != nil || !cfg.Quiet) {
		fmt.Fprintf(e.stderr, "architect: reading %s (the project's configuration; -c FILE reads another, --no-config none)\n", printable(path))
	}
	if err != nil {
		return err
	}
	if o.dryRun {
		return dryRunLoop(cmd.Context(), e, cfg, src, warnings, path)
	}
	if !cfg.Quiet {
		for _, w := range warnings {
			usererr.Say(e.stderr, usererr.LevelWarning, "%s", printable(w))
		}
	}
	return execute(cmd.Context(), e, cfg)
}

// loopConfigFile is the configuration file the loop reads: -c's or
// ARCHITECT_CONFIG's, else the project's ralph.yaml (found), else none
// ("", and none with --no-config).
func loopConfigFile(cmd *cobra.Command, e *env, o *loopOptions) (path string, found bool, err error) {
	if o.noConfig && cmd.Flags().Changed("config") {
		return "", false, &usererr.Error{Msg: "--no-config and -c both given", Hint: "-c FILE reads FILE; --no-config reads no file at all: give one of them"}
	}
	if o.noConfig {
		return "", false, nil
	}
	if path, err = configPath(cmd, e, o.cfgPath); err != nil || path != "" {
		return path, false, err
	}
	path, err = projectConfig(o.flagged.Dir)
	return path, path != "", err
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
	r, err := prepare(ctx, e, cfg, "")
	if err != nil {
		return err
	}
	defer r.release()
	res, err := loop.Run(ctx, cfg, r.deps)
	return r.finish(res, err)
}

// resumeRun continues the saved run in workspace.
func resumeRun(ctx context.Context, e *env, workspace string, override func(*config.Config) error) error {
	st, err := runlog.ReadState(workspace)
	if err != nil {
		return &usererr.Error{Msg: "no run to resume in " + workspace + ": " + unwrapPath(err), Hint: "start one with `architect loop`"}
	}
	cfg, err := savedConfig(st)
	if err != nil {
		return runlog.Damaged(runlog.Path(workspace, runlog.StateFile), err)
	}
	if err := override(&cfg); err != nil {
		return err
	}
	r, err := prepare(ctx, e, cfg, workspace)
	if err != nil {
		return err
	}
	defer r.release()
	res, err := loop.Resume(ctx, workspace, func(c *config.Config) { *c = cfg }, r.deps)
	return r.finish(res, err)
}

// flagSources says which of the options keys were set by a flag on fs,
// naming it, as config.LoadSources does.
func flagSources(fs *pflag.FlagSet, keys ...string) config.Sources {
	src := config.Sources{}
	for _, k := range keys {
		if name := strings.ReplaceAll(k, "_", "-"); fs.Changed(name) {
			src[k] = "--" + name
		}
	}
	return src
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
	// The notifiers' secrets are masked whatever their variables are called;
	// the values of the .env files worktree_setup copies, as the same
	// values in the environment are.
	environ := append(os.Environ(), copiedSecrets(cfg)...)
	r, err := redact.NewNamed(environ, cfg.SecretVars(), cfg.Redact, keep...)
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

// copiedSecrets are the KEY=VALUE lines of the files worktree_setup
// copies into a run's worktree, read from the checkout cfg.Dir is in.
func copiedSecrets(cfg config.Config) []string {
	if !cfg.Worktree || len(cfg.WorktreeSetup.Copy) == 0 {
		return nil
	}
	repo, err := gitwt.Open(context.Background(), cfg.Dir)
	if err != nil {
		return nil // no worktree can be made: nothing is copied
	}
	return wtsetup.Secrets(repo.Dir(), cfg.WorktreeSetup)
}

// newAgent builds cfg's agent.
func newAgent(cfg config.Config) (agent.Agent, error) {
	ag, err := agent.New(cfg.AgentConfig())
	if err != nil {
		return nil, &failure{err: err, hint: "see `architect loop --help` for the agents and their flags", code: ExitUsage}
	}
	return ag, nil
}

// prepared is a run made ready by prepare: the loop's dependencies, and
// what ends the watching and the containment once the loop returned.
type prepared struct {
	e         *env
	cfg       config.Config
	deps      loop.Deps
	gha       *githubActions
	stopWatch func()
	release   func()
}

// prepare builds the agent for cfg, runs the pre-flight (refusing before
// anything is created when it fails) and sets up the watching of the run.
// resumed is the workspace of the run to resume, "" for a new run. The
// caller runs the loop with deps, then calls finish, then release.
func prepare(ctx context.Context, e *env, cfg config.Config, resumed string) (r *prepared, err error) {
	if err := platformRefusal(); err != nil {
		return nil, err
	}
	ag, err := newAgent(cfg)
	if err != nil {
		return nil, err
	}
	r = &prepared{e: e, cfg: cfg, deps: loop.Deps{Agent: ag}}
	if cfg.Parallel > 0 {
		r.deps.CheckSlots = make(chan struct{}, cfg.Parallel)
	}
	uncontain := contain(e) // before the pre-flight's first process
	r.release = uncontain
	defer func(r *prepared) { // r itself: a failing return sets the result to nil
		if err != nil {
			r.release()
		}
	}(r)
	routes, err := planBrokers(cfg, os.Environ(), "--broker off", func(msg string) {
		if !cfg.Quiet {
			usererr.Say(e.stderr, usererr.LevelWarning, "%s", msg)
		}
	})
	if err != nil {
		return nil, err
	}
	// The redactor and the Actions masks read the model keys' values, then
	// the keys leave architect's environment before any process starts.
	if r.deps.Redact, err = redactor(cfg); err != nil {
		return nil, err
	}
	r.gha = startGitHubActions(e, cfg.Errorformat) // masks the secrets before anything runs
	passBack := hideKeys(e.stderr, cfg, routes)
	pre := preflight.Run(ctx, cfg, ag, preflight.Options{NoWorkspace: resumed != ""})
	if err := pre.Err(); err != nil {
		return nil, err
	}
	passBack()
	if !cfg.Quiet {
		printWarnings(e.stderr, pre.Warnings())
	}
	bs, err := startBrokers(e.stderr, cfg.Quiet, routes)
	if err != nil {
		return nil, err
	}
	r.release = func() { bs.close(); uncontain() }
	if cfg.Broker != config.BrokerOff {
		if err := bs.use(cfg.AgentConfig(), &r.deps); err != nil {
			return nil, err
		}
	}
	if r.stopWatch, err = watch(ctx, e, cfg, viewInfo(cfg, ag.Name(), resumed), &r.deps); err != nil {
		return nil, err
	}
	r.gha.observe(&r.deps)
	observed := r.deps.Events
	r.deps.Events = func(ev runlog.Event) {
		if ev.Type == runlog.EventLoopStarted {
			ws := ev.Workspace
			e.workspace.Store(&ws)
		}
		if observed != nil {
			observed(ev)
		}
	}
	return r, nil
}

// finish ends the watching and reports the loop's result res (or its error).
func (r *prepared) finish(res *runlog.Result, err error) error {
	r.stopWatch()
	if err != nil {
		return err
	}
	data, _ := json.MarshalIndent(res, "", "  ")
	if r.cfg.JSON {
		fmt.Fprintln(r.e.stdout, string(data))
	}
	r.gha.finish(res, data)
	printSummary(r.e.stderr, res, r.cfg)
	switch {
	case res.Success:
		return nil
	case res.StopReason == runlog.StopCancelled:
		return loop.ErrInterrupted
	case res.StopReason == runlog.StopSetup:
		return errSetup
	}
	return errNoSuccess
}

// viewInfo is what the view's header says about the run before it starts;
// for a resumed run (in workspace resumed) also its earlier iterations.
func viewInfo(cfg config.Config, agentName, resumed string) tui.Info {
	info := tui.Info{Task: merge.TaskTitle(cfg.Task, cfg.Spec), Agent: agentName, Model: cfg.Model,
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
		usererr.Say(w, usererr.LevelWarning, "%s", printable(it.Check+": "+it.Detail))
		if it.Hint != "" {
			usererr.Say(w, usererr.LevelHint, "%s", printable(it.Hint))
		}
	}
}
