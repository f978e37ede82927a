// Package loop runs the Ralph loop: each iteration builds a fresh prompt
// (task, accumulated diff, failing checks, progress), starts a brand-new
// agent process, runs the checks concurrently, records the iteration, and
// stops on success (every check passed and the agent declared completion)
// or on a limit or safety net: iterations, cost, time, cancellation, agent
// errors, the circuit breaker, idleness.
//
// Every iteration that started is appended to .architect/iterations.jsonl,
// once, before anything else is updated: one that a signal, --max-time or
// --max-cost interrupted too, and one that a killed run was in the middle
// of, by the next Resume (current.json keeps what its agent spent). The
// progress file, the counters and the result are derived from those
// records, and state.json is written atomically between iterations and at
// every other change of phase (the iteration running is in current.json).
// A run killed at any instant can therefore be resumed without losing or
// repeating an iteration, or any of its cost. The files and their formats
// are the runlog package's; the loop keeps only the runner.
//
// The waits after failed agent runs and at usage limits (wait.go) are not
// github.com/cenkalti/backoff's: each is one line of arithmetic on a count
// the run's state keeps (failures in a row, guesses at a reset time), so a
// resumed run waits as the killed one would have; the wait itself gives
// way to pause, stop and notes, never passes --max-time, and is announced
// with its end time. backoff keeps its count inside a stateful BackOff
// value, adds jitter unless told not to, and its Retry neither gives way
// nor tells when it will end: what would be left of it here is the one
// line.
package loop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"time"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/gitwt"
	"github.com/architect-dev/architect/proc"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/sandbox"
	"github.com/architect-dev/architect/usererr"
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
	// Jitter returns a random duration in [0, upTo); nil means math/rand.
	Jitter func(upTo time.Duration) time.Duration
	// Events, when set, receives every event as it is written to
	// .architect/events.jsonl (live display, --events -, hooks).
	Events func(runlog.Event)
	// Redact, when set, removes secrets from text before architect writes
	// it anywhere (prompts, progress, events, logs, results).
	Redact func(string) string
	// NewAgent builds the fallback agents (config.Config.FallbackAgents);
	// nil means agent.New. Agent is the run's own.
	NewAgent func(agent.Config) (agent.Agent, error)
}

// runner is one session of a run. What an iteration produces flows
// through its steps as a value (iteration.go); what stays here is what
// spans iterations.
type runner struct {
	// What the run is, set up once.
	cfg     config.Config
	shown   config.Config // cfg with its secrets masked: what architect writes of it
	masked  []string      // the keys of shown that lost a secret
	deps    Deps
	ws      *workspace
	start   time.Time // this session's start
	resumed bool
	ev      *emitter // the event stream

	// What the run has done: the records, and what derives from them.
	res      *runlog.Result
	st       *runlog.State
	records  []record
	recs     *runlog.RecordLog // iterations.jsonl, open for the session
	unsynced runlog.Record     // the last record, while its fsync runs (see synced)
	// progressSize is the size the loop left the progress file at (see
	// progressAdd); ilog is iterations.log, open for the session.
	progressSize int64
	ilog         *os.File

	// The agents (fallback.go) and the person's notes (notes.go).
	slots     []*slot       // the run's agent, then its fallbacks
	cur       int           // the slot the next iteration runs on
	lastLimit agent.Outcome // the last usage limit met, for the wait's messages
	notes     notes

	// What the iterations so far leave to the next one's prompt.
	last carried

	transcriptWarned bool

	// judge guards the files that define the checks (judge.go); nil when
	// nothing is guarded.
	judge *judgeGuard
	// sb confines the agent and the checks (sandbox.go).
	sb *sandbox.Sandbox
	// tests are the run's tests at its start, and what is done when one
	// is removed (tests.go).
	tests runlog.Tests
	// doneLook is the last look that let the run succeed when the DONE
	// file was found before an iteration (no iteration holds it).
	doneLook *runlog.FinalCheck
}

// carried is what the iterations so far leave to the next one: its prompt
// shows the failures, the error and the notes of the last ones, and its
// own diff is told from the changes they left.
type carried struct {
	prev, prevPrev []runlog.CheckResult // the last two iterations' check results
	execErr        string               // the last agent run's error
	protectNote    string               // why the last iteration failed, when it changed protected files
	judgeNote      string               // why the last iteration failed, when it changed how a check is judged
	interruptNote  string               // that the last iteration was interrupted before its checks
	finalNote      string               // why the last iteration's success did not stand (its last look failed)
	diff           *gitwt.Diff          // the snapshot taken after the last iteration, for the next prompt
	// The changes so far after the last iteration (to tell an uncommitted
	// iteration's own).
	patch      string
	patchKnown bool
}

// Run starts a new run of the loop. The error is for problems that prevent
// a run at all (a *usererr.Error for the user's input); how the loop ended is
// in Result.
//
// --max-time counts from here: setting up the workspace (the worktree)
// runs under the run's deadline too.
func Run(ctx context.Context, cfg config.Config, deps Deps) (*runlog.Result, error) {
	r := newRunner(cfg, deps)
	var err error
	if r.slots, err = newSlots(cfg, r.deps); err != nil {
		return nil, err
	}
	// A check shell that cannot be used (not installed, no pipefail) is
	// refused before anything starts.
	if _, err := proc.ResolveShell(ctx, cfg.CheckShell); err != nil {
		var ue *usererr.Error
		if errors.As(err, &ue) {
			return nil, &usererr.Error{Msg: "--check-shell: " + ue.Msg, Hint: ue.Hint}
		}
		return nil, fmt.Errorf("--check-shell: %w", err)
	}
	if err := refuseSandbox(cfg); err != nil {
		return nil, err
	}
	runCtx, cancel := r.deadline(ctx, 0)
	defer cancel()
	ws, err := setupWorkspace(runCtx, cfg, r.warn)
	if err != nil {
		if runCtx.Err() != nil && ctx.Err() == nil {
			return nil, &usererr.Error{Msg: "max-time of " + config.FormatDuration(cfg.MaxTime) + " reached while setting up the workspace: " + err.Error(), Hint: "give --max-time more time"}
		}
		return nil, err
	}
	release, err := r.attach(ws)
	if err != nil {
		return nil, err
	}
	defer release()
	if err := r.refuseInterrupted(); err != nil {
		return nil, err
	}
	doneAtStart, err := r.existingDoneFile()
	if err != nil {
		return nil, err
	}
	archived, err := runlog.Archive(ws.state(), cfg.DoneFile == "")
	if err != nil {
		return nil, fmt.Errorf("preparing %s: %w", ws.state(), err)
	}
	r.reportArchived(archived)
	r.startJudge(false)
	_ = os.Remove(ws.state(runlog.ControlFile))
	r.notes.delivered = map[string]bool{}
	mode := cfg.Mode
	if mode == "" {
		mode = config.ModeBuild
	}
	r.st = &runlog.State{
		Mode:          mode,
		StartedAt:     stamp(r.start),
		MaxIterations: cfg.MaxIterations,
		InitialRef:    ws.initialRef,
		Workspace:     ws.dir,
		WorktreePath:  ws.worktree,
		Branch:        ws.branch,
		Config:        r.shownJSON(),
		Redacted:      r.masked,

		DoneFileAtStart: doneAtStart,
		EnvAtStart:      envAtStart(runCtx, cfg, ws),
	}
	if ws.repo != nil {
		if d, err := ws.diff(runCtx); err == nil {
			r.st.InitialTree = d.Tree
		}
	}
	r.startTests()
	if ws.worktree != "" {
		r.logf("working in worktree %s on branch %s", ws.worktree, ws.branch)
	}
	return r.session(ctx, runCtx)
}

// deadline is the run's context with --max-time applied: what is left of
// it after the earlier sessions' elapsed seconds.
func (r *runner) deadline(ctx context.Context, elapsed float64) (context.Context, context.CancelFunc) {
	if r.cfg.MaxTime <= 0 {
		return ctx, func() {}
	}
	left := r.cfg.MaxTime - time.Duration(elapsed*float64(time.Second))
	return context.WithDeadlineCause(ctx, r.start.Add(left), errTimeUp)
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
	shown, masked := redactConfig(cfg, deps.Redact)
	if deps.Jitter == nil {
		deps.Jitter = func(upTo time.Duration) time.Duration {
			if upTo <= 0 {
				return 0
			}
			return rand.N(upTo)
		}
	}
	return &runner{cfg: cfg, shown: shown, masked: masked, deps: deps, start: deps.Now()}
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
		if r.ilog != nil {
			_ = r.ilog.Close()
		}
		ws.close()
		_ = lock.Unlock()
	}, nil
}

// session runs iterations until the loop stops, then finalises the state;
// the workspace is attached. runCtx is ctx with the run's deadline.
func (r *runner) session(ctx, runCtx context.Context) (*runlog.Result, error) {
	r.res = &runlog.Result{
		Iterations:   []runlog.Iteration{},
		WorktreePath: r.ws.worktree,
		Branch:       r.ws.branch,
		InitialRef:   r.ws.initialRef,
		Workspace:    r.ws.dir,
		NoChecks:     len(r.cfg.Checks) == 0,
	}
	for _, rec := range r.records {
		r.res.Iterations = append(r.res.Iterations, rec.Iteration)
	}
	r.res.Recost()
	if err := r.startSandbox(); err != nil {
		return nil, err
	}
	defer r.sb.Close()
	r.st.Active, r.st.Status, r.st.PID = true, runlog.StatusRunning, os.Getpid()
	r.st.Processes, _ = json.Marshal(proc.Self())
	r.recount()
	r.save(runlog.PhaseStarting)
	r.ev = newEmitter(r.ws.state(runlog.EventsFile), r.deps.Events, r.deps.Now, r.warn)
	defer r.ev.close()
	r.saveSlots()
	r.ev.emit(r.startedEvent())

	if recs, err := runlog.OpenRecordLog(r.ws.state(runlog.RecordsFile)); err != nil {
		r.stop(runlog.StopError, "could not open the iteration records: "+err.Error())
	} else {
		r.recs = recs
		r.run(ctx, runCtx)
		r.synced() // the last record on disk before the run says it ended
		if err := recs.Close(); err != nil {
			r.warn("closing the iteration records: " + err.Error())
		}
	}

	r.res.TotalDuration = r.st.Elapsed + r.deps.Now().Sub(r.start).Seconds()
	r.res.Success = r.res.StopReason == runlog.StopSuccess || r.res.StopReason == runlog.StopNoChecks
	r.res.UsageLimitWaits, r.res.UsageLimitWaited = r.st.UsageLimitWaits, r.st.UsageLimitWaited
	r.res.Waits, r.res.Switches, r.res.Stalls = r.st.Waits, r.st.Switches, r.st.Stalls
	r.res.IdleIterations = r.st.IdleIterations
	if n := len(r.records); n > 0 {
		r.res.TestsRemoved = r.records[n-1].TestsRemoved
	}
	r.res.FinalCheck = lastFinalCheck(r.res.Iterations)
	if r.doneLook != nil {
		r.res.FinalCheck = r.doneLook
	}
	// The result before the state: once the state says the run ended
	// (succeeded: not resumable), its result must be there.
	if err := runlog.WriteJSON(r.ws.state(runlog.ResultFile), r.res); err != nil {
		r.warn("could not save the result: " + err.Error())
	}
	r.recount()
	r.st.Active = false
	r.st.Status = finalStatus(r.res.StopReason)
	r.st.StopReason, r.st.StopDetail = r.res.StopReason, r.res.StopDetail
	r.save(runlog.PhaseFinished)
	r.logEvent("DONE", "loop finished: %s after %d iteration%s", r.res.StopReason, r.res.TotalIterations, plural(r.res.TotalIterations))
	r.ev.emit(runlog.Event{Type: runlog.EventLoopFinished, Iteration: r.res.TotalIterations, Success: ptr(r.res.Success),
		StopReason: r.res.StopReason, StopDetail: r.res.StopDetail, TotalIterations: ptr(r.res.TotalIterations),
		TotalCost: r.res.TotalCost, KnownCost: ptr(r.res.KnownCost), Duration: ptr(r.res.TotalDuration), NoChecks: r.res.NoChecks,
		Hint: r.res.StopHint})
	return r.res, nil
}

// lastFinalCheck is the last look the run made, if any.
func lastFinalCheck(its []runlog.Iteration) *runlog.FinalCheck {
	for i := len(its) - 1; i >= 0; i-- {
		if its[i].FinalCheck != nil {
			return its[i].FinalCheck
		}
	}
	return nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func finalStatus(reason string) string {
	switch reason {
	case runlog.StopSuccess, runlog.StopNoChecks:
		return runlog.StatusSucceeded
	case runlog.StopCancelled, runlog.StopRequested:
		return runlog.StatusStopped
	case runlog.StopWaiting:
		return runlog.StatusWaiting
	}
	return runlog.StatusFailed
}

// run is the loop proper.
func (r *runner) run(ctx, runCtx context.Context) {
	if n := len(r.records); n > 0 && r.records[n-1].CompletionSignal != "" {
		// A resumed run that was killed after recording its successful
		// last iteration, before saving that it had succeeded.
		r.stop(r.successReason(), "")
		return
	}
	for {
		i := len(r.records) + 1
		// A stop asked during a pause ends the pause: it is looked for again.
		if r.stopped(ctx, runCtx) || r.stopIfAsked() || r.pauseIfAsked(ctx, runCtx) || r.stopIfAsked() {
			return
		}
		if i > r.cfg.MaxIterations {
			r.stop(runlog.StopMaxIterations, fmt.Sprintf("the limit of %d iterations was reached", r.cfg.MaxIterations)+r.testsStopNote()+r.lastLookFailed())
			return
		}
		if r.overBudget() {
			r.stop(runlog.StopBudget, fmt.Sprintf("spent $%.4f of the $%.4f budget", r.res.KnownCost, r.cfg.MaxCost))
			return
		}
		if r.doneBeforeIteration(runCtx) {
			return
		}
		switch r.pickAgent(ctx, runCtx) {
		case halt:
			return
		case again:
			continue // a pause or a note cut a wait short: look again
		}
		if r.iterate(ctx, runCtx, i) {
			return
		}
	}
}

// lastLookFailed says, for the stop detail, that the last iteration would
// have succeeded but for its last look; "" otherwise.
func (r *runner) lastLookFailed() string {
	n := len(r.records)
	if n == 0 || !r.records[n-1].FinalCheck.Failed() {
		return ""
	}
	return "; iteration " + fmt.Sprint(n) + "'s success did not stand: the last look " + r.records[n-1].FinalCheck.Status + ": " + r.records[n-1].FinalCheck.Reason
}

// overBudget reports whether what the run is known to have spent reached
// --max-cost.
func (r *runner) overBudget() bool {
	return r.cfg.MaxCost > 0 && r.res.KnownCost >= r.cfg.MaxCost
}

// stopInterrupted ends the loop after an interrupted iteration, for the
// reason that interrupted it.
func (r *runner) stopInterrupted(ctx, runCtx context.Context, rec record) {
	if rec.Interrupted == runlog.InterruptMaxCost {
		r.stop(runlog.StopBudget, fmt.Sprintf("spent %s of the $%.4f budget: iteration %d was stopped when it reached it", r.res.Cost(), r.cfg.MaxCost, rec.Iteration.Iteration))
		return
	}
	if !r.stopped(ctx, runCtx) {
		r.stop(runlog.StopCancelled, "interrupted")
	}
}

// stopped reports (and records) whether the loop was cancelled or ran out of time.
func (r *runner) stopped(ctx, runCtx context.Context) bool {
	switch {
	case ctx.Err() != nil:
		r.stop(runlog.StopCancelled, r.cancelText())
	case runCtx.Err() != nil:
		r.stop(runlog.StopTimeout, fmt.Sprintf("max-time of %s reached", config.FormatDuration(r.cfg.MaxTime)))
	default:
		return false
	}
	return true
}

// cancelText says who cancelled the run, when the control file says.
func (r *runner) cancelText() string {
	if r.control() == "cancel" {
		return "cancelled with `architect cancel`"
	}
	return "interrupted"
}

func (r *runner) stop(reason, detail string) {
	if r.res.StopReason == "" {
		r.res.StopReason, r.res.StopDetail = reason, r.deps.Redact(detail)
	}
}

// shownJSON is the configuration as the state keeps it: with its secrets
// masked.
func (r *runner) shownJSON() json.RawMessage {
	data, err := json.Marshal(r.shown)
	if err != nil {
		panic(err) // a configuration is plain data: it always encodes
	}
	return data
}

// save writes state.json for phase; failures are reported, not fatal.
//
// Every save is atomic (a whole file renamed into place), so a run killed
// at any instant leaves a complete state.json. Only the start and the end
// of a run are also synced to disk: the phases in between are informative,
// and what a resume relies on, the iteration records, is synced as each
// iteration is recorded. This keeps ~5 ms of fsync per phase off every
// iteration. Nothing is saved in the middle of an iteration: the inflight
// file tells its phase (runlog.ReadStateNow).
func (r *runner) save(phase string) {
	r.st.Phase = phase
	r.st.PID = os.Getpid()
	write := runlog.WriteJSONQuick
	if phase == runlog.PhaseStarting || phase == runlog.PhaseFinished {
		write = runlog.WriteJSON
	}
	if err := write(r.ws.state(runlog.StateFile), r.sessionState()); err != nil {
		r.warn("could not save the state: " + err.Error())
	}
}

// sessionState is the state with this session's elapsed time added.
func (r *runner) sessionState() runlog.State {
	s := *r.st
	s.Elapsed += r.deps.Now().Sub(r.start).Seconds()
	return s
}

// recount derives the counters in the state from the records. An
// interrupted iteration is no agent failure and no success: it leaves the
// count of failures in a row as it was. The failures in a row are one
// agent's: a switch to another agent starts the count again.
func (r *runner) recount() {
	s := r.st
	s.ErrorCount, s.ConsecutiveErrors, s.Timeouts, s.LastError = 0, 0, 0, ""
	s.TotalCost, s.TotalCostKnown = r.res.TotalCost, r.res.TotalCostKnown
	s.KnownCost, s.UnknownCostIterations = r.res.KnownCost, r.res.UnknownCostIterations
	prev := ""
	for i, rec := range r.records {
		if label := rec.agentLabel(); i > 0 && label != prev {
			s.ConsecutiveErrors = 0
		}
		prev = rec.agentLabel()
		switch {
		case rec.Failed:
			s.ErrorCount++
			s.ConsecutiveErrors++
		case rec.Interrupted == "":
			s.ConsecutiveErrors = 0
		}
		if rec.Error != nil && rec.Failed {
			s.LastError = *rec.Error
		}
		if rec.Timeouts() {
			s.Timeouts++
		}
		if rec.Commit != "" {
			s.LastCommit = rec.Commit
		}
	}
	s.IdleIterations = idleRun(r.records, s.InitialTree)
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
