package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/proc"
	"github.com/architect-dev/architect/runlog"
)

// The run's loop, and the only writer of the run's state: the state saved
// in state.json (r.st), the result (r.res) and what the iterations so far
// leave to the next prompt (r.last). One iteration goes through its steps
// here, in order, each one call away:
//
//	prompt    r.writePrompt   (attempt.go)  the prompt, built from values and written
//	attempt   r.attempt       (attempt.go)  the agent, then the checks, on one workspace
//	verdict   r.verdict       (decide.go)   whether the iteration lets the run succeed
//	record    r.writeRecord   (record.go)   the commit and the record on disk
//	decision  r.decide        (decide.go)   stop, go on, fall back, or wait
//
// Each step returns what it produced (the iteration value, a decision, a
// stop); what a step found that ends the run is a stop it returns, which
// the loop alone puts on the result (finish).

// session runs iterations until the loop stops, then finalises the state;
// the workspace is attached, st is the run's state as set up (a new run)
// or read back (a resumed one). runCtx is ctx with the run's deadline.
func (r *runner) session(ctx, runCtx context.Context, st *runlog.State) (*runlog.Result, error) {
	r.st = st
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
	r.shareCaches()
	sb, err := r.startSandbox()
	if err != nil {
		return nil, err
	}
	r.sb, r.res.Sandbox = sb, sb.Line()
	defer r.sb.Close()
	if err := r.makeCandidates(); err != nil {
		return nil, err
	}
	if r.deps.Confine != nil {
		r.deps.Confine(sb.CheckWrap(), func(out string) []string { return sb.Denials(r.ws.dir, out) })
	}
	r.last = carriedFrom(r.records)
	r.last.lessons = r.carriedLessons()
	r.st.Active, r.st.Status, r.st.PID = true, runlog.StatusRunning, os.Getpid()
	r.st.Processes, _ = json.Marshal(proc.Self())
	r.recount()
	r.save(runlog.PhaseStarting)
	r.ev = runlog.OpenEventLog(r.ws.state(runlog.EventsFile), r.deps.Events, r.deps.Now, r.warn)
	defer r.ev.Close()
	r.saveSlots()
	r.ev.Emit(r.startedEvent())

	// The setup step: a new worktree made ready before the first
	// iteration; when it fails, no agent starts.
	why := r.setup(ctx, runCtx)
	if why != nil {
		r.logf("setup failed: the run stops before any agent starts")
	} else if recs, err := runlog.OpenRecordLog(r.ws.state(runlog.RecordsFile)); err != nil {
		why = stopAt(runlog.StopError, "could not open the iteration records: "+err.Error())
	} else {
		r.recs = recs
		why = r.run(ctx, runCtx)
		// The candidates' worktrees go: what they did is in the records.
		// After a stop asked for (Ctrl-C) the run ends promptly, and what
		// the wrap-up time did not remove waits for `architect clean`.
		limit := candidatesRemoval
		if ctx.Err() != nil {
			limit = wrapUp
		}
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), limit)
		r.removeCandidates(cctx)
		cancel()
		// The last record on disk before the run says it ended; one that
		// could not reach it stops the run as an error, whatever else was
		// decided.
		if ok, s := r.synced(); !ok && s != nil {
			why = s
		}
		if err := recs.Close(); err != nil {
			r.warn("closing the iteration records: " + err.Error())
		}
	}
	r.finish(why)
	return r.res, nil
}

// setup is the setup step of a run in a new worktree (worktreesetup.go
// runs the command): the state records how it went, and what the setup
// made (node_modules, .venv) becomes the environment the clean last look
// brings in, as if it had been there at the start. It returns why the run
// stops before any agent starts, or nil.
func (r *runner) setup(ctx, runCtx context.Context) *stop {
	if !r.setupDue() {
		return nil
	}
	r.save("setup")
	rec, s := r.runSetup(ctx, runCtx)
	r.st.Setup = &rec
	if s != nil {
		r.save("setup_failed")
		return s
	}
	r.st.EnvAtStart = envAtStart(runCtx, r.cfg, r.ws)
	r.save("setup_done")
	return nil
}

// finish puts the stop on the result, completes the result from the
// state and the records, and saves both: the result first, since once
// the state says the run ended (succeeded: not resumable), its result
// must be there.
func (r *runner) finish(why *stop) {
	if why != nil {
		r.res.StopReason, r.res.StopDetail = why.reason, r.deps.Redact(why.detail)
		if why.hint != "" {
			r.res.StopHint = why.hint
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
	if why != nil && why.look != nil {
		r.res.FinalCheck = why.look
	}
	if err := runlog.WriteJSON(r.ws.state(runlog.ResultFile), r.res); err != nil {
		r.warn("could not save the result: " + err.Error())
	}
	r.recount()
	r.st.Active = false
	r.st.Status = finalStatus(r.res.StopReason)
	r.st.StopReason, r.st.StopDetail = r.res.StopReason, r.res.StopDetail
	r.save(runlog.PhaseFinished)
	r.logEvent("DONE", "loop finished: %s after %d iteration%s", r.res.StopReason, r.res.TotalIterations, plural(r.res.TotalIterations))
	r.ev.Emit(runlog.Event{Type: runlog.EventLoopFinished, Iteration: r.res.TotalIterations, Success: ptr(r.res.Success),
		StopReason: r.res.StopReason, StopDetail: r.res.StopDetail, TotalIterations: ptr(r.res.TotalIterations),
		TotalCost: r.res.TotalCost, KnownCost: ptr(r.res.KnownCost), Duration: ptr(r.res.TotalDuration), NoChecks: r.res.NoChecks,
		Hint: r.res.StopHint})
}

// run is the loop proper: before each iteration, the reasons to stop or
// to hold (a stop or a pause asked, the limits, the DONE file, no agent
// free); then the iteration. It returns why the run stops.
func (r *runner) run(ctx, runCtx context.Context) *stop {
	if n := len(r.records); n > 0 && r.records[n-1].CompletionSignal != "" {
		// A resumed run that was killed after recording its successful
		// last iteration, before saving that it had succeeded.
		return stopAt(successReason(r.cfg), "")
	}
	for {
		i := len(r.records) + 1
		// A stop asked during a pause ends the pause: it is looked for again.
		if s := r.stopped(ctx, runCtx); s != nil {
			return s
		}
		if s := r.stopAsked(); s != nil {
			return s
		}
		if s := r.pause(ctx, runCtx); s != nil {
			return s
		}
		if s := r.stopAsked(); s != nil {
			return s
		}
		if s := r.limitReached(i); s != nil {
			return s
		}
		if s := r.between(ctx, i); s != nil {
			return s
		}
		if s := r.awaitAnswer(ctx, runCtx); s != nil {
			return s
		}
		if s := r.doneBeforeIteration(runCtx); s != nil {
			return s
		}
		p, s := r.pickAgent(ctx, runCtx)
		if s != nil {
			return s
		}
		if p == again {
			continue // a pause or a note cut a wait short: look again
		}
		if s := r.iterate(ctx, runCtx, i); s != nil {
			return s
		}
	}
}

// iterate runs iteration i through its steps and returns why the run
// stops, or nil to go on. An interrupted iteration (Ctrl-C, SIGTERM,
// --max-time, --max-cost, a note for now) is recorded like any other,
// then the loop stops for its reason (or, for a note, goes on at once).
func (r *runner) iterate(ctx, runCtx context.Context, i int) *stop {
	x := r.newIteration(i)
	r.st.Iteration = i
	r.st.LastIterationAt = stamp(x.began)

	// The prompt. The last record is on disk before the agent starts (its
	// start writes the inflight file again).
	s := r.writePrompt(ctx, runCtx, x, r.last)
	r.last.diff = nil // the prompt took it
	if s != nil {
		return s
	}
	if ok, s := r.synced(); !ok {
		return orStop(s)
	}

	// The attempt: the agent, then the checks; or a round of candidates,
	// each one an attempt, the one kept standing for the iteration.
	if r.candidatesOn() {
		r.round(ctx, runCtx, x)
	} else {
		r.attempt(ctx, runCtx, x)
	}
	if x.halt != nil {
		return x.halt
	}
	r.last.lessons = x.lessons
	r.last.protectNote = protectNote(i, x.rec.ProtectedRestored)
	r.last.judgeNote = judgeNote(i, x.rec.JudgeChanged)
	r.last.diff = x.diff
	r.last.patch, r.last.patchKnown = x.patch, x.patchKnown
	switch {
	case x.refused:
		// The same iteration again, on the next agent or after the wait: a
		// usage limit is not an iteration.
		s := r.limitHit(x.o)
		r.saveSlots()
		return s
	case x.rec.Interrupted != "":
		if s := r.record(runCtx, x); s != nil {
			return s
		}
		if x.rec.Interrupted == runlog.InterruptNote {
			return nil
		}
		return r.interruptStop(ctx, runCtx, x.rec)
	}
	if x.o.ErrKind != agent.ErrUsageLimit {
		r.agent().Guesses = 0
	}

	// The verdict, the record, the decision.
	r.verdict(runCtx, x)
	if s := r.record(runCtx, x); s != nil {
		return s
	}
	return r.act(runCtx, x, r.decide(x))
}

// record writes the iteration's record (the record step) and brings the
// run's state up to date with it: from then on the iteration counts as
// done.
func (r *runner) record(gitCtx context.Context, x *iteration) *stop {
	rec, err := r.writeRecord(gitCtx, x.rec, r.st.LastCommit)
	x.rec = rec
	if err != nil {
		return stopAt(runlog.StopError, "could not record iteration "+fmt.Sprint(rec.Iteration.Iteration)+": "+err.Error())
	}
	// On its way to the disk: what a resume would rebuild it from goes once
	// it is there (synced).
	r.unsynced = rec.Record
	r.notesRecorded(rec) // delivered: never taken again
	if rec.Answer != "" {
		r.st.Question = nil // the answer (or its absence) was delivered
	}
	r.records = append(r.records, rec)
	r.res.Add(rec.Iteration)
	r.last = r.last.after(rec)
	if err := r.progressAdd(rec); err != nil {
		r.warn("could not update the progress file: " + err.Error())
	}
	r.recount()
	r.save(runlog.PhaseRecorded)
	r.ev.Emit(rec.Iteration.FinishedEvent())
	return nil
}

// act carries out the decision on a recorded iteration: a stall is
// recorded and reacted to, an agent at its usage limit or in an outage is
// set aside, a failure is waited out. It returns why the run stops, or
// nil to go on.
func (r *runner) act(runCtx context.Context, x *iteration, d decision) *stop {
	if d.stop != nil {
		return d.stop
	}
	if d.question {
		r.ask(x) // the next iteration waits for the answer
		return nil
	}
	if d.stall != nil {
		if s := r.stalled(*d.stall); s != nil {
			return s
		}
	}
	switch {
	case d.limit:
		// The run did some work, then met the usage limit: recorded, and
		// waited out (or the next agent takes over) like any usage limit.
		s := r.limitHit(x.o)
		r.saveSlots()
		return s
	case d.outage > 0:
		r.fallBack(x.o, d.outage) // the next iteration runs on another agent, at once
		r.saveSlots()
	case d.backoff > 0:
		return r.backoff(runCtx, x.rec, x.o, d.backoff)
	}
	return nil
}

// stalled records a stall and reacts to it as --on-stall says: stop,
// fall back to the next agent, or pause.
func (r *runner) stalled(st runlog.Stall) *stop {
	r.st.Stalls = append(r.st.Stalls, st)
	r.st.StallSince = st.Iteration // the count starts again after a reaction
	r.announceStall(st)
	switch st.Action {
	case config.StallFallback:
		r.logf("stalled on %s: %s; falling back", r.agent().Agent, st.Detail)
		r.setAside(time.Time{}, false, runlog.SwitchStall, true)
		r.saveSlots()
		return nil
	case config.StallPause:
		r.st.PausedFor = "stall: " + st.Detail
		r.logf("stalled: %s. Paused: tell the agent what to do with `architect say \"…\"` (the loop goes on with your note), or `architect resume` / `architect cancel`", st.Detail)
		if err := runlog.WriteControl(r.ws.dir, "pause"); err != nil {
			return stopAt(runlog.StopStalled, st.Detail+" (and the loop could not pause: "+err.Error()+")")
		}
		return nil
	}
	return stopAt(runlog.StopStalled, st.Detail)
}

// pause holds the loop while a pause is requested: by `architect pause`,
// or by the loop itself on a stall (--on-stall pause), when a note
// (`architect say`) also ends the pause. It returns why the run stops
// (cancelled or out of time while paused), or nil.
func (r *runner) pause(ctx, runCtx context.Context) *stop {
	if !r.ws.pauseRequested() {
		return nil
	}
	r.st.Status = runlog.StatusPaused
	r.last.diff = nil // the user may change files while the loop is paused
	r.save("paused")
	reason, detail := "asked", "`architect pause`"
	if r.st.PausedFor != "" {
		reason, detail = "stall", r.st.PausedFor
	}
	r.logf("paused: the loop waits for `architect resume`")
	r.emitPaused(reason, detail)
	if !r.holdPaused(runCtx, r.st.PausedFor != "") {
		return r.stopped(ctx, runCtx)
	}
	r.st.Status, r.st.PausedFor = runlog.StatusRunning, ""
	r.save("resumed")
	r.logf("resumed")
	r.emitResumed()
	return nil
}

// What pickAgent did.
type pick int

const (
	picked pick = iota // the next iteration runs on r.agent()
	again              // a wait ended early (a pause or a note): look again from the top of the loop
)

// pickAgent chooses the agent of the next iteration: the first free one,
// going back to an earlier agent once it is free again. When none is
// free, it waits for the one that frees first (counted and bounded as a
// usage-limit wait). It returns why the run stops instead, if it does.
func (r *runner) pickAgent(ctx, runCtx context.Context) (pick, *stop) {
	for {
		if next := r.firstFree(r.deps.Now()); next != nil {
			if next != r.agent() {
				r.st.Switches = append(r.st.Switches, r.switchTo(next))
				r.saveSlots()
				r.save("agent_switched")
			}
			next.Reason, next.Exact, next.Until, next.until = "", false, "", time.Time{}
			r.saveSlots()
			return picked, nil
		}
		wait := r.nextFree()
		if wait == nil {
			return picked, stopAt(runlog.StopStalled, "every agent of the run stalled ("+r.labels()+"): none is left to fall back on")
		}
		switch end, s := r.waitForAgent(ctx, runCtx, wait); end {
		case waitStopped:
			return picked, s
		case waitCut:
			return again, nil
		}
	}
}

// waitForAgent waits until agent s is free again, when no agent of the
// run is: a usage-limit wait, without counting an error. The waits are
// counted in the state and bounded: they count against --max-time (a wait
// that would pass the deadline stops the run at once), and their total
// over the run may not pass max_usage_wait.
func (r *runner) waitForAgent(ctx, runCtx context.Context, s *slot) (waitEnd, *stop) {
	d := max(s.until.Sub(r.deps.Now()), time.Second)
	waited := time.Duration(r.st.UsageLimitWaited * float64(time.Second))
	if why := r.usageWaitRefused(runCtx, d, waited); why != nil {
		return waitStopped, why
	}
	until := r.deps.Now().Add(d)
	ev := r.announceUsageWait(s, d, until, waited, r.st.UsageLimitWaits+1)
	r.st.WaitUntil = stamp(until)
	r.save("usage_limit_wait")
	r.ev.Emit(ev)
	began := r.deps.Now()
	end := r.wait(runCtx, d)
	took := r.deps.Now().Sub(began)
	r.st.WaitUntil = ""
	r.st.UsageLimitWaits++
	r.st.UsageLimitWaited += took.Seconds()
	r.st.Waits = appendWait(r.st.Waits, runlog.Wait{Iteration: len(r.records) + 1, Agent: s.Agent, Seconds: took.Seconds(), Until: stamp(until), Exact: s.Exact,
		ResetAt: ev.ResetAt, Cut: end == waitCut})
	r.save("usage_limit_waited")
	return end, r.usageWaitEnded(ctx, s, end)
}

// maxWaitsKept bounds the waits the state keeps (the counts cover all).
const maxWaitsKept = 100

func appendWait(ws []runlog.Wait, w runlog.Wait) []runlog.Wait {
	ws = append(ws, w)
	if n := len(ws); n > maxWaitsKept {
		ws = slices.Delete(ws, 0, n-maxWaitsKept)
	}
	return ws
}

// saveSlots copies the agents' state into the run's state.
func (r *runner) saveSlots() {
	r.st.Agent = r.agent().Agent
	if !r.hasFallback() && r.agent().Reason == "" {
		r.st.Agents = nil
		return
	}
	r.st.Agents = r.st.Agents[:0]
	for _, s := range r.slots {
		r.st.Agents = append(r.st.Agents, s.AgentSlot)
	}
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
//
// It writes the file, not the state in memory: a step that saves (a wait
// announcing itself) changes nothing the loop holds.
func (r *runner) save(phase string) {
	s := r.sessionState()
	s.Phase, s.PID = phase, os.Getpid()
	write := runlog.WriteJSONQuick
	if phase == runlog.PhaseStarting || phase == runlog.PhaseFinished {
		write = runlog.WriteJSON
	}
	if err := write(r.ws.state(runlog.StateFile), s); err != nil {
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

// The question's state is the run's, written here: ask keeps it,
// awaitAnswer waits for its answer (question.go has the rest).

// ask is the decision on an iteration whose agent asked a question: the
// run's state keeps it, and the loop waits for the answer before the next
// iteration (awaitAnswer).
func (r *runner) ask(x *iteration) {
	r.st.Question = &runlog.Question{Iteration: x.n, Text: x.rec.Question, AskedAt: stamp(r.deps.Now())}
}

// awaitAnswer waits for the answer to the question the run keeps, if one
// waits: it returns nil once the answer came (or none came and the run
// goes on), or why the run stops.
func (r *runner) awaitAnswer(ctx, runCtx context.Context) *stop {
	q := r.st.Question
	if q == nil || q.Outcome != runlog.QuestionWaiting {
		return nil
	}
	until, err := time.Parse(time.RFC3339, q.Until)
	if err != nil {
		until = r.deps.Now().Add(r.cfg.QuestionTimeout)
		q.Until = stamp(until)
	}
	r.st.Status = runlog.StatusWaiting
	r.save("question")
	r.logEvent("QUESTION", "iteration %d asks: %s", q.Iteration, runlog.Clip(runlog.FirstLine(q.Text), 200))
	r.logf("iteration %d: the agent asks: %q. Waiting until %s for `architect answer \"…\"`", q.Iteration,
		runlog.Clip(runlog.FirstLine(q.Text), 200), until.Local().Format("15:04:05"))
	r.ev.Emit(runlog.Event{Type: runlog.EventQuestion, Iteration: q.Iteration, Text: q.Text, Until: q.Until,
		Seconds: ptr(max(until.Sub(r.deps.Now()), 0).Seconds())})
	for {
		if a, ok := runlog.ReadAnswer(r.ws.dir, q.Iteration); ok {
			q.Outcome, q.Answer, q.Via, q.AnsweredAt = runlog.QuestionAnswered, r.cleanText(strings.TrimSpace(a.Text)), a.Via, stamp(r.deps.Now())
			_ = os.Remove(r.ws.state(runlog.AnswerFile))
			r.st.Status = runlog.StatusRunning
			r.save("answered")
			r.logf("answer received (%s): the prompt of iteration %d carries it", a.Via, len(r.records)+1)
			r.ev.Emit(runlog.Event{Type: runlog.EventAnswered, Iteration: q.Iteration, Text: q.Answer, Reason: a.Via})
			return nil
		}
		if s := r.stopped(ctx, runCtx); s != nil {
			return s // the question still waits: a resume waits for it again
		}
		if s := r.stopAsked(); s != nil {
			return s
		}
		left := until.Sub(r.deps.Now())
		if left <= 0 {
			return r.unanswered(q)
		}
		_ = r.deps.Sleep(runCtx, min(left, pollEvery)) // an end of runCtx is looked at above
	}
}

// unanswered is what follows a question no answer came to in time.
func (r *runner) unanswered(q *runlog.Question) *stop {
	q.Outcome = runlog.QuestionTimedOut
	r.ev.Emit(runlog.Event{Type: runlog.EventQuestionTimeout, Iteration: q.Iteration, Text: q.Text})
	wait := config.FormatDuration(r.cfg.QuestionTimeout)
	if r.cfg.OnQuestionTimeout == config.QuestionContinue {
		r.st.Status = runlog.StatusRunning
		r.save("question_timeout")
		r.logf("no answer to the question of iteration %d within %s: going on, the next prompt says so", q.Iteration, wait)
		return nil
	}
	r.logf("no answer to the question of iteration %d within %s: stopping", q.Iteration, wait)
	return stopAt(runlog.StopQuestion, fmt.Sprintf("no answer to the question of iteration %d within %s; answer it with `architect answer \"…\"`, then continue with `architect loop --resume`", q.Iteration, wait))
}
