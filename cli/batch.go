package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/batch"
	"github.com/architect-dev/architect/loop"
	"github.com/spf13/pflag"
)

const batchUsage = `Usage: architect batch FILE [flags]

Runs every task of FILE (see ralph-batch.yaml.example) in its own loop, in
its own worktree .architect-worktrees/ID on branch architect/ID, N at a
time. One task's failure does not stop the others; Ctrl-C stops them all.

Exit status: 0 every task succeeded, 1 some did not, 2 usage or
configuration error, 130 interrupted.

Flags:
`

func runBatch(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("batch", e.stderr)
	parallel := fs.IntP("parallel", "p", 2, "run up to `N` tasks at a time")
	dir := fs.StringP("dir", "C", ".", "the repository `directory`")
	resume := fs.Bool("resume", false, "continue unfinished tasks from their saved state; tasks that succeeded are not run again")
	matrix := fs.Bool("matrix", false, "print the JSON of a GitHub Actions strategy.matrix with one entry per task, and exit")
	only := fs.String("only", "", "run only the task `ID`")
	jsonOut := fs.Bool("json", false, "print the per-task results as JSON on stdout")
	quiet := fs.Bool("quiet", false, "print only the summary")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			fmt.Fprint(e.stderr, batchUsage+fs.FlagUsages())
			return nil
		}
		return flagError("batch", err)
	}
	if fs.NArg() != 1 {
		return &loop.UsageError{Msg: fmt.Sprintf("expected one batch FILE, got %d arguments", fs.NArg()), Hint: "architect batch ralph-batch.yaml (see ralph-batch.yaml.example)"}
	}
	if *parallel < 1 {
		return &loop.UsageError{Msg: fmt.Sprintf("--parallel %d: must be at least 1", *parallel), Hint: "e.g. --parallel 2"}
	}
	tasks, warnings, err := batch.Load(fs.Arg(0))
	if err != nil {
		return err
	}
	if *matrix {
		data, _ := json.Marshal(batch.Matrix(tasks))
		fmt.Fprintln(e.stdout, string(data))
		return nil
	}
	for _, w := range warnings {
		fmt.Fprintf(e.stderr, "architect: warning: %s\n", w)
	}
	if *only != "" {
		if tasks, err = batch.Only(tasks, *only); err != nil {
			return err
		}
	}
	agents := map[string]agent.Agent{}
	redacts := map[string]func(string) string{}
	for _, t := range tasks {
		ag, err := batchAgent(t)
		if err != nil {
			return err
		}
		agents[t.ID] = ag
		if redacts[t.ID], err = redactor(t.Config); err != nil {
			return err
		}
	}
	if !*resume {
		if err := batch.Preflight(ctx, *dir, tasks); err != nil {
			return err
		}
	}
	defer contain(e)()
	opts := batch.Options{Dir: *dir, Parallel: *parallel, Resume: *resume, Agents: agents, Redact: redacts}
	var board *batch.Board
	width, tty := terminalWidth(e.stderr)
	switch {
	case *quiet:
	case tty && os.Getenv("TERM") != "dumb":
		ids := make([]string, len(tasks))
		for i, t := range tasks {
			ids[i] = t.ID
		}
		board = batch.NewBoard(e.stderr, ids, width)
		opts.Events = board.Event
	default:
		opts.Log = e.stderr
	}
	results := batch.Run(ctx, tasks, opts)
	if board != nil {
		for _, r := range results {
			board.Finish(r)
		}
		board.Close()
	}
	return reportBatch(ctx, e, results, *jsonOut)
}

// batchAgent builds task t's agent, refusing up front what the loop would
// refuse later.
func batchAgent(t batch.Task) (agent.Agent, error) {
	c := t.Config
	ag, err := agent.New(agent.Config{Name: c.Agent, Cmd: c.AgentCmd, Bin: c.AgentBin, Model: c.Model, Args: c.AgentArgs, Prices: c.Prices})
	if err != nil {
		return nil, &loop.UsageError{Msg: "task " + t.ID + ": " + err.Error(), Hint: "fix the task's agent options in the batch file"}
	}
	if pc, ok := ag.(agent.PriceChecker); ok && c.MaxCost > 0 {
		if err := pc.CheckPrices(); err != nil {
			return nil, &loop.UsageError{Msg: "task " + t.ID + ": max_cost needs the cost of every run, but " + err.Error(), Hint: "add the model's price under prices: in defaults: (USD per million tokens), or drop max_cost"}
		}
	}
	return ag, nil
}

func reportBatch(ctx context.Context, e *env, results []batch.TaskResult, jsonOut bool) error {
	ok := true
	for _, r := range results {
		ok = ok && r.Success
	}
	if jsonOut {
		data, _ := json.MarshalIndent(struct {
			Success bool               `json:"success"`
			Tasks   []batch.TaskResult `json:"tasks"`
		}{ok, results}, "", "  ")
		fmt.Fprintln(e.stdout, string(data))
	}
	batch.WriteSummary(e.stderr, results)
	switch {
	case ok:
		return nil
	case ctx.Err() != nil:
		return loop.ErrInterrupted
	}
	return errNoSuccess
}

// terminalWidth reports whether w is a terminal, and its width.
func terminalWidth(w io.Writer) (int, bool) {
	f, ok := w.(*os.File)
	if !ok {
		return 0, false
	}
	return termSize(int(f.Fd()))
}
