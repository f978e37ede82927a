package tui

import (
	"strings"
	"testing"

	"github.com/architect-dev/architect/runlog"
	"github.com/matryer/is"
)

// An iteration whose agent changed how a check is judged says so in the
// history: the file, and whether it was undone or kept (--judge warn),
// from the live event as from the records.
func TestHistoryShowsJudgeChanged(t *testing.T) {
	is := is.New(t)
	f := newFake(Info{Task: "t", Agent: "claude"}, Controls{}, nil)
	chk := []string{"sh check.sh"}
	f.ev(runlog.Event{Type: runlog.EventLoopStarted, MaxIterations: 25, Checks: chk})
	f.ev(runlog.Event{Type: runlog.EventIterationStarted, Iteration: 1, MaxIterations: 25})
	f.ev(runlog.Event{Type: runlog.EventIterationFinished, Iteration: 1, AllChecksPassed: ptr(false), Duration: ptr(1.0),
		JudgeChanged: []runlog.JudgeChange{{File: "check.sh", Checks: chk}}})
	f.ev(runlog.Event{Type: runlog.EventIterationStarted, Iteration: 2, MaxIterations: 25})
	f.ev(runlog.Event{Type: runlog.EventIterationFinished, Iteration: 2, AllChecksPassed: ptr(true), Duration: ptr(1.0),
		JudgeChanged: []runlog.JudgeChange{{File: "ruff.toml", Checks: chk, Kept: true}}})
	s := f.screen()
	is.True(strings.Contains(s, "changed the judge, undone: check.sh"))
	is.True(strings.Contains(s, "changed the judge, kept: ruff.toml"))

	rows := Rows([]runlog.Iteration{{Iteration: 1, JudgeChanged: []runlog.JudgeChange{{File: "package.json"}}}})
	is.Equal(rows[0].Judge, "changed the judge, undone: package.json")
	is.True(!rows[0].JudgeKept)
}
