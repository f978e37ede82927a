package tui

import (
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/architect-dev/architect/internal/testutil"

	"github.com/architect-dev/architect/runlog"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	testutil.Golden(t, name, got, *update)
}

// ordinaryRun plays a run of three iterations without candidates into f,
// the third still running.
func ordinaryRun(f *fake) {
	f.ev(runlog.Event{Type: runlog.EventLoopStarted, MaxIterations: 25, Checks: checks3, Branch: "architect/ralph-loop"})
	f.iteration(1, checks3, []bool{false, true, false}, 0.41, "Read auth.go", "Edit auth.go")
	f.iteration(2, checks3, []bool{true, true, true}, 0.52, "Bash go test ./...")
	f.ev(runlog.Event{Type: runlog.EventIterationStarted, Iteration: 3, MaxIterations: 25})
	f.ev(runlog.Event{Type: runlog.EventAgentActivity, Iteration: 3, Text: "Grep TODO"})
	f.now = f.now.Add(65 * time.Second)
}

// A run without candidates looks as it did before candidates existed:
// the screen at three sizes and the recap are the golden ones, written
// before the view knew of candidates.
func TestViewWithoutCandidatesUnchanged(t *testing.T) {
	f := newFake(Info{Task: "make the auth tests pass", Agent: "claude", Model: "sonnet", Budget: 5, MaxTime: 2 * time.Hour}, Controls{}, nil)
	ordinaryRun(f)
	var b strings.Builder
	for _, size := range [][2]int{{100, 30}, {60, 20}, {140, 40}} {
		f.size(size[0], size[1])
		b.WriteString(f.screen() + "\n====\n")
	}
	f.ev(runlog.Event{Type: runlog.EventLoopFinished, Iteration: 3, Success: ptr(false), StopReason: runlog.StopCancelled, TotalIterations: ptr(3)})
	for _, l := range f.m.recap() {
		b.WriteString(l + "\n")
	}
	golden(t, "no_candidates.screen", b.String())
}
