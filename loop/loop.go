// Package loop runs the Ralph loop: each iteration builds a fresh prompt
// (task, accumulated diff, failing checks, progress), starts a brand-new
// agent process, runs the checks concurrently, records the iteration, and
// stops on success (every check passed and the agent declared completion)
// or on a limit: iterations, cost, time, cancellation.
package loop

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/checks"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/prompt"
)

// ErrInterrupted is the cause the command line gives the context it cancels
// on SIGINT/SIGTERM.
var ErrInterrupted = errors.New("interrupted")

var errTimeUp = errors.New("max-time reached")

// Deps are the loop's collaborators.
type Deps struct {
	Agent agent.Agent
	Log   io.Writer        // human-readable progress lines (stderr); nil discards
	Now   func() time.Time // nil means time.Now
}

type runner struct {
	cfg   config.Config
	deps  Deps
	ws    *workspace
	res   *Result
	start time.Time

	prev, prevPrev []checks.Result // the last two iterations' check results
	execErr        string          // the previous agent run's error
}

// Run runs the loop. The error is for problems that prevent a run at all
// (a *UsageError for the user's input); how the loop ended is in Result.
func Run(ctx context.Context, cfg config.Config, deps Deps) (*Result, error) {
	if deps.Log == nil {
		deps.Log = io.Discard
	}
	if deps.Now == nil {
		deps.Now = time.Now
	}
	r := &runner{cfg: cfg, deps: deps, start: deps.Now()}
	ws, err := setupWorkspace(ctx, cfg, r.warn)
	if err != nil {
		return nil, err
	}
	r.ws = ws
	if err := ws.prepareStateDir(r.start); err != nil {
		return nil, fmt.Errorf("preparing %s: %w", ws.state(), err)
	}
	r.res = &Result{
		Iterations:     []Iteration{},
		TotalCostKnown: true,
		WorktreePath:   ws.worktree,
		Branch:         ws.branch,
		InitialRef:     ws.initialRef,
		Workspace:      ws.dir,
	}
	if ws.worktree != "" {
		r.logf("working in worktree %s on branch %s", ws.worktree, ws.branch)
	}

	runCtx := ctx
	if cfg.MaxTime > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithDeadlineCause(ctx, r.start.Add(cfg.MaxTime), errTimeUp)
		defer cancel()
	}
	r.run(ctx, runCtx)
	r.res.TotalDuration = r.deps.Now().Sub(r.start).Seconds()
	r.res.Success = r.res.StopReason == StopSuccess
	return r.res, nil
}

func (r *runner) run(ctx, runCtx context.Context) {
	for i := 1; ; i++ {
		if r.stopped(ctx, runCtx) {
			return
		}
		if i > r.cfg.MaxIterations {
			r.stop(StopMaxIterations, fmt.Sprintf("the limit of %d iterations was reached", r.cfg.MaxIterations))
			return
		}
		if r.cfg.MaxCost > 0 && r.res.TotalCost >= r.cfg.MaxCost {
			r.stop(StopBudget, fmt.Sprintf("spent $%.4f of the $%.4f budget", r.res.TotalCost, r.cfg.MaxCost))
			return
		}
		it, fatal := r.iteration(ctx, runCtx, i)
		r.res.add(it)
		if it.AllChecksPassed && it.CompletionTagFound {
			r.stop(StopSuccess, "")
			return
		}
		if fatal != "" {
			r.stop(StopAgentError, fatal)
			return
		}
	}
}

// stopped reports (and records) whether the loop was cancelled or ran out of time.
func (r *runner) stopped(ctx, runCtx context.Context) bool {
	switch {
	case ctx.Err() != nil:
		r.stop(StopCancelled, "interrupted")
	case runCtx.Err() != nil:
		r.stop(StopTimeout, fmt.Sprintf("max-time of %s reached", config.FormatDuration(r.cfg.MaxTime)))
	default:
		return false
	}
	return true
}

func (r *runner) stop(reason, detail string) {
	if r.res.StopReason == "" {
		r.res.StopReason, r.res.StopDetail = reason, detail
	}
}

// iteration runs iteration i. fatal is non-empty when the agent failed in a
// way that must stop the loop.
func (r *runner) iteration(ctx, runCtx context.Context, i int) (it Iteration, fatal string) {
	began := r.deps.Now()
	it = Iteration{Iteration: i, StartedAt: began.UTC().Format(time.RFC3339), CheckResults: []checks.Result{}}
	defer func() { it.Duration = r.deps.Now().Sub(began).Seconds() }()

	text, err := r.buildPrompt(runCtx, i)
	if err != nil {
		msg := err.Error()
		it.Error = &msg
		return it, msg
	}
	promptFile := r.ws.state("prompts", "iteration-"+strconv.Itoa(i)+".md")
	if err := os.WriteFile(promptFile, []byte(text), 0o600); err != nil {
		msg := "writing the prompt: " + err.Error()
		it.Error = &msg
		return it, msg
	}

	r.logf("iteration %d/%d: running the %s agent", i, r.cfg.MaxIterations, r.deps.Agent.Name())
	o := r.deps.Agent.Run(runCtx, agent.Request{
		Prompt:            text,
		PromptFile:        promptFile,
		ResultFile:        r.ws.state("agent-result.json"),
		Dir:               r.ws.dir,
		Iteration:         i,
		MaxIterations:     r.cfg.MaxIterations,
		Timeout:           r.cfg.IterationTimeout,
		InactivityTimeout: r.cfg.InactivityTimeout,
		Grace:             r.cfg.KillGrace,
	})
	it.AgentDuration = o.Duration.Seconds()
	it.StepsTaken = o.Steps
	it.ExitCode = o.ExitCode
	if o.CostKnown {
		c := o.Cost
		it.Cost = &c
	}
	if o.Usage != (agent.Usage{}) {
		it.Tokens = &Tokens{Input: o.Usage.Input, CachedInput: o.Usage.CachedInput, Output: o.Usage.Output}
	}
	r.execErr = o.Err
	if o.Err != "" {
		e := o.Err
		it.Error = &e
		it.ErrorKind = string(o.ErrKind)
	}
	r.logf("iteration %d/%d: agent finished in %s (exit %d, %d steps, cost %s)%s",
		i, r.cfg.MaxIterations, round(o.Duration), o.ExitCode, o.Steps, costText(it.Cost), errSuffix(o.Err))
	if o.ErrKind == agent.ErrFatal {
		msg := o.Err
		if o.Hint != "" {
			msg += " (hint: " + o.Hint + ")"
		}
		return it, msg
	}
	if runCtx.Err() != nil {
		return it, "" // cancelled or out of time: no checks, the caller stops
	}
	it.CompletionTagFound = prompt.HasCompletion(o.FinalMessage, r.cfg.CompletionTag)

	checksBegan := r.deps.Now()
	it.CheckResults = checks.Run(runCtx, r.cfg.Checks, checks.Options{
		Dir:     r.ws.dir,
		Timeout: r.cfg.CheckTimeout,
		Grace:   r.cfg.KillGrace,
	})
	it.ChecksDuration = r.deps.Now().Sub(checksBegan).Seconds()
	it.AllChecksPassed = runCtx.Err() == nil
	passing := 0
	for _, c := range it.CheckResults {
		if c.Passed {
			passing++
		} else {
			it.AllChecksPassed = false
		}
	}
	if len(r.cfg.Checks) > 0 {
		r.logf("iteration %d/%d: checks %d/%d passing%s", i, r.cfg.MaxIterations, passing, len(it.CheckResults), failedList(it.CheckResults))
	}
	r.logf("iteration %d/%d: completion tag %s", i, r.cfg.MaxIterations, map[bool]string{true: "found", false: "not found"}[it.CompletionTagFound])
	r.prevPrev, r.prev = r.prev, it.CheckResults

	if err := appendFile(r.ws.state(ProgressFile), progressEntry(it)); err != nil {
		r.warn("could not update the progress file: " + err.Error())
	}
	if r.ws.worktree != "" {
		msg := fmt.Sprintf("architect: iteration %d (%d/%d checks passing)", i, passing, len(it.CheckResults))
		hash, committed, err := r.ws.repo.CommitAll(ctx, msg, r.ws.excludes)
		switch {
		case err != nil:
			r.warn("could not commit iteration " + strconv.Itoa(i) + " on " + r.ws.branch + ": " + err.Error())
		case committed:
			it.Commit = hash
		}
	}
	return it, ""
}

func (r *runner) buildPrompt(ctx context.Context, i int) (string, error) {
	in := prompt.Input{
		Task:          r.cfg.Task,
		Iteration:     i,
		MaxIterations: r.cfg.MaxIterations,
		Checks:        r.cfg.Checks,
		CompletionTag: r.cfg.CompletionTag,
		ExecError:     r.execErr,
	}
	if r.cfg.Spec != "" {
		spec, err := os.ReadFile(r.cfg.Spec)
		if err != nil {
			return "", fmt.Errorf("cannot read the specification file %s: %v", r.cfg.Spec, err)
		}
		in.Task, in.FromSpec = string(spec), true
	}
	if r.ws.repo != nil {
		d, err := r.ws.repo.Diff(ctx, r.ws.initialRef, r.ws.excludes, prompt.DiffLimit)
		if err != nil {
			r.warn("could not compute the changes so far: " + err.Error())
		} else {
			in.Diff, in.DiffTruncated = d.Text, d.Truncated
		}
	}
	prevByName := map[string]checks.Result{}
	for _, c := range r.prevPrev {
		prevByName[c.Name] = c
	}
	for _, c := range r.prev {
		if c.Passed {
			continue
		}
		f := prompt.CheckFailure{Command: c.Name, Status: c.Status(), Output: c.Output}
		if p, ok := prevByName[c.Name]; ok && !p.Passed {
			out := p.Output
			f.PrevOutput = &out
		}
		in.Failed = append(in.Failed, f)
	}
	if b, err := os.ReadFile(r.ws.state(ProgressFile)); err == nil {
		in.Progress = string(b)
	}
	return prompt.Build(in), nil
}

func (r *runner) logf(format string, args ...any) {
	fmt.Fprintf(r.deps.Log, "architect: "+format+"\n", args...)
}

func (r *runner) warn(msg string) { fmt.Fprintf(r.deps.Log, "architect: warning: %s\n", msg) }

func round(d time.Duration) time.Duration {
	if d < 10*time.Second {
		return d.Round(10 * time.Millisecond)
	}
	return d.Round(time.Second)
}

func costText(c *float64) string {
	if c == nil {
		return "unknown"
	}
	return fmt.Sprintf("$%.4f", *c)
}

func errSuffix(e string) string {
	if e == "" {
		return ""
	}
	return ": " + firstLine(e)
}

func failedList(rs []checks.Result) string {
	s := ""
	for _, c := range rs {
		if !c.Passed {
			s += fmt.Sprintf("; failed: %s (%s)", c.Name, c.Status())
		}
	}
	return s
}

// ResultPath is where the last result is saved, relative to the workspace.
var ResultPath = filepath.Join(StateDir, "result.json")
