package tui

// This file (with candidates.go and candplain.go) is where the terminal UI
// depends on the loop's types: the events it is fed (runlog.Event) and the iteration records a
// resumed run starts from (runlog.Iteration). Everything else in the package
// works on its own types (run, Row, check).

import (
	"fmt"
	"strings"
	"time"

	"github.com/architect-dev/architect/runlog"
)

// Rows turns iteration records into history rows.
func Rows(its []runlog.Iteration) []Row {
	rows := make([]Row, 0, len(its))
	for _, it := range its {
		row := Row{N: it.Iteration, Duration: it.Duration, Agent: it.AgentDuration, Checks: it.ChecksDuration,
			Cost: it.Cost, Total: len(it.CheckResults), ChecksRun: len(it.CheckResults) > 0, AllPassed: it.AllChecksPassed,
			Completion: it.CompletionSignal, Commit: it.Commit, Interrupted: it.Interrupted}
		if it.CompletionTagFound && it.CompletionSignal == "" {
			row.Declared = "tag"
		}
		row.Judge, row.JudgeKept = judgeText(it.JudgeChanged)
		if fc := it.FinalCheck; fc != nil {
			row.FinalFailed, row.FinalText = fc.Failed(), fc.Text()
		}
		if it.Agent != "" {
			row.Ran = label(it.Agent, it.Model)
		}
		for _, c := range it.CheckResults {
			if c.Passed {
				row.Passing++
			}
		}
		if it.Error != nil {
			row.Error = *it.Error
		}
		if d := it.Diff; d != nil {
			row.Added, row.Deleted, row.Files, row.DiffKnown = d.Added, d.Deleted, d.Files, true
		}
		if t := it.TestsRemoved; t != nil {
			row.TestsRemoved, row.TestsFailed = t.Count, t.Failed
		}
		row.Kept, row.Candidates = keptOf(it.Candidates)
		rows = append(rows, row)
	}
	return rows
}

// eventMsg carries a loop event into the model.
type eventMsg struct{ ev runlog.Event }

func (r *run) applyMsg(m eventMsg, now time.Time) { r.apply(m.ev, now) }

// eventTime is when ev happened, or now when its time cannot be read.
func eventTime(ev runlog.Event, now time.Time) time.Time {
	if t, err := time.Parse(time.RFC3339Nano, ev.Time); err == nil {
		return t
	}
	return now
}

// runHandlers holds what each kind of event does to the run; the kinds
// the view does not show are not in it.
var runHandlers = map[string]func(r *run, ev runlog.Event, t time.Time){
	runlog.EventLoopStarted:       (*run).loopStarted,
	runlog.EventIterationStarted:  (*run).iterationStarted,
	runlog.EventCandidateStarted:  (*run).candidateStarted,
	runlog.EventCandidateFinished: (*run).candidateFinished,
	runlog.EventAgentActivity:     (*run).agentActivity,
	runlog.EventAgentFinished:     (*run).agentFinished,
	runlog.EventCheckStarted:      (*run).checkStarted,
	runlog.EventCheckFinished:     (*run).checkFinished,
	runlog.EventIterationFinished: (*run).iterationFinished,
	runlog.EventAgentSwitched:     (*run).agentSwitched,
	runlog.EventBackoff:           (*run).waiting,
	runlog.EventUsageLimitWait:    (*run).waiting,
	runlog.EventPaused:            (*run).loopPaused,
	runlog.EventResumed:           (*run).loopResumed,
	runlog.EventLoopFinished:      (*run).loopFinished,
}

// apply updates the run with one event.
func (r *run) apply(ev runlog.Event, now time.Time) {
	t := eventTime(ev, now)
	if r.start.IsZero() {
		r.start, r.phaseStart = t, t
	}
	if h := runHandlers[ev.Type]; h != nil {
		h(r, ev, t)
	}
}

// setPhase says the run entered phase p at t.
func (r *run) setPhase(p string, t time.Time) { r.phase, r.phaseStart = p, t }

// loopStarted takes the run's settings and its list of checks.
func (r *run) loopStarted(ev runlog.Event, _ time.Time) {
	if ev.MaxIterations > 0 {
		r.info.MaxIterations = ev.MaxIterations
	}
	if ev.Agent != "" && r.info.Agent == "" {
		r.info.Agent = ev.Agent
	}
	if ev.Branch != "" {
		r.info.Branch = ev.Branch
	}
	if ev.Workspace != "" && r.info.Workspace == "" {
		r.info.Workspace = ev.Workspace
	}
	r.iteration = ev.Iteration
	r.checks = r.checks[:0]
	for _, c := range ev.Checks {
		r.checks = append(r.checks, check{name: clean(c)})
	}
}

// iterationStarted resets what one iteration shows and starts the agent's phase.
func (r *run) iterationStarted(ev runlog.Event, t time.Time) {
	r.iteration = ev.Iteration
	if ev.MaxIterations > 0 {
		r.info.MaxIterations = ev.MaxIterations
	}
	if ev.Agent != "" {
		r.agent = label(ev.Agent, ev.Model)
	}
	r.iterCost, r.steps, r.paused, r.round = 0, 0, false, nil
	for i, c := range r.checks {
		r.checks[i] = check{name: c.name, lastFail: c.lastFail, failing: c.failing}
	}
	r.activity.add(divider(ev.Iteration))
	r.setPhase(phaseAgent, t)
}

// agentActivity adds the agent's non-empty lines to the activity pane.
func (r *run) agentActivity(ev runlog.Event, _ time.Time) {
	who := candidatePrefix(ev) // a round's agents share the pane
	for _, l := range cleanLines(ev.Text) {
		if l != "" {
			r.activity.add(who + l)
		}
	}
}

// agentFinished takes the agent's cost, steps and error; the checks' phase
// starts when there are checks.
func (r *run) agentFinished(ev runlog.Event, t time.Time) {
	if r.candidateChecking(ev) {
		return
	}
	if ev.Cost != nil {
		r.iterCost = *ev.Cost
	}
	r.steps = ev.Steps
	if ev.Error != "" {
		r.activity.add("error: " + clean(firstLine(ev.Error)))
	}
	if len(r.checks) > 0 {
		r.setPhase(phaseChecks, t)
	}
}

// checkStarted marks a check running.
func (r *run) checkStarted(ev runlog.Event, t time.Time) {
	if r.candidateChecking(ev) {
		return
	}
	if c := r.check(ev); c != nil {
		c.state, c.started = checkRunning, t
	}
	if r.phase != phaseChecks {
		r.setPhase(phaseChecks, t)
	}
}

// checkFinished marks a check passed or failed, with its duration and exit.
func (r *run) checkFinished(ev runlog.Event, _ time.Time) {
	if ev.Candidate != nil { // a candidate's check: its record says how its checks went
		return
	}
	c := r.check(ev)
	if c == nil {
		return
	}
	if ev.Passed != nil && *ev.Passed {
		c.state, c.failing = checkPassed, false
		r.passing[ev.Iteration]++
	} else {
		c.state, c.failing, c.lastFail = checkFailed, true, ev.Iteration
	}
	if ev.Duration != nil {
		c.duration = *ev.Duration
	}
	if ev.ExitCode != nil {
		c.exit = *ev.ExitCode
	}
	c.timedOut = ev.TimedOut
}

// iterationFinished adds the iteration's row to the history.
func (r *run) iterationFinished(ev runlog.Event, t time.Time) {
	row := Row{N: ev.Iteration, Cost: ev.Cost, Completion: ev.CompletionSignal, Commit: ev.Commit,
		Passing: r.passing[ev.Iteration], Total: len(r.checks), Interrupted: ev.Interrupted, Ran: r.agent}
	delete(r.passing, ev.Iteration)
	if ev.CompletionTagFound != nil && *ev.CompletionTagFound && ev.CompletionSignal == "" {
		row.Declared = "tag"
	}
	row.Judge, row.JudgeKept = judgeText(ev.JudgeChanged)
	row.AllPassed = ev.AllChecksPassed != nil && *ev.AllChecksPassed
	row.ChecksRun = ev.ChecksRun == nil && row.Total > 0 || ev.ChecksRun != nil && *ev.ChecksRun
	row.Duration, row.Agent, row.Checks = value(ev.Duration), value(ev.AgentDuration), value(ev.ChecksDuration)
	if d := ev.Diff; d != nil {
		row.Added, row.Deleted, row.Files, row.DiffKnown = d.Added, d.Deleted, d.Files, true
	}
	if tr := ev.TestsRemoved; tr != nil {
		row.TestsRemoved, row.TestsFailed = tr.Count, tr.Failed
	}
	if fc := ev.FinalCheck; fc != nil {
		row.FinalFailed, row.FinalText = fc.Failed(), fc.Text()
	}
	row.Kept, row.Candidates = keptOf(ev.Candidates)
	for _, c := range ev.Candidates {
		if !c.Kept {
			continue
		}
		// The iteration's checks are the kept candidate's.
		row.Passing, row.Total = c.ChecksPassed, c.ChecksTotal
		if c.Agent != "" {
			row.Ran = label(c.Agent, c.Model)
		}
	}
	r.roundEnded(ev)
	r.addRow(row)
	r.iterCost = 0
	r.setPhase(phaseBetween, t)
}

// agentSwitched shows the agent the run switched to, and why.
func (r *run) agentSwitched(ev runlog.Event, _ time.Time) {
	r.agent = label(ev.Agent, ev.Model)
	r.switched = fmt.Sprintf("switched from %s (%s)", clean(ev.From), strings.ReplaceAll(ev.Reason, "_", " "))
	r.switchedFor = ev.Iteration
}

// waiting starts a back-off or a wait for a usage limit, and when it ends.
func (r *run) waiting(ev runlog.Event, t time.Time) {
	r.waitFor = ""
	if ev.Agent != "" {
		r.waitFor = label(ev.Agent, ev.Model)
	}
	r.setPhase(phaseBackoff, t)
	if ev.Type == runlog.EventUsageLimitWait {
		r.setPhase(phaseUsage, t)
	}
	r.attempt = ev.Attempt
	r.until = t
	if ev.Seconds != nil {
		r.until = t.Add(time.Duration(*ev.Seconds * float64(time.Second)))
	}
}

// loopPaused marks the run paused between iterations.
func (r *run) loopPaused(_ runlog.Event, t time.Time) {
	r.paused = true
	r.setPhase(phaseBetween, t)
}

// loopResumed marks the run going on.
func (r *run) loopResumed(runlog.Event, time.Time) { r.paused = false }

// loopFinished records how the run ended.
func (r *run) loopFinished(ev runlog.Event, t time.Time) {
	r.setPhase(phaseFinished, t)
	r.finished, r.end = true, t
	r.success = ev.Success != nil && *ev.Success
	r.stopReason, r.stopDetail = ev.StopReason, clean(ev.StopDetail)
	if ev.TotalIterations != nil {
		r.iteration = *ev.TotalIterations
	}
}

// check finds the check an event is about, by index then by name.
func (r *run) check(ev runlog.Event) *check {
	if ev.Index != nil && *ev.Index >= 0 && *ev.Index < len(r.checks) {
		return &r.checks[*ev.Index]
	}
	name := clean(ev.Check)
	for i := range r.checks {
		if r.checks[i].name == name {
			return &r.checks[i]
		}
	}
	r.checks = append(r.checks, check{name: name})
	return &r.checks[len(r.checks)-1]
}

func value(f *float64) float64 {
	if f == nil {
		return 0
	}
	return *f
}

// Observe feeds one of the loop's events to the view (loop.Deps.Events).
func (l *Live) Observe(ev runlog.Event) { l.s.send(eventMsg{ev}) }

// Event feeds one of task id's loop events to the board (batch.Options.Events).
func (b *Board) Event(id string, ev runlog.Event) {
	b.s.send(boardEvent{id: id, eventMsg: eventMsg{ev}})
}

// apply updates a task's row with one of its loop's events.
func (t *task) apply(ev runlog.Event, now time.Time) {
	if t.candidate(ev) {
		return
	}
	switch ev.Type {
	case runlog.EventLoopStarted:
		if t.started.IsZero() {
			t.started = eventTime(ev, now)
		}
		t.state, t.iteration, t.max = "starting", ev.Iteration, ev.MaxIterations
		if ev.KnownCost != nil { // a resumed task: what its earlier iterations cost
			t.cost, t.costGaps = *ev.KnownCost, ev.TotalCost == nil
		}
	case runlog.EventIterationStarted:
		t.iteration, t.state, t.activity, t.iterCost = ev.Iteration, "agent", "", 0
		t.cands, t.candsDone = 0, 0
		if ev.MaxIterations > 0 {
			t.max = ev.MaxIterations
		}
	case runlog.EventAgentActivity:
		t.activity = clean(firstLine(ev.Text))
	case runlog.EventAgentFinished:
		t.state = "checks"
		if ev.Cost != nil {
			t.iterCost = *ev.Cost
		}
	case runlog.EventCheckStarted:
		t.state = "checks"
	case runlog.EventIterationFinished:
		t.state, t.iterCost = "iteration done", 0
		if ev.Cost != nil {
			t.cost += *ev.Cost
		} else {
			t.costGaps = true
		}
	case runlog.EventPaused:
		t.state = "paused"
	case runlog.EventResumed:
		t.state = "agent"
	case runlog.EventBackoff:
		t.state = "backing off"
	case runlog.EventUsageLimitWait:
		t.state = "usage limit: waiting"
		if ev.Agent != "" {
			t.state = "usage limit of " + ev.Agent + ": waiting"
		}
	case runlog.EventAgentSwitched:
		t.state = "switched to " + ev.Agent
	case runlog.EventLoopFinished:
		t.state = ev.StopReason
		t.ended = eventTime(ev, now)
	}
}

// recorded reports whether the event says an iteration's record was
// written (so what could not be loaded before may be there now).
func (m eventMsg) recorded() bool { return m.ev.Type == runlog.EventIterationFinished }
