package loop

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/checks"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/proc"
	"github.com/architect-dev/architect/prompt"
)

// iteration runs iteration i: prompt, agent, checks. stop is true when the
// loop must end without recording it (cancelled, out of time, or a
// problem that prevents running the agent).
func (r *runner) iteration(ctx, runCtx context.Context, i int) (rec record, o agent.Outcome, stop bool) {
	began := r.deps.Now()
	it := Iteration{Iteration: i, StartedAt: stamp(began), CheckResults: []checks.Result{}}
	r.st.Iteration = i
	r.st.LastIterationAt = stamp(began)

	text, err := r.buildPrompt(runCtx, i)
	if err != nil {
		r.stop(StopError, err.Error())
		return rec, o, true
	}
	text = r.deps.Redact(text)
	promptFile := r.ws.state("prompts", "iteration-"+strconv.Itoa(i)+".md")
	if err := os.WriteFile(promptFile, []byte(text), 0o600); err != nil {
		r.stop(StopError, "writing the prompt: "+err.Error())
		return rec, o, true
	}

	r.save("agent")
	r.logEvent("START", "iteration %d/%d", i, r.cfg.MaxIterations)
	r.ev.emit(Event{Type: EventIterationStarted, Iteration: i, MaxIterations: r.cfg.MaxIterations})
	r.logf("iteration %d/%d: running the %s agent", i, r.cfg.MaxIterations, r.deps.Agent.Name())
	snap := r.snapshotProtected()
	o = r.deps.Agent.Run(runCtx, agent.Request{
		Prompt:            text,
		PromptFile:        promptFile,
		ResultFile:        r.ws.state("agent-result.json"),
		Dir:               r.ws.dir,
		Iteration:         i,
		MaxIterations:     r.cfg.MaxIterations,
		Timeout:           r.cfg.IterationTimeout,
		InactivityTimeout: r.cfg.InactivityTimeout,
		Grace:             r.cfg.KillGrace,
		OnActivity:        func(text string) { r.ev.activity(i, text) },
	})
	o = r.sanitize(o)
	it.ProtectedRestored = r.restoreProtected(snap, i)
	r.protectNote = protectNote(i, it.ProtectedRestored)
	fillFromOutcome(&it, o)
	final, _ := prompt.TruncateTail(o.FinalMessage, FinalMessageLimit)
	it.FinalMessage = r.deps.Redact(final)
	r.ev.emit(agentFinished(i, o))
	r.logAgent(i, o)
	if ctx.Err() != nil || runCtx.Err() != nil {
		// Cancelled or out of time: the iteration is not recorded; a resume
		// runs it again.
		r.stopped(ctx, runCtx)
		return rec, o, true
	}
	if o.ErrKind == agent.ErrUsageLimit {
		return rec, o, false
	}
	if o.ErrKind == agent.ErrFatal {
		it.Duration = r.deps.Now().Sub(began).Seconds()
		return record{Iteration: it, Failed: true}, o, false
	}
	if o.ExitCode != agent.ExitWaiting {
		// A run stopped by a timeout did not finish: whatever it printed is
		// not a final message, so it cannot declare completion.
		it.CompletionTagFound = !o.TimedOut && !o.Inactive && prompt.HasCompletion(o.FinalMessage, r.cfg.CompletionTag)
		r.beforeChecks(runCtx)
		r.runChecks(runCtx, &it)
		r.afterChecks(ctx)
		if ctx.Err() != nil || runCtx.Err() != nil {
			r.stopped(ctx, runCtx)
			return rec, o, true
		}
	}
	it.Duration = r.deps.Now().Sub(began).Seconds()
	rec = record{Iteration: it, Failed: o.Failed() && o.ExitCode != agent.ExitWaiting || len(it.ProtectedRestored) > 0, ChecksID: checksID(it.CheckResults)}
	if r.ws.repo != nil {
		// One snapshot serves both idle detection and the next prompt.
		if d, err := r.ws.diff(ctx); err == nil {
			rec.Tree = d.Tree
			rec.DiffStat = r.deps.Redact(d.Stat)
			r.nextDiff = &d
		}
	}
	return rec, o, false
}

func fillFromOutcome(it *Iteration, o agent.Outcome) {
	it.AgentDuration = o.Duration.Seconds()
	it.StepsTaken = o.Steps
	it.ExitCode = o.ExitCode
	it.AgentTimedOut = o.TimedOut || o.Inactive
	if o.CostKnown {
		c := o.Cost
		it.Cost = &c
	}
	if o.Usage != (agent.Usage{}) {
		it.Tokens = &Tokens{Input: o.Usage.Input, CachedInput: o.Usage.CachedInput, Output: o.Usage.Output}
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

func (r *runner) runChecks(ctx context.Context, it *Iteration) {
	r.save("checks")
	began := r.deps.Now()
	i := it.Iteration
	it.CheckResults = checks.Run(ctx, r.cfg.Checks, checks.Options{
		Dir:     r.ws.dir,
		Timeout: r.cfg.CheckTimeout,
		Grace:   r.cfg.KillGrace,
		OnStart: func(idx int, name string) {
			r.ev.emit(Event{Type: EventCheckStarted, Iteration: i, Check: name, Index: ptr(idx)})
		},
		OnFinish: func(idx int, c checks.Result) { r.ev.emit(checkFinished(i, idx, c)) },
	})
	it.ChecksDuration = r.deps.Now().Sub(began).Seconds()
	r.sanitizeChecks(it)
	it.AllChecksPassed = ctx.Err() == nil
	passing := 0
	for _, c := range it.CheckResults {
		if c.Passed {
			passing++
		} else {
			it.AllChecksPassed = false
		}
	}
	if len(r.cfg.Checks) > 0 {
		r.logf("iteration %d/%d: checks %d/%d passing%s", it.Iteration, r.cfg.MaxIterations, passing, len(it.CheckResults), failedList(it.CheckResults))
	}
}

// commitIteration records a completed iteration: the record first (from
// then on it counts as done), then everything derived from it.
func (r *runner) commitIteration(ctx context.Context, rec record) bool {
	if err := appendRecord(r.ws.state(RecordsFile), rec); err != nil {
		r.stop(StopError, "could not record iteration "+strconv.Itoa(rec.Iteration.Iteration)+": "+err.Error())
		return false
	}
	r.records = append(r.records, rec)
	r.res.add(rec.Iteration)
	r.prevPrev, r.prev = r.prev, rec.CheckResults
	r.execErr = ""
	if rec.Error != nil {
		r.execErr = *rec.Error
	}
	if err := r.writeProgress(); err != nil {
		r.warn("could not update the progress file: " + err.Error())
	}
	// A worktree run commits every iteration on its branch; a build-mode run
	// commits each iteration on the current branch (seed 000: build commits
	// after each task).
	if r.commits() {
		passing := 0
		for _, c := range rec.CheckResults {
			if c.Passed {
				passing++
			}
		}
		msg := fmt.Sprintf("architect: iteration %d (%d/%d checks passing)", rec.Iteration.Iteration, passing, len(rec.CheckResults))
		hash, committed, err := r.ws.commit(ctx, msg)
		switch {
		case err != nil:
			r.warn("could not commit iteration " + strconv.Itoa(rec.Iteration.Iteration) + " on " + r.ws.branch + ": " + err.Error())
		case committed:
			r.st.LastCommit = hash
			rec.Iteration.Commit = hash
		}
	}
	r.recount()
	r.save("recorded")
	r.ev.emit(iterationFinished(rec.Iteration))
	return true
}

// writeProgress rewrites the progress file from the records. It is derived
// data (rebuilt on resume), so an atomic rename without fsync is enough.
func (r *runner) writeProgress() error {
	var b strings.Builder
	for _, rec := range r.records {
		b.WriteString(progressEntry(rec.Iteration))
	}
	path := r.ws.state(ProgressFile)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(r.deps.Redact(b.String())), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func (r *runner) buildPrompt(ctx context.Context, i int) (string, error) {
	in := prompt.Input{
		Task:          r.cfg.Task,
		Iteration:     i,
		MaxIterations: r.cfg.MaxIterations,
		Checks:        r.cfg.Checks,
		CompletionTag: r.cfg.CompletionTag,
		ExecError:     r.execErr,
		Notes:         append(modeNotes(r.cfg.Mode), r.protectNote),
	}
	if r.cfg.Spec != "" {
		spec, err := os.ReadFile(r.cfg.Spec)
		if err != nil {
			return "", fmt.Errorf("cannot read the specification file %s: %v", r.cfg.Spec, err)
		}
		in.Task, in.FromSpec = proc.Clean(spec), true
	}
	if d := r.nextDiff; d != nil {
		in.Diff, in.DiffTruncated = proc.Clean([]byte(d.Text)), d.Truncated
		r.nextDiff = nil
	} else if r.ws.repo != nil {
		d, err := r.ws.diff(ctx)
		if err != nil {
			r.warn("could not compute the changes so far: " + err.Error())
		} else {
			in.Diff, in.DiffTruncated = proc.Clean([]byte(d.Text)), d.Truncated
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
	if len(r.records) > 0 { // a new run's progress file starts empty
		if b, err := os.ReadFile(r.ws.state(ProgressFile)); err == nil {
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
func checksID(rs []checks.Result) string {
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

func failedList(rs []checks.Result) string {
	s := ""
	for _, c := range rs {
		if !c.Passed {
			s += fmt.Sprintf("; failed: %s (%s)", c.Name, c.Status())
		}
	}
	return s
}
