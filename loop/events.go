package loop

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/runlog"
)

// agent_activity events are bounded by a bucket of activityBurst that
// refills one every activityEvery: a fast agent's burst of steps (a tool
// call, its result and the text after it within a few milliseconds) all
// pass, while an agent printing without end gets at most one line every
// activityEvery, and a line saying how many were skipped (its transcript
// keeps them all). The adapters report steps, not deltas, and a command
// agent's output is sampled at the source, faster than this refills.
const (
	activityEvery = 50 * time.Millisecond
	activityBurst = 64
)

// emitter writes events to the run's event log and hands them to the
// caller's observer (live display, --events -). Safe for concurrent use:
// checks finish concurrently. What it is given is already clean (see
// harden.go): it writes it as it is.
type emitter struct {
	mu       sync.Mutex
	f        *os.File
	observe  func(runlog.Event)
	now      func() time.Time
	lastAct  time.Time
	tokens   float64 // the activity lines that may be emitted now
	skipped  int     // activity lines dropped since the last emitted
	warnOnce sync.Once
	warn     func(string)
}

func newEmitter(path string, observe func(runlog.Event), now func() time.Time, warn func(string)) *emitter {
	e := &emitter{observe: observe, now: now, warn: warn}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		warn("cannot write the event log: " + err.Error())
	} else {
		e.f = f
	}
	return e
}

func (e *emitter) emit(ev runlog.Event) {
	if e == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	ev.Time = e.now().UTC().Format(time.RFC3339Nano)
	if e.f != nil {
		data, _ := json.Marshal(ev)
		if _, err := e.f.Write(append(data, '\n')); err != nil {
			e.warnOnce.Do(func() { e.warn("cannot write the event log: " + err.Error()) })
		}
	}
	if e.observe != nil {
		e.observe(ev)
	}
}

// activity emits agent_activity at most every activityEvery; clean makes
// the agent's text safe (the boundary where it enters).
func (e *emitter) activity(iteration int, text string, clean func(string) string) {
	if e == nil {
		return
	}
	e.mu.Lock()
	now := e.now()
	if e.lastAct.IsZero() {
		e.tokens = activityBurst
	} else {
		e.tokens = min(activityBurst, e.tokens+float64(now.Sub(e.lastAct))/float64(activityEvery))
	}
	e.lastAct = now
	if e.tokens < 1 {
		e.skipped++
		e.mu.Unlock()
		return
	}
	e.tokens--
	skipped := e.skipped
	e.skipped = 0
	e.mu.Unlock()
	if skipped > 0 {
		e.emit(runlog.Event{Type: runlog.EventAgentActivity, Iteration: iteration, Text: fmt.Sprintf("… %d line%s of activity skipped (the transcript has them)", skipped, map[bool]string{true: "s"}[skipped != 1])})
	}
	// Cleaned here, after the bound, not for every line the agent prints.
	e.emit(runlog.Event{Type: runlog.EventAgentActivity, Iteration: iteration, Text: clip(strings.TrimSpace(clean(text)), maxProgressLine)})
}

func (e *emitter) close() {
	if e != nil && e.f != nil {
		e.f.Close()
	}
}

func ptr[T any](v T) *T { return &v }

func agentFinished(i int, o agent.Outcome) runlog.Event {
	ev := runlog.Event{Type: runlog.EventAgentFinished, Iteration: i, ExitCode: ptr(o.ExitCode), Steps: o.Steps,
		Duration: ptr(o.Duration.Seconds()), Error: o.Err, ErrorKind: string(o.ErrKind)}
	if o.CostKnown {
		ev.Cost = ptr(o.Cost)
	}
	if o.Usage != (agent.Usage{}) {
		ev.Tokens = &runlog.Tokens{Input: o.Usage.Input, CachedInput: o.Usage.CachedInput, Output: o.Usage.Output}
	}
	return ev
}

func checkFinished(i, index int, c runlog.CheckResult) runlog.Event {
	return runlog.Event{Type: runlog.EventCheckFinished, Iteration: i, Check: c.Name, Index: ptr(index), Passed: ptr(c.Passed),
		ExitCode: ptr(c.ExitCode), TimedOut: c.TimedOut, Duration: ptr(c.Duration)}
}

func iterationFinished(it runlog.Iteration) runlog.Event {
	return runlog.Event{Type: runlog.EventIterationFinished, Iteration: it.Iteration, AllChecksPassed: ptr(it.AllChecksPassed),
		CompletionTagFound: ptr(it.CompletionTagFound), CompletionSignal: it.CompletionSignal, Cost: it.Cost,
		Duration: ptr(it.Duration), AgentDuration: ptr(it.AgentDuration), ChecksDuration: ptr(it.ChecksDuration), Commit: it.Commit,
		ChecksRun: ptr(it.ChecksRun), Interrupted: it.Interrupted, Diff: it.Diff, JudgeChanged: it.JudgeChanged, TestsRemoved: it.TestsRemoved,
		FinalCheck: it.FinalCheck}
}
