package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/loop"
	"github.com/architect-dev/architect/proc"
	"github.com/architect-dev/architect/redact"
	"github.com/spf13/pflag"
)

const loopUsage = `Usage: architect loop [TASK] [flags]

Runs a fresh agent each iteration with the task, the changes so far, the
failing checks and the progress file, then runs the checks. Stops when every
check passes and the agent printed <promise>TAG</promise>, or at a limit.

Exit status: 0 success, 1 ended without success, 2 usage or configuration
error, 130 interrupted.

Flags:
`

func runLoop(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("loop", e.stderr)
	var flagged config.Config
	config.RegisterFlags(fs, &flagged)
	cfgPath := fs.StringP("config", "c", "", "YAML configuration `file` (section ralph_loop:)")
	resume := fs.Bool("resume", false, "continue the run saved in the workspace's .architect/state.json (flags given adjust its configuration)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			fmt.Fprint(e.stdout, loopUsage+fs.FlagUsages())
			return nil
		}
		return flagError("loop", err)
	}
	if fs.NArg() > 1 {
		return &loop.UsageError{
			Msg:  fmt.Sprintf("expected one TASK argument, got %d: %q", fs.NArg(), fs.Args()),
			Hint: `quote the task: architect loop "fix the failing test" --check "go test ./..."`,
		}
	}
	if *resume {
		if fs.NArg() > 0 || *cfgPath != "" {
			return &loop.UsageError{Msg: "--resume continues the saved run with its own task and configuration", Hint: "drop TASK and -c, or start a new run without --resume"}
		}
		ws, err := findRun(flagged.Dir, flagged.WorktreeName)
		if err != nil {
			return err
		}
		return resumeRun(ctx, e, ws, func(c *config.Config) {
			config.Override(fs, &flagged, c)
			c.Quiet, c.JSON = flagged.Quiet, flagged.JSON
		})
	}
	path := *cfgPath
	if path == "" {
		path, _ = e.lookup("ARCHITECT_CONFIG")
	}
	cfg, warnings, err := config.Load(path, fs.Arg(0), e.lookup, fs, &flagged)
	if err != nil {
		return err
	}
	for _, w := range warnings {
		fmt.Fprintf(e.stderr, "architect: warning: %s\n", w)
	}
	return execute(ctx, e, cfg)
}

// execute runs a validated configuration and reports the result.
func execute(ctx context.Context, e *env, cfg config.Config) error {
	return drive(ctx, e, cfg, func(deps loop.Deps) (*loop.Result, error) { return loop.Run(ctx, cfg, deps) })
}

// resumeRun continues the saved run in workspace.
func resumeRun(ctx context.Context, e *env, workspace string, override func(*config.Config)) error {
	st, err := loop.ReadState(workspace)
	if err != nil {
		return &loop.UsageError{Msg: "no run to resume in " + workspace + ": " + err.Error(), Hint: "start one with `architect loop`"}
	}
	cfg := st.Config
	override(&cfg)
	return drive(ctx, e, cfg, func(deps loop.Deps) (*loop.Result, error) {
		return loop.Resume(ctx, workspace, func(c *config.Config) { *c = cfg }, deps)
	})
}

// redactor masks secret environment values and --redact matches in all
// architect writes; nil when there is nothing to mask. Values that appear
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
		return nil, &loop.UsageError{Msg: "--redact: " + err.Error(), Hint: "use Go (RE2) syntax that matches some text"}
	}
	if r.Empty() {
		return nil, nil
	}
	return r.String, nil
}

// drive builds the agent for cfg, runs start, and reports the result.
func drive(ctx context.Context, e *env, cfg config.Config, start func(loop.Deps) (*loop.Result, error)) error {
	ag, err := agent.New(agent.Config{
		Name: cfg.Agent, Cmd: cfg.AgentCmd, Bin: cfg.AgentBin,
		Model: cfg.Model, Args: cfg.AgentArgs, Prices: cfg.Prices,
	})
	if err != nil {
		return &loop.UsageError{Msg: err.Error(), Hint: "see `architect loop --help` for the agents and their flags"}
	}
	if pc, ok := ag.(agent.PriceChecker); ok && cfg.MaxCost > 0 {
		if err := pc.CheckPrices(); err != nil {
			return &loop.UsageError{Msg: "--max-cost needs the cost of every run, but " + err.Error(), Hint: "add the model's price under prices: in the config file (USD per million tokens), or drop --max-cost"}
		}
	}
	if err := proc.EnableSubreaper(); err != nil {
		fmt.Fprintf(e.stderr, "architect: warning: cannot adopt orphaned processes: %v\n", err)
	}
	gha := startGitHubActions(e) // masks the secrets before anything runs
	deps := loop.Deps{Agent: ag}
	if deps.Redact, err = redactor(cfg); err != nil {
		return err
	}
	stopWatch, err := watch(ctx, e, cfg, &deps)
	if err != nil {
		return err
	}
	gha.observe(&deps)
	observed := deps.Events
	deps.Events = func(ev loop.Event) {
		if ev.Type == loop.EventLoopStarted {
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
	printSummary(e.stderr, res)
	switch {
	case res.Success:
		return nil
	case res.StopReason == loop.StopCancelled:
		return loop.ErrInterrupted
	}
	return errNoSuccess
}

func printSummary(w io.Writer, r *loop.Result) {
	tail := fmt.Sprintf("after %d iteration%s (cost %s, %.1fs)", r.TotalIterations, plural(r.TotalIterations), r.Cost(), r.TotalDuration)
	switch {
	case r.Success && r.NoChecks:
		fmt.Fprintf(w, "architect: done: the agent declared completion %s; no check was run (the run has none), so nothing was verified\n", tail)
	case r.Success:
		fmt.Fprintf(w, "architect: success: all checks passed and the agent declared completion %s\n", tail)
	default:
		detail := ""
		if r.StopDetail != "" {
			detail = ": " + r.StopDetail
		}
		fmt.Fprintf(w, "architect: no success: stopped on %s%s %s\n", r.StopReason, detail, tail)
	}
	if r.UsageLimitWaits > 0 {
		fmt.Fprintf(w, "architect: waited %s in all for the agent's usage limit (%d wait%s)\n",
			time.Duration(r.UsageLimitWaited*float64(time.Second)).Round(time.Second), r.UsageLimitWaits, plural(r.UsageLimitWaits))
	}
	if r.WorktreePath != "" {
		fmt.Fprintf(w, "architect: the work is in %s on branch %s; merge it with: git merge %s\n", r.WorktreePath, r.Branch, r.Branch)
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
