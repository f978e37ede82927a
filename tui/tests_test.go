package tui

import (
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/runlog"
)

// An iteration that removed tests of the run's start says so in the
// history, live and from the records, and is marked failed when it failed
// for it.
func TestHistoryShowsRemovedTests(t *testing.T) {
	is := is.New(t)
	f := newFake(Info{Task: "fix it", Agent: "claude"}, Controls{}, nil)
	f.ev(runlog.Event{Type: runlog.EventLoopStarted, MaxIterations: 25, Checks: []string{"go test ./..."}})
	f.ev(runlog.Event{Type: runlog.EventIterationStarted, Iteration: 1, MaxIterations: 25})
	f.ev(runlog.Event{Type: runlog.EventIterationFinished, Iteration: 1, AllChecksPassed: ptr(true), Cost: ptr(0.1), Duration: ptr(10.0),
		TestsRemoved: &runlog.TestsRemoved{Files: []string{"calc_test.go"}, Tests: []string{"calc_test.go: TestAdd", "calc_test.go: TestSub"}, Count: 2, Failed: true}})
	f.ev(runlog.Event{Type: runlog.EventIterationStarted, Iteration: 2, MaxIterations: 25})
	f.ev(runlog.Event{Type: runlog.EventIterationFinished, Iteration: 2, AllChecksPassed: ptr(true), Cost: ptr(0.1), Duration: ptr(10.0),
		TestsRemoved: &runlog.TestsRemoved{Tests: []string{"calc_test.go: TestAdd"}, Count: 1}})
	s := f.screen()
	is.True(strings.Contains(s, "#1  ✗ 0/1"))
	is.True(strings.Contains(s, "2 tests removed"))
	is.True(strings.Contains(s, "#2  ✓ 0/1"))
	is.True(strings.Contains(s, "1 test removed"))

	rows := Rows([]runlog.Iteration{{Iteration: 1, TestsRemoved: &runlog.TestsRemoved{Count: 3, Failed: true}}})
	is.Equal(rows[0].TestsRemoved, 3)
	is.True(rows[0].TestsFailed)
}
