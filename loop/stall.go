package loop

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/runlog"
)

// A loop goes round in circles when its iterations make no progress: each
// leaves the same checks failing with the same output as the one before
// (the line-level comparison the prompt makes, with timings and addresses
// masked, since a test runner prints a new duration every time), or brings
// the changes back to a state an earlier iteration left (the agent undoing
// its own change of two iterations back). --stall-threshold such
// iterations in a row are a stall, and --on-stall says what to do: stop,
// go on with the next fallback agent, or pause and wait for the person
// (architect say, or architect resume).
//
// An iteration that changes different lines while the same check keeps
// failing for a new reason made progress: its output changed. An agent
// failure, an interrupted iteration and one whose checks passed are no
// stall either: each ends the count.

// circling says whether records[i] made no progress, and how: the same
// failures as records[i-1], or a tree an earlier iteration (before the
// one just before) or the run's start left. "" means it made progress (or
// cannot be judged).
func circling(records []record, i int, initialTree string) string {
	rec := records[i]
	if rec.Failed || rec.Interrupted != "" || !rec.ChecksRun || rec.AllChecksPassed || failingCount(rec.CheckResults) == 0 {
		return ""
	}
	if rec.Tree != "" && (i == 0 || rec.Tree != records[i-1].Tree) {
		seen := rec.Tree == initialTree && i > 0
		for j := 0; j < i-1 && !seen; j++ {
			seen = records[j].Tree == rec.Tree
		}
		if seen {
			return runlog.StallReverted
		}
	}
	if i > 0 && records[i-1].ChecksRun && sameFailures(records[i-1].CheckResults, rec.CheckResults) {
		return runlog.StallSameFailures
	}
	return ""
}

// stallRun counts the iterations in a row at the end of the records,
// after iteration since, that made no progress; kind is reverted when one
// of them went back to an earlier state, else same_failures.
func stallRun(records []record, since int, initialTree string) (n int, kind string) {
	kind = runlog.StallSameFailures
	for i := len(records) - 1; i >= 0 && records[i].Iteration.Iteration > since; i-- {
		k := circling(records, i, initialTree)
		if k == "" {
			break
		}
		if k == runlog.StallReverted {
			kind = runlog.StallReverted
		}
		n++
	}
	return n, kind
}

func failingCount(rs []runlog.CheckResult) int {
	n := 0
	for _, c := range rs {
		if !c.Passed {
			n++
		}
	}
	return n
}

// sameFailures reports whether two iterations' checks failed alike: the
// same checks failed, with the same status and the same output, line by
// line, once timings and addresses are masked.
func sameFailures(a, b []runlog.CheckResult) bool {
	fa, fb := failedByName(a), failedByName(b)
	if len(fa) != len(fb) {
		return false
	}
	for name, x := range fa {
		y, ok := fb[name]
		if !ok || x.Status() != y.Status() || !sameOutput(x.Output, y.Output) {
			return false
		}
	}
	return true
}

func failedByName(rs []runlog.CheckResult) map[string]runlog.CheckResult {
	m := map[string]runlog.CheckResult{}
	for _, c := range rs {
		if !c.Passed {
			m[c.Name] = c
		}
	}
	return m
}

// volatile matches what changes from one run of a test to the next
// without saying anything about the code: durations ("0.003s", "1m2.5s",
// "120 ms"), clock times and timestamps, hexadecimal addresses. Other
// numbers ("Add(2, 3) = 6, want 5") are kept: they are the failure.
var volatile = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?|\b\d{1,2}:\d{2}:\d{2}(?:\.\d+)?\b|\b0x[0-9a-fA-F]{4,}\b|\b(?:\d+h)?(?:\d+m)?\d+(?:\.\d+)?\s?(?:ns|µs|us|ms|s)\b`)

// sameOutput compares two outputs whole line by whole line (go-diff's line
// mode, as the prompt does), with the volatile parts masked.
func sameOutput(a, b string) bool {
	a, b = volatile.ReplaceAllString(a, "#"), volatile.ReplaceAllString(b, "#")
	dmp := diffmatchpatch.New()
	ca, cb, _ := dmp.DiffLinesToChars(withNewline(a), withNewline(b))
	for _, d := range dmp.DiffMain(ca, cb, false) {
		if d.Type != diffmatchpatch.DiffEqual {
			return false
		}
	}
	return true
}

func withNewline(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

// stallSeen says whether the last iterations went round in circles
// (--stall-threshold in a row), and what --on-stall says to do about it:
// stop, fall back to the next agent, or pause. nil when they did not.
func (r *runner) stallSeen() *runlog.Stall {
	limit := r.cfg.StallThreshold
	if limit <= 0 {
		return nil
	}
	n, kind := stallRun(r.records, r.st.StallSince, r.st.InitialTree)
	if n < limit {
		return nil
	}
	what := fmt.Sprintf("%d iteration%s in a row left the same checks failing with the same output", n, plural(n))
	if kind == runlog.StallReverted {
		what = fmt.Sprintf("%d iteration%s in a row made no progress, going back to changes an earlier iteration had left (the agent undid its own work)", n, plural(n))
	}
	action := r.cfg.OnStall
	if action == "" {
		action = config.StallStop
	}
	if action == config.StallFallback && !r.otherAgentLeft() {
		action = config.StallStop
		what += ", and no agent is left to fall back on"
	}
	return &runlog.Stall{Iteration: len(r.records), Kind: kind, Iterations: n, Agent: r.agent().Agent, Action: action, Detail: what}
}

// announceStall tells of a stall: a line of the iterations log, an event.
func (r *runner) announceStall(st runlog.Stall) {
	r.logEvent("STALL", "iteration %d: %s (%s)", st.Iteration, st.Detail, st.Action)
	r.ev.Emit(runlog.Event{Type: runlog.EventStall, Iteration: st.Iteration, StallKind: st.Kind, Count: st.Iterations, Action: st.Action, Detail: st.Detail})
}
