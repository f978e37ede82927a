package cli

import (
	"flag"
	"testing"

	"github.com/architect-dev/architect/internal/testutil"

	"github.com/architect-dev/architect/runlog"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	testutil.Golden(t, name, got, *update)
}

func ptrTo[T any](v T) *T { return &v }

// ordinaryIteration is an iteration of a run without candidates, with
// most of what show prints of one.
func ordinaryIteration() *runlog.Iteration {
	return &runlog.Iteration{Iteration: 2, Agent: "claude", Model: "sonnet", Cost: ptrTo(0.52), Duration: 96, AgentDuration: 90, ChecksDuration: 6,
		StepsTaken: 14, Tokens: &runlog.Tokens{Input: 1200, CachedInput: 800, Output: 300}, CompletionSignal: "tag", Commit: "0123456789abcdef",
		ChecksRun: true, CheckResults: []runlog.CheckResult{{Name: "go test ./...", Passed: true, Duration: 4}, {Name: "go vet ./...", ExitCode: 1, Duration: 2}},
		DiffStat: " a.go | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)"}
}

// What show prints of an iteration of a run without candidates is what
// it printed before candidates existed (the golden file was written
// then).
func TestShowWithoutCandidatesUnchanged(t *testing.T) {
	it := ordinaryIteration()
	golden(t, "show_no_candidates.txt", summary(2, it, false)+"\n"+checksSummary(it))
}
