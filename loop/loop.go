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
// One iteration is plain steps (run.go): the prompt, the attempt (the
// agent, then the checks), the verdict, the record, the decision, each a
// call that returns what it produced; the run's loop in run.go calls them
// in order and alone writes the run's state, and a stop is a value a step
// returns.
//
// The waits (wait.go) are arithmetic on the state's counts, not cenkalti/backoff, so they survive a resume.
package loop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"sync"
	"time"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/changes"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/proc"
	"github.com/architect-dev/architect/prompt"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/sandbox"
	"github.com/architect-dev/architect/usererr"
)

// ErrInterrupted is the cause the command line gives the context it cancels
// on SIGINT/SIGTERM.
var ErrInterrupted = errors.New("interrupted")

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
	// Confine, when set, is called once the run's sandbox is set up,
	// before the first event, with what confines a process by the checks'
	// rules (sandbox.Sandbox.CheckWrap; nil when nothing is confined):
	// the user's hooks run through it, as the checks do; denied names what
	// the sandbox refused, read in a hook's output.
	Confine func(wrap sandbox.Wrapper, denied func(output string) []string)
	// CheckSlots, when set, bounds how many agents' checks run at once
	// across everything that shares it: a round's candidates, a batch's
	// tasks (--parallel). Each agent's checks take one slot while they run.
	CheckSlots chan struct{}
	// Env, when set, is the environment of the run's agents, checks and
	// hooks in place of architect's own (a batch gives each task its own:
	// which model keys it keeps depends on its broker and check_env).
	Env []string
	// Between, when set, is asked before each iteration after the first
	// whether something outside the run ended it (the GitHub issue the run
	// works on was closed): a stop reason (runlog.StopIssueClosed) and its
	// detail, or "" to go on. The run stops as it does when asked to:
	// saved, resumable.
	Between func(ctx context.Context, done int) (reason, detail string)
}

// runner is one session of a run. What an iteration produces flows
// through its steps as a value (run.go, attempt.go); what stays here is what
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
	ev      *runlog.EventLog // the event stream

	// What the run has done: the records, and what derives from them.
	res      *runlog.Result
	st       *runlog.State
	records  []record
	recs     *runlog.RecordLog // iterations.jsonl, open for the session
	unsynced runlog.Record     // the last record, while its fsync runs (see synced)
	// progressSize is the size the loop left the progress file at (see
	// progressAdd); ilog is iterations.log, open for the session.
	progressSize int64
	ilog         *runlog.LineLog

	// The agents (fallback.go) and the person's notes (notes.go).
	agents                  // the run's agent, then its fallbacks
	rev       *reviewer     // the reviewer (review.go); nil: none
	planners  []planner     // the planners (plan.go)
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
	// cacheRoot is the folder of the package caches every worktree shares
	// ("": not shared; worktreesetup.go).
	cacheRoot string
	// tests are the run's tests at its start, and what is done when one
	// is removed (tests.go).
	tests runlog.Tests
	// testsMu guards tests while a round's candidates run their checks.
	testsMu sync.Mutex
	// cands are the run's candidates when its iterations are rounds
	// (round.go).
	cands []*candidate
	// outMu keeps the lines of a round's candidates, said at once, whole;
	// ilogMu guards the iterations log.
	outMu, ilogMu sync.Mutex
}

// carried is what the iterations so far leave to the next one: its prompt
// shows the failures, the error and the notes of the last ones, and its
// own diff is told from the changes they left.
type carried struct {
	prev, prevPrev []runlog.CheckResult     // the last two iterations' check results
	execErr        string                   // the last agent run's error
	protectNote    string                   // why the last iteration failed, when it changed protected files
	judgeNote      string                   // why the last iteration failed, when it changed how a check is judged
	interruptNote  string                   // that the last iteration was interrupted before its checks
	lessons        []prompt.CandidateLesson // what the last round's losing candidates showed
	finalNote      string                   // why the last iteration's success did not stand (its last look failed)
	diff           *changes.Diff            // the snapshot taken after the last iteration, for the next prompt
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
	if r.rev, err = newReviewer(cfg, r.deps); err != nil {
		return nil, err
	}
	if r.planners, err = newPlanners(cfg, r.deps); err != nil {
		return nil, err
	}
	// A check shell that cannot be used (not installed, no pipefail) is
	// refused before anything starts.
	if _, err := proc.ResolveShell(ctx, cfg.CheckShell); err != nil {
		var ue *usererr.Error
		if errors.As(err, &ue) {
			return nil, &usererr.Error{Msg: "--check-shell: " + ue.Msg, Hint: ue.Hint, Err: ue.Err}
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
			return nil, &usererr.Error{Msg: "max-time of " + config.FormatDuration(cfg.MaxTime) + " reached while setting up the workspace: " + err.Error(), Hint: "give --max-time more time", Err: err}
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
	st := &runlog.State{
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
			st.InitialTree = d.Tree
		}
	}
	r.startTests()
	if ws.worktree != "" {
		r.logf("working in worktree %s on branch %s", ws.worktree, ws.branch)
		r.sayBrought(ws.brought)
	}
	return r.session(ctx, runCtx, st)
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
	lock, err := runlog.LockWorkspace(ws.state())
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

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
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
	r.outMu.Lock()
	defer r.outMu.Unlock()
	fmt.Fprintf(r.deps.Log, "architect: "+format+"\n", args...)
}

func (r *runner) warn(msg string) {
	r.outMu.Lock()
	defer r.outMu.Unlock()
	usererr.Say(r.deps.Log, usererr.LevelWarning, msg)
}
