package loop

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"time"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/checks"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/proc"
	"github.com/architect-dev/architect/prompt"
	"github.com/architect-dev/architect/runlog"
)

// wrapUp bounds the git work done for an iteration after the run was
// stopped (the diff stat of what it left): the run must end promptly.
const wrapUp = 3 * time.Second

// stepKind says what became of an attempt at an iteration.
type stepKind int

const (
	// stepRan: the agent ran; the iteration is recorded, whatever ended it.
	stepRan stepKind = iota
	// stepNotStarted: no agent was started (the prompt could not be built,
	// or the run was stopped first); the stop reason is set.
	stepNotStarted
	// stepRefused: the agent met its usage limit before doing anything:
	// not an iteration.
	stepRefused
)

// iteration runs iteration i: prompt, agent, checks. The record it returns
// is complete but for the commit; an interrupted iteration (Ctrl-C,
// SIGTERM, --max-time, --max-cost) comes back as one too, with Interrupted
// set and no check results.
func (r *runner) iteration(ctx, runCtx context.Context, i int) (rec record, o agent.Outcome, kind stepKind) {
	began := r.deps.Now()
	ag := r.agent()
	it := runlog.Iteration{Iteration: i, Agent: ag.name, Model: ag.model, StartedAt: stamp(began), CheckResults: []runlog.CheckResult{}}
	r.st.Iteration = i
	r.st.LastIterationAt = stamp(began)

	it.Notes = r.takeNotes(i)
	text, err := r.buildPrompt(runCtx, i, it.Notes)
	if err != nil {
		r.stop(runlog.StopError, err.Error())
		return rec, o, stepNotStarted
	}
	text = r.deps.Redact(text)
	promptFile := r.ws.state("prompts", "iteration-"+strconv.Itoa(i)+".md")
	if err := os.WriteFile(promptFile, []byte(text), 0o600); err != nil {
		r.stop(runlog.StopError, "writing the prompt: "+err.Error())
		return rec, o, stepNotStarted
	}
	if r.stopped(ctx, runCtx) {
		return rec, o, stepNotStarted // stopped while the prompt was built: no agent started
	}

	agentCtx, cancelAgent := context.WithCancelCause(runCtx)
	defer cancelAgent(nil)
	watch := r.startInflight(i, began, cancelAgent)
	r.save("agent")
	r.logEvent("START", "iteration %d/%d", i, r.cfg.MaxIterations)
	r.ev.emit(runlog.Event{Type: runlog.EventIterationStarted, Iteration: i, MaxIterations: r.cfg.MaxIterations, Agent: ag.name, Model: ag.model})
	r.logf("iteration %d/%d: running the %s agent", i, r.cfg.MaxIterations, ag.Agent)
	snap := r.snapshotProtected()
	r.tr = r.openTranscript(i)
	defer func() {
		if err := r.tr.close(); err != nil {
			r.transcriptFailed(err)
		}
		r.tr = nil
	}()
	copyOut, copyErr := r.tr.agentCopies()
	agentBegan := r.deps.Now()
	stopNotes := r.watchNotes(agentCtx, i, cancelAgent)
	o = ag.agent.Run(agentCtx, agent.Request{
		Prompt:            text,
		PromptFile:        promptFile,
		ResultFile:        r.ws.state(runlog.AgentResultFile),
		Dir:               r.ws.dir,
		Iteration:         i,
		MaxIterations:     r.cfg.MaxIterations,
		Timeout:           r.cfg.IterationTimeout,
		InactivityTimeout: r.cfg.InactivityTimeout,
		Grace:             r.cfg.KillGrace,
		OnActivity:        func(text string) { r.ev.activity(i, text, r.cleanText) },
		OnSpend:           watch.spend,
		CompletionTag:     r.cfg.CompletionTag,
		DonePattern:       r.cfg.DonePattern,
		CopyStdout:        copyOut,
		CopyStderr:        copyErr,
	})
	stopNotes()
	r.finishAgent(r.tr)
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
	_ = os.Remove(r.ws.state(runlog.AgentResultFile))
	it.ProtectedRestored = r.restoreProtected(snap, i)
	r.protectNote = protectNote(i, it.ProtectedRestored)
	fillFromOutcome(&it, o)
	final, _ := prompt.TruncateTail(o.FinalMessage, runlog.FinalMessageLimit)
	it.FinalMessage = final
	r.ev.emit(agentFinished(i, o))
	r.logAgent(i, o)
	if why := interruption(ctx, runCtx, agentCtx); why != "" {
		return r.interrupted(ctx, it, began, why), o, stepRan
	}
	if o.ErrKind == agent.ErrUsageLimit && !didWork(o) {
		r.inflightDone()
		return rec, o, stepRefused
	}
	if o.ErrKind == agent.ErrFatal {
		it.Duration = r.deps.Now().Sub(began).Seconds()
		return record{Record: runlog.Record{Iteration: it, Failed: true}}, o, stepRan
	}
	var patternFound bool
	if o.ExitCode != agent.ExitWaiting {
		// A run stopped by a timeout did not finish: whatever it printed is
		// not a final message, so it cannot declare completion.
		if !o.TimedOut && !o.Inactive {
			it.CompletionTagFound, patternFound = r.searchFinal(o, text)
		}
		r.beforeChecks(runCtx)
		r.runChecks(runCtx, &it)
		gctx, cancel := r.gitContext(ctx, runCtx)
		r.afterChecks(gctx) // what the checks created stays out of the commit
		cancel()
		if why := interruption(ctx, runCtx, nil); why != "" {
			it.CheckResults, it.AllChecksPassed = []runlog.CheckResult{}, false
			return r.interrupted(ctx, it, began, why), o, stepRan
		}
	}
	it.Duration = r.deps.Now().Sub(began).Seconds()
	failed := o.Failed() && o.ExitCode != agent.ExitWaiting && o.ErrKind != agent.ErrUsageLimit
	rec = record{Record: runlog.Record{Iteration: it, Failed: failed || len(it.ProtectedRestored) > 0, ChecksID: checksID(it.CheckResults)}, patternFound: patternFound}
	if r.ws.repo != nil {
		// One snapshot serves idle detection, the record and the next prompt.
		gctx, cancel := r.gitContext(ctx, runCtx)
		defer cancel()
		if d, err := r.ws.diff(gctx); err == nil {
			rec.Tree = d.Tree
			rec.DiffStat = r.deps.Redact(d.Stat)
			r.nextDiff = &d
			r.keepPatch(i, d.Text)
		}
	}
	return rec, o, stepRan
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
func (r *runner) interrupted(ctx context.Context, it runlog.Iteration, began time.Time, why string) record {
	it.Interrupted = why
	it.ChecksRun = false
	it.CompletionTagFound = false
	it.Duration = r.deps.Now().Sub(began).Seconds()
	e := "interrupted: " + r.interruptText(why) + "; its checks did not run"
	it.Error = &e
	rec := record{Record: runlog.Record{Iteration: it}}
	if r.ws.repo != nil {
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), wrapUp)
		defer cancel()
		if d, err := r.ws.diff(wctx); err == nil {
			rec.Tree, rec.DiffStat = d.Tree, r.deps.Redact(d.Stat)
		}
		r.nextDiff = nil
	}
	r.logf("iteration %d/%d: interrupted (%s); its checks did not run", it.Iteration, r.cfg.MaxIterations, r.interruptText(why))
	return rec
}

// interruptText says in words why an iteration was interrupted.
func (r *runner) interruptText(why string) string {
	switch why {
	case runlog.InterruptMaxTime:
		return "max-time of " + config.FormatDuration(r.cfg.MaxTime) + " reached"
	case runlog.InterruptMaxCost:
		return fmt.Sprintf("the agent's spending reached the $%.4f budget", r.cfg.MaxCost)
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
func (r *runner) gitContext(ctx, runCtx context.Context) (context.Context, context.CancelFunc) {
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
func (r *runner) searchFinal(o agent.Outcome, promptText string) (tag, pattern bool) {
	if s := o.Searched; s != nil {
		return s.Tag, s.Pattern
	}
	tag = prompt.HasCompletion(o.FinalMessage, r.cfg.CompletionTag, promptText)
	if r.cfg.DonePattern != "" {
		if re, err := regexp.Compile(r.cfg.DonePattern); err == nil {
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

func (r *runner) logAgent(i int, o agent.Outcome) {
	r.logf("iteration %d/%d: agent finished in %s (exit %d, %d steps, cost %s)%s",
		i, r.cfg.MaxIterations, round(o.Duration), o.ExitCode, o.Steps, costText(o), errSuffix(o.Err))
	switch {
	case o.TimedOut || o.Inactive:
		r.logEvent("TIMEOUT", "iteration %d after %s: %s", i, human(o.Duration), firstLine(o.Err))
	case o.ExitCode == agent.ExitWaiting:
		r.logEvent("WAIT", "iteration %d: the agent is waiting (exit %d)", i, o.ExitCode)
	case o.Failed():
		r.logEvent("FAIL", "iteration %d exit=%d duration=%s error=%s", i, o.ExitCode, human(o.Duration), firstLine(o.Err))
	default:
		r.logEvent("END", "iteration %d exit=%d duration=%s", i, o.ExitCode, human(o.Duration))
	}
}

func (r *runner) runChecks(ctx context.Context, it *runlog.Iteration) {
	if len(r.cfg.Checks) == 0 {
		return // --no-checks: nothing ran, nothing passed
	}
	r.save("checks")
	began := r.deps.Now()
	i := it.Iteration
	results := checks.Run(ctx, r.cfg.Checks, checks.Options{
		Dir:     r.ws.dir,
		Timeout: r.cfg.CheckTimeout,
		Grace:   r.cfg.KillGrace,
		OnStart: func(idx int, _ string) {
			r.ev.emit(runlog.Event{Type: runlog.EventCheckStarted, Iteration: i, Check: r.shown.Checks[idx], Index: ptr(idx)})
		},
		OnFinish: func(idx int, c checks.Result) { r.ev.emit(checkFinished(i, idx, r.sanitizeCheck(idx, c))) },
		Output:   r.checkOutput(r.tr),
	})
	it.ChecksDuration = r.deps.Now().Sub(began).Seconds()
	it.CheckResults = make([]runlog.CheckResult, len(results))
	for idx, c := range results {
		it.CheckResults[idx] = r.sanitizeCheck(idx, c)
	}
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
	r.logf("iteration %d/%d: checks %d/%d passing%s", it.Iteration, r.cfg.MaxIterations, passing, len(it.CheckResults), failedList(it.CheckResults))
}

func (r *runner) buildPrompt(ctx context.Context, i int, notes []string) (string, error) {
	in := prompt.Input{
		PersonNotes:   notes,
		Task:          r.cfg.Task,
		Iteration:     i,
		MaxIterations: r.cfg.MaxIterations,
		Checks:        r.shown.Checks,
		CompletionTag: r.cfg.CompletionTag,
		ExecError:     r.execErr,
		Notes:         append(modeNotes(r.cfg.Mode), r.protectNote, r.interruptNote),
	}
	if r.cfg.Spec != "" {
		spec, err := os.ReadFile(r.cfg.Spec)
		if err != nil {
			return "", fmt.Errorf("cannot read the specification file %s: %v", r.cfg.Spec, err)
		}
		in.Task, in.FromSpec = proc.Clean(spec), true
	}
	if d := r.nextDiff; d != nil {
		in.Diff, in.DiffTruncated = promptDiff(*d)
		r.nextDiff = nil
	} else if r.ws.repo != nil {
		d, err := r.ws.diff(ctx)
		if err != nil {
			if ctx.Err() == nil {
				r.warn("could not compute the changes so far: " + r.cleanText(err.Error()))
			}
		} else {
			in.Diff, in.DiffTruncated = promptDiff(d)
			r.keepPatch(0, d.Text)
		}
	}
	prevByName := map[string]runlog.CheckResult{}
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
	if len(r.records) > 0 { // a new run's progress file starts empty
		if b, err := os.ReadFile(r.ws.state(runlog.ProgressFile)); err == nil {
			in.Progress = string(b)
		}
	}
	return prompt.Build(in), nil
}

// modeNotes are the instructions plan and build modes add to the prompt.
func modeNotes(mode string) []string {
	switch mode {
	case config.ModePlan:
		return []string{"Plan mode: do not implement anything. Compare the specification with the code, and write or update IMPLEMENTATION_PLAN.md: a prioritised list of the tasks left, each small enough for one iteration."}
	case config.ModeBuild:
		return []string{"Build mode: pick the most important unfinished task from IMPLEMENTATION_PLAN.md, implement it with its tests, and mark it done there. One task per iteration: architect commits after each iteration."}
	}
	return nil
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

func round(d time.Duration) time.Duration {
	if d < 10*time.Second {
		return d.Round(10 * time.Millisecond)
	}
	return d.Round(time.Second)
}

func costText(o agent.Outcome) string {
	if !o.CostKnown {
		return "unknown"
	}
	return fmt.Sprintf("$%.4f", o.Cost)
}

func errSuffix(e string) string {
	if e == "" {
		return ""
	}
	return ": " + firstLine(e)
}

func failedList(rs []runlog.CheckResult) string {
	s := ""
	for _, c := range rs {
		if !c.Passed {
			s += fmt.Sprintf("; failed: %s (%s)", c.Name, c.Status())
		}
	}
	return s
}
