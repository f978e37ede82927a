package loop

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/changes"
	"github.com/architect-dev/architect/checks"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/gitwt"
	"github.com/architect-dev/architect/prompt"
	"github.com/architect-dev/architect/runlog"
)

// wrapUp bounds the git work done for an iteration after the run was
// stopped (the diff stat of what it left): the run must end promptly.
const wrapUp = 3 * time.Second

// iteration is one iteration of the loop as it goes through its steps,
// top to bottom (iterate, run.go): the prompt, the agent, the checks, the
// verdict, the record, the decision. Each step reads what the steps before
// it left here and adds its own; the record it builds is written once,
// complete. It is one attempt's value: the agent it ran on, what it did and
// what the checks said of it, so that attempts can be compared.
type iteration struct {
	n      int
	began  time.Time
	slot   *slot      // the agent it runs on
	ws     *workspace // where the agent and the checks run: the run's own
	prompt string     // the prompt as the agent saw it (masked)
	file   string     // where the prompt is
	tr     *transcript
	o      agent.Outcome // the agent's run, made safe
	rec    record        // the record, built step by step
	// diff is the snapshot taken after the checks, for the next prompt (nil
	// when none was taken).
	diff *changes.Diff
	// The changes so far as this iteration last saw them (the run's loop
	// starts them from what the iterations before left, keepPatch moves
	// them on, the run's loop carries them to the next one).
	patch      string
	patchKnown bool
	// refused: the agent met its usage limit before doing anything, which
	// is not an iteration (nothing is recorded).
	refused bool
	// halt: the iteration could not go on (a round that could not be set
	// up): the run stops for it.
	halt *stop

	// A candidate of a round (round.go); nil for the run's own agent.
	cand   *candidate
	parent context.Context // the round's context, which a candidate's agent runs under
	watch  spender         // its seat in the round's spending
	// spends is the run's own agent's spending watch: the agent in seat
	// 0, the reviewer in seat 1, the planners from seat 2.
	spends *spendWatch
	// planOuts are the planners' runs in this iteration.
	planOuts []agent.Outcome
	// What a candidate did: its change as a commit on the round's base and
	// its size; stopped when another candidate succeeded first.
	candCommit string
	candSize   gitwt.Change
	stopped    bool
	// lessons: what the losing candidates of the round teach the next one.
	lessons []prompt.CandidateLesson
	// The verdict (decide.go), reached once before the record is written:
	// whether the iteration lets the run succeed, and the completion signal
	// the agent gave (or why it could not be looked for).
	ok        bool
	signal    string
	signalErr error
}

// newIteration is iteration i as it begins, on the current agent.
func (r *runner) newIteration(i int) *iteration {
	x := &iteration{n: i, began: r.deps.Now(), slot: r.agent(), ws: r.ws, patch: r.last.patch, patchKnown: r.last.patchKnown}
	x.rec.Iteration = runlog.Iteration{Iteration: i, Agent: x.slot.name, Model: x.slot.model, StartedAt: stamp(x.began), CheckResults: []runlog.CheckResult{}}
	return x
}

// attempt is the attempt step of iteration x, whose prompt is written:
// the agent, then the checks, in the workspace. What it did is put on x:
// refused when the agent met its usage limit before doing anything,
// Interrupted (and no check results) when the run stopped it, the
// snapshot of the changes for the next prompt otherwise.
func (r *runner) attempt(ctx, runCtx context.Context, x *iteration) {
	agentCtx, cancelAgent := context.WithCancelCause(x.parentCtx(runCtx))
	defer cancelAgent(nil)
	x.tr = r.openTranscript(x.transcriptDir())
	defer func() {
		if err := x.tr.close(); err != nil {
			r.transcriptFailed(err)
		}
	}()
	if r.questionsOn() && x.cand == nil {
		_ = os.Remove(x.ws.state(runlog.QuestionFile)) // one an earlier agent left unasked
	}
	if r.planStep(ctx, runCtx, agentCtx, x, cancelAgent) {
		return
	}
	r.runAgent(agentCtx, x, cancelAgent)
	if r.agentEnded(ctx, runCtx, agentCtx, x) {
		return
	}
	if x.o.ExitCode != agent.ExitWaiting {
		// A run stopped by a timeout did not finish: whatever it printed is
		// not a final message, so it cannot declare completion.
		if !x.o.TimedOut && !x.o.Inactive {
			x.rec.CompletionTagFound, x.rec.patternFound = searchFinal(r.cfg, x.o, x.prompt)
		}
		if r.questionsOn() && x.cand == nil {
			x.rec.Question = r.takeQuestion(x)
		}
		if r.checkStep(ctx, runCtx, agentCtx, x) {
			return
		}
	}
	x.rec.Duration = r.deps.Now().Sub(x.began).Seconds()
	failed := x.o.Failed() && x.o.ExitCode != agent.ExitWaiting && x.o.ErrKind != agent.ErrUsageLimit
	x.rec.Failed = failed || len(x.rec.ProtectedRestored) > 0 || judgeFailed(x.rec.JudgeChanged) || testsFailed(x.rec)
	x.rec.ChecksID = checksID(x.rec.CheckResults)
	if x.ws.repo != nil && x.cand == nil {
		// One snapshot serves idle detection, the record and the next prompt.
		gctx, cancel := gitContext(ctx, runCtx)
		defer cancel()
		if d, err := x.ws.diff(gctx); err == nil {
			x.rec.Tree = d.Tree
			x.rec.DiffStat = r.deps.Redact(d.Stat)
			x.diff = &d
			r.keepPatch(x, d.Text)
			r.keepRunDiff(d)
		}
	}
}

// agentEnded reports whether attempt x ends with its agent: stopped
// (another candidate succeeded), interrupted, refused at its usage limit
// before doing anything, or failed for good.
func (r *runner) agentEnded(ctx, runCtx, agentCtx context.Context, x *iteration) bool {
	switch {
	case x.cand != nil && errors.Is(context.Cause(agentCtx), errWon):
		x.stopped = true
		x.rec.Duration = r.deps.Now().Sub(x.began).Seconds()
	case interruption(ctx, runCtx, agentCtx) != "":
		r.interrupted(ctx, x, interruption(ctx, runCtx, agentCtx))
	case x.o.ErrKind == agent.ErrUsageLimit && !didWork(x.o) && len(x.planOuts) == 0:
		// (An iteration whose planners ran is recorded: what they cost
		// stays counted.)
		if x.cand == nil {
			r.ws.inflightDone()
		}
		x.refused = true
	case x.o.ErrKind == agent.ErrFatal:
		x.rec.Duration = r.deps.Now().Sub(x.began).Seconds()
		x.rec.Failed = true
	default:
		return false
	}
	return true
}

// checkStep is the checks of attempt x, once its agent is done and its
// guards have run: in a candidate's worktree its change is taken first
// (what the checks create stays out of it). It reports whether the
// attempt ends there: stopped (another candidate succeeded) or
// interrupted.
func (r *runner) checkStep(ctx, runCtx, agentCtx context.Context, x *iteration) bool {
	r.compareTests(x)
	if x.cand != nil {
		gctx, cancel := gitContext(ctx, runCtx)
		r.candidateChange(gctx, x)
		cancel()
		r.runChecks(agentCtx, x)
		if errors.Is(context.Cause(agentCtx), errWon) {
			x.stopped = true
			x.rec.CheckResults, x.rec.AllChecksPassed, x.rec.ChecksRun = []runlog.CheckResult{}, false, false
			x.rec.Duration = r.deps.Now().Sub(x.began).Seconds()
			return true
		}
	} else {
		r.beforeChecks(runCtx)
		r.runChecks(runCtx, x)
		gctx, cancel := gitContext(ctx, runCtx)
		r.afterChecks(gctx) // what the checks created stays out of the commit
		cancel()
	}
	if why := interruption(ctx, runCtx, agentCtx); why != "" {
		x.rec.CheckResults, x.rec.AllChecksPassed = []runlog.CheckResult{}, false
		r.interrupted(ctx, x, why)
		return true
	}
	r.judgeTests(x)
	if r.reviewDue(x) {
		r.review(ctx, runCtx, agentCtx, x)
		if why := interruption(ctx, runCtx, agentCtx); why != "" {
			x.rec.CheckResults, x.rec.AllChecksPassed = []runlog.CheckResult{}, false
			r.interrupted(ctx, x, why)
			return true
		}
	}
	return false
}

// writePrompt is the prompt step: the notes the prompt carries, the
// prompt built from last (what the iterations so far left) and masked,
// written to prompts/iteration-N.md. It returns why the run stops instead
// of starting the agent, if it does.
func (r *runner) writePrompt(ctx, runCtx context.Context, x *iteration, last carried) *stop {
	x.rec.Notes = r.takeNotes(x.n)
	text, err := r.buildPrompt(runCtx, x, last)
	if err != nil {
		return stopAt(runlog.StopError, err.Error())
	}
	x.prompt = r.deps.Redact(text)
	x.file = r.ws.state("prompts", "iteration-"+strconv.Itoa(x.n)+".md")
	if err := os.WriteFile(x.file, []byte(x.prompt), 0o600); err != nil {
		return stopAt(runlog.StopError, "writing the prompt: "+err.Error())
	}
	// Stopped while the prompt was built: no agent started.
	return r.stopped(ctx, runCtx)
}

// runAgent is the agent step: the agent runs under agentCtx (which its
// spending past --max-cost, or a note for now, cancels), its output copied
// to the transcript; then what it did is made safe and put on the record,
// and the protected files it changed are restored.
func (r *runner) runAgent(agentCtx context.Context, x *iteration, cancelAgent context.CancelCauseFunc) {
	i, ag, it := x.n, x.slot, &x.rec.Iteration
	// No save of the state: the inflight file, written as the agent starts
	// and ends, tells the iteration running and its phase (agent, then
	// checks) to whoever reads the state (runlog.ReadStateNow).
	watch := x.watch
	stopNotes := func() {}
	if x.cand == nil {
		r.beginIteration(x, cancelAgent)
		watch = x.spends.seat(0)
		r.logf("iteration %d/%d: running the %s agent", i, r.cfg.MaxIterations, ag.Agent)
	}
	snap := r.snapshotProtected(x.ws.dir)
	copyOut, copyErr := x.tr.agentCopies()
	agentBegan := r.deps.Now()
	if x.cand == nil {
		stopNotes = r.watchNotes(agentCtx, i, cancelAgent)
	}
	box := r.boxOf(x)
	start := box.AgentStart(r.readOnlyFiles(x.ws.dir, snap))
	if start.Note != "" {
		r.warn(start.Note)
	}
	outDenied, errDenied := box.Watch(x.ws.dir), box.Watch(x.ws.dir)
	resultFile := x.resultFile(r.ws)
	o := ag.agent.Run(agentCtx, agent.Request{
		Prompt:            x.prompt,
		PromptFile:        x.file,
		ResultFile:        resultFile,
		Env:               x.env(r.deps.Env),
		Dir:               x.ws.dir,
		Iteration:         i,
		MaxIterations:     r.cfg.MaxIterations,
		Timeout:           r.cfg.IterationTimeout,
		InactivityTimeout: r.cfg.InactivityTimeout,
		Grace:             r.cfg.KillGrace,
		OnActivity:        func(text string) { r.ev.ActivityOf(i, x.tag(), text, r.cleanText) },
		OnSpend:           watch.spend,
		CompletionTag:     r.cfg.CompletionTag,
		DonePattern:       r.cfg.DonePattern,
		CopyStdout:        teeOut(copyOut, outDenied),
		CopyStderr:        teeOut(copyErr, errDenied),
		Wrap:              start.Wrap,
		WrapAttr:          start.Attr,
		TempDir:           box.TempDir(),
	})
	r.sandboxDeniedIn(box, it, append(outDenied.Denials(), errDenied.Denials()...))
	stopNotes()
	r.finishAgent(x.tr)
	// The agent's time is the real time it took, stopping included (a
	// group that outlives its leader's exit after a timeout), not what the
	// adapter saw of it.
	o.Duration = max(o.Duration, r.deps.Now().Sub(agentBegan))
	o = r.sanitize(o)
	if !o.CostKnown {
		// The adapter could not tell the cost at the end (a run stopped in
		// the middle), but the agent reported it on the way: keep that.
		if s := watch.lastSpend(); s.CostKnown {
			o.Cost, o.CostKnown = s.Cost, true
		}
	}
	watch.finished(o) // a kill from here on still finds what the agent cost
	// A command agent's result file holds its words unredacted: removed
	// once its cost is kept.
	_ = os.Remove(resultFile)
	it.ProtectedRestored = r.restoreProtected(snap, i)
	it.JudgeChanged = r.guardJudgeIn(i, x.ws.dir, x.cand == nil)
	fillFromOutcome(it, o)
	for _, po := range x.planOuts {
		addRoleCost(it, po, &it.PlanCost)
	}
	final, _ := prompt.TruncateTail(o.FinalMessage, runlog.FinalMessageLimit)
	it.FinalMessage = final
	ev := agentFinished(i, o)
	ev.Candidate = x.tag()
	r.ev.Emit(ev)
	if x.cand == nil {
		r.logAgent(i, o)
	}
	x.o = o
}

// parentCtx is the context x's agent runs under: the round's for a
// candidate, else the run's.
func (x *iteration) parentCtx(runCtx context.Context) context.Context {
	if x.cand != nil {
		return x.parent
	}
	return runCtx
}

// beginIteration starts iteration x of the run's own agent, once: its
// spending watch (a seat for each agent run: the executor, the reviewer,
// the planners) and its start in the log and events.
func (r *runner) beginIteration(x *iteration, cancelAgent context.CancelCauseFunc) {
	if x.spends != nil {
		return
	}
	i, ag := x.n, x.slot
	x.spends = r.startInflight(i, x.began, cancelAgent, r.seats())
	r.logEvent("START", "iteration %d/%d", i, r.cfg.MaxIterations)
	r.ev.Emit(runlog.Event{Type: runlog.EventIterationStarted, Iteration: i, MaxIterations: r.cfg.MaxIterations, Agent: ag.name, Model: ag.model})
}

// interruption says why the run stopped the iteration, if it did: a
// signal, --max-time, or (agentCtx's cause) --max-cost.
func interruption(ctx, runCtx, agentCtx context.Context) string {
	switch {
	case ctx.Err() != nil:
		return runlog.InterruptSignal
	case runCtx.Err() != nil:
		return runlog.InterruptMaxTime
	case agentCtx != nil && errors.Is(context.Cause(agentCtx), errBudget):
		return runlog.InterruptMaxCost
	case agentCtx != nil && errors.Is(context.Cause(agentCtx), errNoteNow):
		return runlog.InterruptNote
	}
	return ""
}

// interrupted completes the record of an iteration the run stopped: how
// long it ran, what it cost so far (already in it), the changes it left,
// and that its checks did not run. The diff is taken after the stop, so it
// gets a short time of its own (wrapUp).
func (r *runner) interrupted(ctx context.Context, x *iteration, why string) {
	it := &x.rec.Iteration
	it.Interrupted = why
	it.ChecksRun = false
	it.CompletionTagFound = false
	it.Duration = r.deps.Now().Sub(x.began).Seconds()
	e := "interrupted: " + interruptText(r.cfg, why) + "; its checks did not run"
	it.Error = &e
	// Only what the record of an interrupted iteration holds.
	x.rec = record{Record: runlog.Record{Iteration: *it}}
	if x.ws.repo != nil {
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), wrapUp)
		defer cancel()
		if d, err := x.ws.diff(wctx); err == nil {
			x.rec.Tree, x.rec.DiffStat = d.Tree, r.deps.Redact(d.Stat)
			r.keepRunDiff(d)
		}
	}
	r.logf("iteration %d/%d: interrupted (%s); its checks did not run", it.Iteration, r.cfg.MaxIterations, interruptText(r.cfg, why))
}

// interruptText says in words why an iteration was interrupted.
func interruptText(cfg config.Config, why string) string {
	switch why {
	case runlog.InterruptMaxTime:
		return "max-time of " + config.FormatDuration(cfg.MaxTime) + " reached"
	case runlog.InterruptMaxCost:
		return fmt.Sprintf("the agent's spending reached the $%.4f budget", cfg.MaxCost)
	case runlog.InterruptKilled:
		return "architect was killed"
	case runlog.InterruptNote:
		return "a note from the person running the loop asked for the next iteration now (architect say --now)"
	}
	return "the run was cancelled"
}

// gitContext is the context git runs under for an iteration: the run's
// deadline, or a short one of its own (wrapUp) when the run is already
// stopping, so that what the iteration left is still recorded.
func gitContext(ctx, runCtx context.Context) (context.Context, context.CancelFunc) {
	if runCtx.Err() == nil {
		return runCtx, func() {}
	}
	return context.WithTimeout(context.WithoutCancel(ctx), wrapUp)
}

// didWork reports whether a run that met its usage limit did something
// first: spent money, or, when its cost is unknown, took a step. Then it is
// an iteration like any other; a refusal that cost nothing is not.
func didWork(o agent.Outcome) bool {
	if o.CostKnown {
		return o.Cost > 0
	}
	return o.Steps > 0
}

// searchFinal looks for the completion tag and the done pattern in the
// agent's final message: as the adapter found them in a message too large
// to keep, or in the message itself. promptText is the prompt the agent
// was given, whose copies do not count.
func searchFinal(cfg config.Config, o agent.Outcome, promptText string) (tag, pattern bool) {
	if s := o.Searched; s != nil {
		return s.Tag, s.Pattern
	}
	tag = prompt.HasCompletion(o.FinalMessage, cfg.CompletionTag, promptText)
	if cfg.DonePattern != "" {
		if re, err := regexp.Compile(cfg.DonePattern); err == nil {
			pattern = re.MatchString(o.FinalMessage)
		}
	}
	return tag, pattern
}

func fillFromOutcome(it *runlog.Iteration, o agent.Outcome) {
	it.AgentDuration = o.Duration.Seconds()
	it.StepsTaken = o.Steps
	it.ExitCode = o.ExitCode
	it.AgentTimedOut = o.TimedOut || o.Inactive
	if o.CostKnown {
		c := o.Cost
		it.Cost = &c
	}
	if o.Usage != (agent.Usage{}) {
		it.Tokens = &runlog.Tokens{Input: o.Usage.Input, CachedInput: o.Usage.CachedInput, Output: o.Usage.Output}
	}
	if o.Err != "" {
		e := o.Err
		it.Error = &e
		it.ErrorKind = string(o.ErrKind)
	}
}

// runChecks is the checks step: every check, concurrently, its output
// copied to the transcript, its result on the record.
func (r *runner) runChecks(ctx context.Context, x *iteration) {
	it := &x.rec.Iteration
	if len(r.cfg.Checks) == 0 {
		return // --no-checks: nothing ran, nothing passed
	}
	if slots := r.deps.CheckSlots; slots != nil {
		select {
		case slots <- struct{}{}:
			defer func() { <-slots }()
		case <-ctx.Done():
			return // stopped while waiting for a slot: its checks did not run
		}
	}
	began := r.deps.Now()
	i := it.Iteration
	wit := r.witnesses()
	results := checks.Run(ctx, r.cfg.Checks, checks.Options{
		Dir:     x.ws.dir,
		Timeout: r.cfg.CheckTimeout,
		Grace:   r.cfg.KillGrace,
		Shell:   r.cfg.CheckShell,
		Env:     r.deps.Env,
		Wrap:    r.boxOf(x).CheckWrap(),
		OnStart: func(idx int, _ string) {
			r.ev.Emit(runlog.Event{Type: runlog.EventCheckStarted, Iteration: i, Check: r.shown.Checks[idx], Index: ptr(idx), Candidate: x.tag()})
		},
		OnFinish: func(idx int, c checks.Result) {
			ev := r.sanitizeCheck(idx, c).FinishedEvent(i, idx)
			ev.Candidate = x.tag()
			r.ev.Emit(ev)
		},
		Output: witnessed(r.checkOutput(x.tr), wit),
	})
	it.ChecksDuration = r.deps.Now().Sub(began).Seconds()
	it.CheckResults = make([]runlog.CheckResult, len(results))
	for idx, c := range results {
		it.CheckResults[idx] = r.sanitizeCheck(idx, c)
	}
	r.sandboxDeniedIn(r.boxOf(x), it, r.checkDenialsIn(r.boxOf(x), x.ws.dir, it.CheckResults))
	it.ChecksRun = ctx.Err() == nil
	it.AllChecksPassed = it.ChecksRun
	passing := 0
	for _, c := range it.CheckResults {
		if c.Passed {
			passing++
		} else {
			it.AllChecksPassed = false
		}
	}
	r.witnessTests(x, wit)
	if x.cand != nil {
		return // said with the candidate's end (round)
	}
	r.logf("iteration %d/%d: checks %d/%d passing%s", it.Iteration, r.cfg.MaxIterations, passing, len(it.CheckResults), failedList(it.CheckResults))
}

// checksID summarises check results for idle detection: which checks
// passed, with which status.
func checksID(rs []runlog.CheckResult) string {
	h := sha256.New()
	for _, c := range rs {
		fmt.Fprintf(h, "%s\x00%v\x00%d\x00%v\x00", c.Name, c.Passed, c.ExitCode, c.TimedOut)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// tag is what a candidate's events carry (its number); nil for the run's
// own agent.
func (x *iteration) tag() *runlog.Candidate {
	if x.cand == nil {
		return nil
	}
	return &runlog.Candidate{N: x.cand.k, Agent: x.slot.name, Model: x.slot.model}
}

// transcriptDir is the iteration's transcript folder, relative to the
// state folder: a candidate's is inside its round's.
func (x *iteration) transcriptDir() string {
	if x.cand != nil {
		return candidateTranscript(x.n, x.cand.k)
	}
	return runlog.TranscriptDir(x.n)
}

// resultFile is where a command agent may write its result: one file per
// candidate of a round.
func (x *iteration) resultFile(ws *workspace) string {
	if x.cand != nil {
		return x.ws.state(runlog.AgentResultFile) // in its worktree's state folder
	}
	return ws.state(runlog.AgentResultFile)
}

// env is the agent's environment: base (the run's, Deps.Env; nil for the
// process's), with a candidate's number (ARCHITECT_CANDIDATE).
func (x *iteration) env(base []string) []string {
	if x.cand == nil {
		return base
	}
	if base == nil {
		base = os.Environ()
	}
	return append(slices.Clip(base), "ARCHITECT_CANDIDATE="+strconv.Itoa(x.cand.k))
}
