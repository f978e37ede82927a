// Package loop runs the Ralph loop: each iteration builds a fresh prompt
// (task, accumulated diff, failing checks, progress), starts a brand-new
// agent process, runs the checks concurrently, records the iteration, and
// stops on success (every check passed and the agent declared completion)
// or on a limit or safety net: iterations, cost, time, cancellation, agent
// errors, the circuit breaker, idleness.
//
// Every completed iteration is appended to .architect/iterations.jsonl
// before anything else is updated; the progress file, the counters and the
// result are derived from those records, and state.json is written
// atomically at each phase change. A run killed at any instant can
// therefore be resumed (Resume) without losing or repeating an iteration.
package loop

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"time"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/checks"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/gitwt"
	"github.com/architect-dev/architect/proc"
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
	// Sleep waits for d, returning early with ctx's error when ctx ends. The
	// loop also uses it to poll for pause/resume requests. nil means a real
	// timer; tests pass a fake clock.
	Sleep func(ctx context.Context, d time.Duration) error
	// Jitter returns a random duration in [0, max); nil means math/rand.
	Jitter func(max time.Duration) time.Duration
	// Events, when set, receives every event as it is written to
	// .architect/events.jsonl (live display, --events -, hooks).
	Events func(Event)
	// Redact, when set, removes secrets from text before architect writes
	// it anywhere (prompts, progress, events, logs, results).
	Redact func(string) string
}

type runner struct {
	cfg     config.Config
	deps    Deps
	ws      *workspace
	res     *Result
	st      *State
	records []record
	start   time.Time // this session's start

	prev, prevPrev []checks.Result // the last two iterations' check results
	execErr        string          // the previous agent run's error
	usageWaits     int             // usage-limit waits in a row without a reset time
	nextDiff       *gitwt.Diff     // the snapshot taken after the last iteration, for the next prompt
	ev             *emitter        // the event stream
	resumed        bool
	protectNote    string // why the last iteration failed, when it changed protected files
}

// Run starts a new run of the loop. The error is for problems that prevent
// a run at all (a *UsageError for the user's input); how the loop ended is
// in Result.
func Run(ctx context.Context, cfg config.Config, deps Deps) (*Result, error) {
	r := newRunner(cfg, deps)
	ws, err := setupWorkspace(ctx, cfg, r.warn)
	if err != nil {
		return nil, err
	}
	release, err := r.attach(ws)
	if err != nil {
		return nil, err
	}
	defer release()
	if err := ws.prepareStateDir(r.start, cfg.DoneFile == ""); err != nil {
		return nil, fmt.Errorf("preparing %s: %w", ws.state(), err)
	}
	_ = os.Remove(ws.state(ControlFile))
	mode := cfg.Mode
	if mode == "" {
		mode = config.ModeBuild
	}
	r.st = &State{
		Mode:          mode,
		StartedAt:     stamp(r.start),
		MaxIterations: cfg.MaxIterations,
		InitialRef:    ws.initialRef,
		Workspace:     ws.dir,
		WorktreePath:  ws.worktree,
		Branch:        ws.branch,
		Config:        cfg,
	}
	if ws.repo != nil {
		if d, err := ws.diff(ctx); err == nil {
			r.st.InitialTree = d.Tree
		}
	}
	if ws.worktree != "" {
		r.logf("working in worktree %s on branch %s", ws.worktree, ws.branch)
	}
	return r.session(ctx)
}

// Resume continues the run whose state is in workspace: a stopped, crashed
// or waiting run goes on with the same configuration (adjusted by
// override, for the flags the user gave), iteration count, cost and
// progress file.
func Resume(ctx context.Context, workspace string, override func(*config.Config), deps Deps) (*Result, error) {
	st, err := ReadState(workspace)
	if errors.Is(err, os.ErrNotExist) {
		return nil, &UsageError{Msg: "no run to resume in " + workspace, Hint: "start one with `architect loop`, or pass the workspace with -C DIR"}
	}
	if err != nil {
		return nil, err
	}
	if !st.Resumable() {
		return nil, &UsageError{Msg: "the run in " + workspace + " already succeeded; there is nothing to resume", Hint: "start a new run with `architect loop`"}
	}
	cfg := st.Config
	if override != nil {
		override(&cfg)
	}
	r := newRunner(cfg, deps)
	ws, err := reopenWorkspace(ctx, st)
	if err != nil {
		return nil, err
	}
	release, err := r.attach(ws)
	if err != nil {
		return nil, err
	}
	defer release()
	if r.records, err = readRecords(ws.state(RecordsFile)); err != nil {
		return nil, err
	}
	for _, f := range []string{WaitFile, ControlFile} {
		if os.Remove(ws.state(f)) == nil && f == WaitFile {
			r.logf("removed %s: the wait is over", ws.state(WaitFile))
		}
	}
	st.MaxIterations = cfg.MaxIterations
	st.Config = cfg
	st.StopReason, st.StopDetail, st.WaitUntil = "", "", ""
	r.st = st
	r.resumed = true
	r.restore()
	r.logf("resuming after iteration %d of %d (%d recorded)", len(r.records), cfg.MaxIterations, len(r.records))
	return r.session(ctx)
}

func newRunner(cfg config.Config, deps Deps) *runner {
	if deps.Log == nil {
		deps.Log = io.Discard
	}
	if deps.Now == nil {
		deps.Now = time.Now
	}
	if deps.Sleep == nil {
		deps.Sleep = sleepCtx
	}
	if deps.Redact == nil {
		deps.Redact = func(s string) string { return s }
	} else {
		deps.Log = redactWriter{deps.Log, deps.Redact}
	}
	if deps.Jitter == nil {
		deps.Jitter = func(max time.Duration) time.Duration {
			if max <= 0 {
				return 0
			}
			return rand.N(max)
		}
	}
	return &runner{cfg: cfg, deps: deps, start: deps.Now()}
}

// restore rebuilds the in-memory view of a resumed run from its records.
func (r *runner) restore() {
	n := len(r.records)
	if n > 0 {
		last := r.records[n-1]
		r.prev = last.CheckResults
		if last.Error != nil {
			r.execErr = *last.Error
		}
		r.protectNote = protectNote(last.Iteration.Iteration, last.ProtectedRestored)
	}
	if n > 1 {
		r.prevPrev = r.records[n-2].CheckResults
	}
	// The progress file is derived from the records: rewrite it, in case
	// the run was killed between recording an iteration and updating it.
	if err := r.writeProgress(); err != nil {
		r.warn("could not rewrite the progress file: " + err.Error())
	}
}

// attach makes ws the run's workspace, held under its lock (so that one
// run at a time works there) and watched unless the configuration says
// not to. release undoes both.
func (r *runner) attach(ws *workspace) (release func(), err error) {
	lock, err := lockWorkspace(ws.state())
	if err != nil {
		return nil, err
	}
	r.endLeftovers(ws)
	r.ws = ws
	ws.watch = !r.cfg.NoWatch
	return func() {
		ws.close()
		_ = lock.Unlock()
	}, nil
}

// session runs iterations until the loop stops, then finalises the state;
// the workspace is attached.
func (r *runner) session(ctx context.Context) (*Result, error) {
	r.res = &Result{
		Iterations:   []Iteration{},
		WorktreePath: r.ws.worktree,
		Branch:       r.ws.branch,
		InitialRef:   r.ws.initialRef,
		Workspace:    r.ws.dir,
	}
	for _, rec := range r.records {
		r.res.add(rec.Iteration)
	}
	r.res.TotalCostKnown = r.res.TotalCostKnown || len(r.records) == 0
	r.st.Active, r.st.Status, r.st.PID = true, StatusRunning, os.Getpid()
	r.st.Processes = ptr(proc.Self())
	r.recount()
	r.save("starting")
	r.ev = newEmitter(r.ws.state(EventsFile), r.deps.Events, r.deps.Now, r.deps.Redact, r.warn)
	defer r.ev.close()
	r.ev.emit(Event{Type: EventLoopStarted, Iteration: len(r.records), MaxIterations: r.cfg.MaxIterations,
		Agent: r.deps.Agent.Name(), Checks: r.cfg.Checks, Workspace: r.ws.dir, Branch: r.ws.branch, Resumed: r.resumed})

	runCtx := ctx
	if r.cfg.MaxTime > 0 {
		left := r.cfg.MaxTime - time.Duration(r.st.Elapsed*float64(time.Second))
		var cancel context.CancelFunc
		runCtx, cancel = context.WithDeadlineCause(ctx, r.start.Add(left), errTimeUp)
		defer cancel()
	}
	r.run(ctx, runCtx)

	r.res.TotalDuration = r.st.Elapsed + r.deps.Now().Sub(r.start).Seconds()
	r.res.Success = r.res.StopReason == StopSuccess
	// The result before the state: once the state says the run ended
	// (succeeded: not resumable), its result must be there.
	if err := writeJSONAtomic(r.ws.state(resultFileName), r.res); err != nil {
		r.warn("could not save the result: " + err.Error())
	}
	r.recount() // an iteration cut short is not counted
	r.st.Active = false
	r.st.Status = finalStatus(r.res.StopReason)
	r.st.StopReason, r.st.StopDetail = r.res.StopReason, r.res.StopDetail
	r.save("finished")
	r.logEvent("DONE", "loop finished: %s after %d iterations", r.res.StopReason, r.res.TotalIterations)
	r.ev.emit(Event{Type: EventLoopFinished, Iteration: r.res.TotalIterations, Success: ptr(r.res.Success),
		StopReason: r.res.StopReason, StopDetail: r.res.StopDetail, TotalIterations: ptr(r.res.TotalIterations),
		TotalCost: ptr(r.res.TotalCost), Duration: ptr(r.res.TotalDuration)})
	return r.res, nil
}

func finalStatus(reason string) string {
	switch reason {
	case StopSuccess:
		return StatusSucceeded
	case StopCancelled:
		return StatusStopped
	case StopWaiting:
		return StatusWaiting
	}
	return StatusFailed
}

// run is the loop proper.
func (r *runner) run(ctx, runCtx context.Context) {
	if n := len(r.records); n > 0 && r.records[n-1].CompletionSignal != "" {
		// A resumed run that was killed after recording its successful
		// last iteration, before saving that it had succeeded.
		r.stop(StopSuccess, "")
		return
	}
	for {
		i := len(r.records) + 1
		if r.stopped(ctx, runCtx) || r.pauseIfAsked(ctx, runCtx) {
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
		if r.doneBeforeIteration(runCtx) {
			return
		}
		rec, o, stop := r.iteration(ctx, runCtx, i)
		if stop {
			return
		}
		if o.ErrKind == agent.ErrUsageLimit {
			if !r.waitUsageLimit(runCtx, o) {
				return
			}
			continue // the same iteration again: a usage limit is not an iteration
		}
		r.usageWaits = 0
		if rec.AllChecksPassed && len(rec.ProtectedRestored) == 0 {
			// Recorded with the iteration (decide reaches the same verdict),
			// so that a run killed before it saves the verdict resumes as the
			// success it was.
			if signal, err := r.completionSignal(o.FinalMessage, rec.CompletionTagFound); err == nil {
				rec.CompletionSignal = signal
			}
		}
		if !r.commitIteration(ctx, rec) {
			return
		}
		if r.decide(runCtx, rec, o) {
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
		r.res.StopReason, r.res.StopDetail = reason, r.deps.Redact(detail)
	}
}

// save writes state.json for phase; failures are reported, not fatal.
//
// Every save is atomic (a whole file renamed into place), so a run killed
// at any instant leaves a complete state.json. Only the start and the end
// of a run are also synced to disk: the phases in between are informative,
// and what a resume relies on, the iteration records, is synced as each
// iteration is recorded. This keeps ~5 ms of fsync per phase off every
// iteration.
func (r *runner) save(phase string) {
	r.st.Phase = phase
	r.st.PID = os.Getpid()
	write := writeJSONQuick
	if phase == "starting" || phase == "finished" {
		write = writeJSONAtomic
	}
	if err := write(r.ws.state(StateFile), r.sessionState()); err != nil {
		r.warn("could not save the state: " + err.Error())
	}
}

// sessionState is the state with this session's elapsed time added.
func (r *runner) sessionState() State {
	s := *r.st
	s.Elapsed += r.deps.Now().Sub(r.start).Seconds()
	return s
}

// recount derives the counters in the state from the records.
func (r *runner) recount() {
	s := r.st
	s.ErrorCount, s.ConsecutiveErrors, s.Timeouts, s.LastError = 0, 0, 0, ""
	s.TotalCost, s.TotalCostKnown = r.res.TotalCost, r.res.TotalCostKnown
	for _, rec := range r.records {
		if rec.Failed {
			s.ErrorCount++
			s.ConsecutiveErrors++
		} else {
			s.ConsecutiveErrors = 0
		}
		if rec.Error != nil {
			s.LastError = *rec.Error
		}
		if rec.Timeouts() {
			s.Timeouts++
		}
		if rec.Commit != "" {
			s.LastCommit = rec.Commit
		}
	}
	s.IdleIterations = idleRun(r.records)
	s.Iteration = len(r.records)
	if n := len(r.records); n > 0 {
		s.LastIterationAt = r.records[n-1].StartedAt
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (r *runner) logf(format string, args ...any) {
	fmt.Fprintf(r.deps.Log, "architect: "+format+"\n", args...)
}

func (r *runner) warn(msg string) { fmt.Fprintf(r.deps.Log, "architect: warning: %s\n", msg) }
