package batch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/gitwt"
	"github.com/architect-dev/architect/hooks"
	"github.com/architect-dev/architect/loop"
	"github.com/architect-dev/architect/report"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/usererr"
	"github.com/sourcegraph/conc/pool"
)

// Outcomes of a task.
const (
	Succeeded  = "succeeded"
	Failed     = "failed"      // the loop ended without success
	Cancelled  = "cancelled"   // interrupted
	Skipped    = "skipped"     // --resume: it had already succeeded
	NotStarted = "not_started" // the batch was interrupted before its turn
	Errored    = "error"       // the loop could not run at all
)

// Options say how to run a batch.
type Options struct {
	Dir      string // the repository (or a folder in it): -C
	Parallel int    // tasks at a time; < 1 means 1
	// checkSlots bounds the checks running at once, every task's and
	// every candidate's, to Parallel.
	checkSlots chan struct{}
	Resume     bool                   // continue tasks from their saved state
	Agents     map[string]agent.Agent // each task's agent, by id
	// Redact, by task id, removes secrets from what the task's loop
	// writes (loop.Deps.Redact); a missing entry redacts nothing.
	Redact map[string]func(string) string
	// NewAgent, by task id, builds the task's fallback and candidate
	// agents (loop.Deps.NewAgent); a missing entry means agent.New.
	NewAgent map[string]func(agent.Config) (agent.Agent, error)
	// Env, by task id, is the environment of the task's agents, checks and
	// hooks (loop.Deps.Env); a missing entry means architect's own.
	Env map[string][]string
	// Log receives plain progress lines, each prefixed with the task id;
	// nil discards them.
	Log io.Writer
	// Events, when set, receives every task's loop events (live display).
	// It is called from several goroutines.
	Events func(id string, ev runlog.Event)
	// Group, when set, holds each task's log lines (at most maxHeld bytes
	// of them, the cut said) until the task ends, then writes them at once
	// between the two lines it returns for the task's result: a GitHub
	// Actions ::group:: per task, whose lines do not mix with the others'.
	Group func(TaskResult) (begin, end string)
	// Publish, when set, is asked about each task once its loop has ended
	// (a skipped task's too), before Finished: it pushes the task's branch
	// and opens or updates its pull request when the task asks for one,
	// and sets the result's PullRequest fields. Its lines go to log, the
	// task's. It is called from several goroutines.
	Publish func(ctx context.Context, t Task, r *TaskResult, log io.Writer)
	// Finished, when set, gets each task's result as soon as it is known
	// (a skipped task's at once). It is called from several goroutines.
	Finished func(TaskResult)
}

// TaskResult is how one task ended.
type TaskResult struct {
	ID           string         `json:"id"`
	Outcome      string         `json:"outcome"`
	Success      bool           `json:"success"` // succeeded now or, for skipped, earlier
	StopReason   string         `json:"stop_reason,omitempty"`
	Iterations   int            `json:"iterations"`
	Cost         *float64       `json:"cost"` // null when some iteration's cost is unknown
	CostKnown    bool           `json:"cost_known"`
	KnownCost    float64        `json:"known_cost"` // what is known of it
	Duration     float64        `json:"duration"`
	Branch       string         `json:"branch"`
	WorktreePath string         `json:"worktree_path"`
	Error        string         `json:"error,omitempty"`
	Result       *runlog.Result `json:"result,omitempty"`
	// The task's pull request (pull_request:), when one was opened or
	// updated; PullRequestError says why none could be.
	PullRequest      int    `json:"pull_request,omitempty"`
	PullRequestURL   string `json:"pull_request_url,omitempty"`
	PullRequestError string `json:"pull_request_error,omitempty"`
}

// Workspace returns where task id's loop runs, for the repository holding
// dir: the worktree .architect-worktrees/ID (and the same sub-folder as
// dir within it).
func Workspace(ctx context.Context, dir, id string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	repo, err := gitwt.Open(ctx, abs)
	if errors.Is(err, gitwt.ErrNotRepo) {
		name := abs
		if dir != "." {
			name = dir // as given with -C
		}
		return "", &usererr.Error{Msg: name + " is not in a git repository, and every batch task runs in a worktree", Hint: "run `git init` and make a first commit, or pass the repository with -C DIR"}
	}
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(repo.Dir(), abs)
	if err != nil || strings.HasPrefix(rel, "..") {
		rel = "."
	}
	wt, _ := loop.WorktreeFor(id)
	return filepath.Join(repo.Dir(), wt, rel), nil
}

// Preflight refuses, before anything runs, a new batch (not --resume)
// whose worktrees or branches are already there.
func Preflight(ctx context.Context, dir string, tasks []Task) error {
	repo, err := gitwt.Open(ctx, dir)
	if err != nil {
		_, werr := Workspace(ctx, dir, "x")
		if werr != nil {
			return werr
		}
		return err
	}
	var taken []string
	for _, t := range tasks {
		wt, branch := loop.WorktreeFor(t.ID)
		_, statErr := os.Lstat(filepath.Join(repo.Dir(), wt))
		has, _ := repo.BranchExists(ctx, branch)
		if statErr == nil || has {
			taken = append(taken, t.ID)
		}
	}
	if len(taken) == 0 {
		return nil
	}
	return &usererr.Error{
		Msg:  fmt.Sprintf("the worktree or branch of task %s already exists (from an earlier run?)", strings.Join(taken, ", ")),
		Hint: "continue the batch with --resume, or remove them with `architect clean ID` (merge or inspect them first)",
	}
}

// Run runs tasks, opts.Parallel at a time, and returns their results in
// the order of tasks. A task that fails does not stop the others; when ctx
// ends, the running loops stop gracefully and the tasks not started yet
// are not started.
func Run(ctx context.Context, tasks []Task, opts Options) []TaskResult {
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	out := make([]TaskResult, len(tasks))
	var logMu sync.Mutex // one line at a time from every task
	// Worktrees are created concurrently, as many at a time as loops run:
	// git creates each one's folder, admin folder and branch apart from
	// the others', and gitwt.Repo.Exclude, the one file they share, takes
	// a lock. Each loop then runs in its own worktree under its own lock.
	p := pool.New().WithMaxGoroutines(max(opts.Parallel, 1))
	// The tasks' checks, their candidates' included, share --parallel.
	if opts.checkSlots == nil {
		opts.checkSlots = make(chan struct{}, max(opts.Parallel, 1))
	}
	for i, t := range tasks {
		p.Go(func() {
			logw := &prefixWriter{mu: &logMu, w: opts.Log, prefix: "architect: [" + t.ID + "] ", hold: opts.Group != nil}
			if logw.hold && ctx.Err() == nil {
				logMu.Lock()
				fmt.Fprintf(opts.Log, "%sstarted; its lines follow, in a group, when it ends\n", logw.prefix)
				logMu.Unlock()
			}
			out[i] = runTask(ctx, t, opts, logw)
			if opts.Publish != nil {
				opts.Publish(ctx, t, &out[i], logw)
			}
			if opts.Finished != nil {
				opts.Finished(out[i])
			}
			if out[i].Outcome == Errored {
				usererr.Say(logw, usererr.LevelError, "%s", out[i].Error)
			} else {
				fmt.Fprintf(logw, "architect: %s\n", describe(out[i]))
			}
			logw.flush()
			if opts.Group != nil {
				begin, end := opts.Group(out[i])
				logw.release(begin, end)
			}
		})
	}
	p.Wait()
	return out
}

func runTask(ctx context.Context, t Task, opts Options, logw io.Writer) TaskResult {
	_, branch := loop.WorktreeFor(t.ID)
	r := TaskResult{ID: t.ID, Branch: branch}
	if ctx.Err() != nil {
		r.Outcome = NotStarted
		return r
	}
	ws, err := Workspace(ctx, opts.Dir, t.ID)
	if err != nil {
		return errored(r, err)
	}
	r.WorktreePath = ws
	ag := opts.Agents[t.ID]
	if ag == nil {
		return errored(r, fmt.Errorf("no agent for task %s", t.ID))
	}
	// The task's own hooks, notification and push, as `architect loop` has.
	hc := hooks.Config{OnIteration: t.Config.OnIteration, OnFinish: t.Config.OnFinish, Shell: t.Config.CheckShell, Notify: t.Config.Notify, Push: t.Config.Push, Log: logw, Bell: logw, Env: opts.Env[t.ID]}
	var hook func(runlog.Event)
	var confine func(hooks.Wrapper, func(string) []string)
	if hc.Active() {
		h := hooks.New(ctx, hc)
		hook, confine = h.Observe, h.Confine // confined by the task's sandbox, as its checks
	}
	deps := loop.Deps{Agent: ag, Log: logw, Redact: opts.Redact[t.ID], Events: func(ev runlog.Event) {
		if opts.Events != nil {
			opts.Events(t.ID, ev)
		}
		if ev.Type == runlog.EventLoopFinished {
			// The task's report, before its on_finish hook (which gets its path).
			if _, err := report.WriteRun(ws, time.Now()); err != nil {
				usererr.Say(logw, usererr.LevelWarning, "could not write the report: %v", err)
			}
		}
		if hook != nil {
			hook(ev)
		}
	}, Confine: confine, CheckSlots: opts.checkSlots, NewAgent: opts.NewAgent[t.ID], Env: opts.Env[t.ID]}
	cfg := t.Config
	cfg.Dir = opts.Dir
	var res *runlog.Result
	st, stErr := runlog.ReadState(ws)
	switch {
	case opts.Resume && stErr == nil && !st.Resumable():
		if prev, err := runlog.ReadResult(ws); err == nil {
			fill(&r, prev)
		}
		r.Outcome, r.Success = Skipped, true
		return r
	case opts.Resume && stErr == nil:
		fmt.Fprintf(logw, "architect: resuming from its saved state\n")
		res, err = loop.Resume(ctx, ws, func(c *config.Config) { *c = cfg }, deps)
	default:
		res, err = loop.Run(ctx, cfg, deps)
	}
	if err != nil {
		return errored(r, err)
	}
	fill(&r, res)
	return r
}

func fill(r *TaskResult, res *runlog.Result) {
	r.Result = res
	r.Success = res.Success
	r.StopReason = res.StopReason
	r.Iterations = res.TotalIterations
	r.Cost, r.CostKnown, r.KnownCost = res.TotalCost, res.TotalCostKnown, res.KnownCost
	r.Duration = res.TotalDuration
	if res.Branch != "" {
		r.Branch = res.Branch
	}
	if res.Workspace != "" {
		r.WorktreePath = res.Workspace
	}
	switch {
	case res.Success:
		r.Outcome = Succeeded
	case res.StopReason == runlog.StopCancelled:
		r.Outcome = Cancelled
	default:
		r.Outcome = Failed
	}
}

func errored(r TaskResult, err error) TaskResult {
	r.Outcome = Errored
	r.Error = err.Error()
	var ue *usererr.Error
	if errors.As(err, &ue) && ue.Hint != "" {
		r.Error += " (" + ue.Hint + ")"
	}
	return r
}

// describe is the one-line account of a task's end that did not end in
// an error (that one is an error line).
func describe(r TaskResult) string {
	switch r.Outcome {
	case Succeeded:
		return fmt.Sprintf("succeeded after %d iteration%s; the work is on branch %s", r.Iterations, plural(r.Iterations), r.Branch)
	case Skipped:
		return "already succeeded: not run again"
	case NotStarted:
		return "not started: the batch was interrupted"
	}
	if r.StopReason == runlog.StopSetup && r.Result != nil {
		// The worktree was not made ready: no agent started, nothing spent.
		return "failed: setup_error: " + r.Result.StopDetail
	}
	return fmt.Sprintf("%s: stopped on %s after %d iteration%s", r.Outcome, r.StopReason, r.Iterations, plural(r.Iterations))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// prefixWriter inserts prefix after the "architect: " of each line (or
// before lines without it), writing whole lines under a shared mutex so
// that tasks' lines never mix.
type prefixWriter struct {
	mu     *sync.Mutex
	w      io.Writer
	prefix string
	buf    []byte
	// hold keeps the lines in held (the first maxHeld bytes, then a count
	// of the rest) until release.
	hold    bool
	held    []byte
	dropped int
}

// maxHeld bounds the lines held of one task.
const maxHeld = 1 << 20

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.buf = append(p.buf, b...)
	for {
		i := strings.IndexByte(string(p.buf), '\n')
		if i < 0 {
			return len(b), nil
		}
		p.line(string(p.buf[:i]))
		p.buf = p.buf[i+1:]
	}
}

func (p *prefixWriter) line(s string) {
	l := p.prefix + strings.TrimPrefix(s, "architect: ") + "\n"
	switch {
	case !p.hold:
		_, _ = io.WriteString(p.w, l)
	case len(p.held)+len(l) <= maxHeld:
		p.held = append(p.held, l...)
	default:
		p.dropped++
	}
}

// release writes the held lines between begin and end, and stops holding.
func (p *prefixWriter) release(begin, end string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintln(p.w, begin)
	_, _ = p.w.Write(p.held)
	if p.dropped > 0 {
		fmt.Fprintf(p.w, "%s%d more lines not shown (past %d bytes): the task's records have them\n", p.prefix, p.dropped, maxHeld)
	}
	fmt.Fprintln(p.w, end)
	p.held, p.dropped, p.hold = nil, 0, false
}

func (p *prefixWriter) flush() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.buf) > 0 {
		p.line(string(p.buf))
		p.buf = nil
	}
}
