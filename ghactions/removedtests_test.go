package ghactions

import (
	"strings"
	"testing"

	"github.com/architect-dev/architect/runlog"
	"github.com/matryer/is"
)

func TestSummaryNamesRemovedTests(t *testing.T) {
	is := is.New(t)
	gone := &runlog.TestsRemoved{Files: []string{"calc_test.go"}, Tests: []string{"calc_test.go: TestAdd"}, NotRun: []string{"go test -v ./...: TestSub"}, Count: 3, Failed: true}
	res := &runlog.Result{
		TotalIterations: 1, StopReason: runlog.StopMaxIterations, TestsRemoved: gone,
		Iterations: []runlog.Iteration{{Iteration: 1, Duration: 1, AllChecksPassed: true, CompletionTagFound: true,
			CheckResults: []runlog.CheckResult{{Name: "go test ./...", Passed: true}}, TestsRemoved: gone}},
	}
	md := Summary(res, "")
	is.True(strings.Contains(md, "| 1 | ✅ 1/1 · 🧪 3 tests removed (fails) | yes |"))
	is.True(strings.Contains(md, "### Tests removed since the start\n\n**3 tests** that were there at the start are gone (`tests: keep`: the iteration failed)."))
	is.True(strings.Contains(md, "- file gone: `calc_test.go`\n- test gone: `calc_test.go: TestAdd`\n- no longer run: `go test -v ./...: TestSub`\n- and 1 more\n"))

	res.TestsRemoved, res.Iterations[0].TestsRemoved = nil, nil
	md = Summary(res, "")
	is.True(!strings.Contains(md, "Tests removed"))
	is.True(!strings.Contains(md, "🧪"))
}
