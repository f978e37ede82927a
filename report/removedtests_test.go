package report

import (
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/runlog"
)

// The report names the tests an iteration removed, on the iteration and,
// for the last one, in the summary; the iteration's verdict says why it
// failed.
func TestReportNamesRemovedTests(t *testing.T) {
	is := is.New(t)
	st := &runlog.State{Workspace: t.TempDir(), Status: runlog.StatusFailed, StopReason: runlog.StopMaxIterations, MaxIterations: 2}
	r := &Run{State: st, Prompts: map[int]string{}, Commits: map[int]string{}, Iterations: []runlog.Iteration{
		{Iteration: 1, TestsRemoved: &runlog.TestsRemoved{Files: []string{"old_test.go"}}},
		{Iteration: 2, AllChecksPassed: true, CompletionSignal: "", CompletionTagFound: true,
			TestsRemoved: &runlog.TestsRemoved{Files: []string{"calc_test.go"}, Tests: []string{"calc_test.go: TestAdd"}, Count: 1, Failed: true}},
	}}
	var b strings.Builder
	is.NoErr(Write(&b, r, time.Now()))
	page := b.String()
	for _, want := range []string{
		"Tests removed at the end",
		"1 test removed: the iteration failed (tests: keep); files gone: calc_test.go; tests gone: calc_test.go: TestAdd",
		"renamed or moved, every test still there; files gone: old_test.go",
		`<span class="pill bad">tests removed</span>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not say %q", want)
		}
	}
}
