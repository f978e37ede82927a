package cli

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/runlog"
	"github.com/matryer/is"
)

// The last line of a run that did not succeed is the command that goes
// on, for each way a run ends; a run that succeeded has none.
func TestNextStep(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	t.Chdir(dir)
	cfg := config.Config{MaxIterations: 25, MaxCost: 5, MaxTime: 2 * time.Hour}
	for _, tc := range []struct {
		reason, ws, want string
	}{
		{runlog.StopSuccess, dir, ""},
		{runlog.StopCancelled, dir, "go on with `architect loop --resume`"},
		{runlog.StopRequested, filepath.Join(dir, "my repo"), "go on with `architect loop --resume -C 'my repo'`"},
		{runlog.StopMaxIterations, dir, "allow more iterations with `architect loop --resume --max-iterations 50`"},
		{runlog.StopBudget, dir, "raise the budget with `architect loop --resume --max-cost 10`"},
		{runlog.StopTimeout, dir, "give it more time with `architect loop --resume --max-time 4h`"},
		{runlog.StopCostUnknown, dir, "go on without a budget with `architect loop --resume --max-cost 0`"},
		{runlog.StopIdle, filepath.Join(dir, "r"), "see what failed with `architect show -C r --checks`, then go on with `architect loop --resume -C r`"},
		{runlog.StopIdle, "/elsewhere/r", "see what failed with `architect show -C /elsewhere/r --checks`, then go on with `architect loop --resume -C /elsewhere/r`"},
	} {
		r := &runlog.Result{StopReason: tc.reason, Success: tc.reason == runlog.StopSuccess, Workspace: tc.ws, TotalIterations: 25}
		is.Equal(nextStep(r, cfg), tc.want) // tc.reason
	}
}

// A run that went idle with its checks passing failed nothing: the next
// step says the agent did not declare completion, not "see what failed".
func TestNextStepIdleWithChecksPassing(t *testing.T) {
	is := is.New(t)
	t.Chdir(t.TempDir())
	cfg := config.Config{MaxIterations: 25}
	r := &runlog.Result{StopReason: runlog.StopIdle, Workspace: "/w", Iterations: []runlog.Iteration{
		{Iteration: 1, ChecksRun: true, CheckResults: []runlog.CheckResult{{Name: "go test ./...", ExitCode: 1}}},
		{Iteration: 2, ChecksRun: true, AllChecksPassed: true, CheckResults: []runlog.CheckResult{{Name: "go test ./...", Passed: true}}},
	}}
	is.Equal(nextStep(r, cfg), "the checks pass but the agent did not declare completion: see what it said with `architect show -C /w`, then go on with `architect loop --resume -C /w`")
	r.Iterations = r.Iterations[:1] // still failing: see what failed
	is.Equal(nextStep(r, cfg), "see what failed with `architect show -C /w --checks`, then go on with `architect loop --resume -C /w`")
}

// The checks still failing are named, from the last iteration that ran
// them, a long list cut.
func TestFailingLine(t *testing.T) {
	is := is.New(t)
	fail := func(name string) runlog.CheckResult { return runlog.CheckResult{Name: name, ExitCode: 1} }
	r := &runlog.Result{Iterations: []runlog.Iteration{
		{Iteration: 1, CheckResults: []runlog.CheckResult{fail("go test ./..."), {Name: "go vet ./...", Passed: true}}},
		{Iteration: 2}, // interrupted: its checks did not run
	}}
	is.Equal(failingLine(r), "failing after iteration 1: go test ./... (exit status 1)")
	var many []runlog.CheckResult
	for _, n := range []string{"a", "b", "c", "d", "e", "f", "g"} {
		many = append(many, fail(n))
	}
	r.Iterations = append(r.Iterations, runlog.Iteration{Iteration: 3, CheckResults: many})
	line := failingLine(r)
	is.True(strings.HasPrefix(line, "failing after iteration 3: a (exit status 1); b")) // the last iteration's
	is.True(strings.HasSuffix(line, "e (exit status 1); and 2 more"))
	r.Iterations = append(r.Iterations, runlog.Iteration{Iteration: 4, CheckResults: []runlog.CheckResult{{Name: "a", Passed: true}}})
	is.Equal(failingLine(r), "") // all pass now
}

// A success that rests on something the run only recorded says so under
// its success line: a check's definition changed (--judge warn), tests
// removed (--tests warn); a success without either says nothing more.
func TestSummaryWarnsOfKeptChanges(t *testing.T) {
	is := is.New(t)
	var b strings.Builder
	r := &runlog.Result{Success: true, StopReason: runlog.StopSuccess, TotalIterations: 1,
		JudgeChanged: []runlog.JudgeChange{{File: "package.json", Checks: []string{"npm test"}, Kept: true}},
		TestsRemoved: &runlog.TestsRemoved{Tests: []string{"a_test.go: TestAdd"}, Count: 1}}
	printSummary(&b, r, config.Config{})
	out := b.String()
	is.True(strings.Contains(out, "architect: success: "))
	is.True(strings.Contains(out, "architect: warning: the agent changed how `npm test` is judged: package.json (kept: --judge warn)\n"))
	is.True(strings.Contains(out, "architect: warning: 1 test of the start removed (kept: --tests warn): a_test.go: TestAdd\n"))
	b.Reset()
	printSummary(&b, &runlog.Result{Success: true, StopReason: runlog.StopSuccess, TotalIterations: 1}, config.Config{})
	is.True(!strings.Contains(b.String(), "warning"))
}

// architect show says why an iteration failed beyond its checks: a
// protected file restored, a change to a check's definition, tests
// removed; and says nothing of them when there were none.
func TestShowSummarySaysWhyItFailed(t *testing.T) {
	is := is.New(t)
	it := &runlog.Iteration{Iteration: 1,
		CheckResults:      []runlog.CheckResult{{Name: "npm test", Passed: true}},
		ProtectedRestored: []string{"tests/a_test.go"},
		JudgeChanged:      []runlog.JudgeChange{{File: "package.json", Checks: []string{"npm test"}}},
		TestsRemoved:      &runlog.TestsRemoved{Tests: []string{"a_test.go: TestAdd"}, Count: 2, Failed: true}}
	out := summary(1, it, false)
	is.True(strings.Contains(out, "protected files changed, restored (the iteration failed): tests/a_test.go\n"))
	is.True(strings.Contains(out, "judge: the agent changed how `npm test` is judged: package.json (undone; the iteration failed)\n"))
	is.True(strings.Contains(out, "tests removed since the start (the iteration failed): a_test.go: TestAdd, 1 more\n"))
	it.JudgeChanged[0].Kept = true
	it.TestsRemoved.Failed = false
	out = summary(1, it, false)
	is.True(strings.Contains(out, "(kept: --judge warn)"))
	is.True(strings.Contains(out, "(recorded: --tests warn)"))
	out = summary(1, &runlog.Iteration{Iteration: 1}, false)
	is.True(!strings.Contains(out, "judge:") && !strings.Contains(out, "removed") && !strings.Contains(out, "protected"))
}
