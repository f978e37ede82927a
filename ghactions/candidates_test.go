package ghactions

import (
	"strings"
	"testing"

	"github.com/architect-dev/architect/runlog"
	"github.com/matryer/is"
)

// The job summary lists every candidate of a round: the kept one marked,
// why each other lost, its checks, cost and transcript folder; a run
// without candidates has no such section.
func TestSummaryListsCandidates(t *testing.T) {
	is := is.New(t)
	cost := func(f float64) *float64 { return &f }
	res := &runlog.Result{Success: true, TotalIterations: 2, Iterations: []runlog.Iteration{
		{Iteration: 1, CheckResults: []runlog.CheckResult{{Name: "go test ./...", ExitCode: 1}}},
		{Iteration: 2, AllChecksPassed: true, CompletionSignal: "tag", Cost: cost(0.07), Candidates: []runlog.Candidate{
			{N: 1, Agent: "claude", Model: "sonnet", ChecksPassed: 1, ChecksTotal: 3, Cost: cost(0.02), Duration: 31, Failing: []string{"go test ./...", "go vet ./..."},
				Why: "fewer checks passing than #2 | (1 of 3 against 3)", Transcript: "transcripts/iteration-2/candidate-1"},
			{N: 2, Agent: "codex", Kept: true, Success: true, ChecksPassed: 3, ChecksTotal: 3, Cost: cost(0.05), Duration: 40, Transcript: "transcripts/iteration-2/candidate-2"},
			{N: 3, Agent: "claude", Model: "sonnet", Stopped: true, Duration: 40, Why: "stopped: #2 succeeded first"},
		}},
	}}
	md := Summary(res, "")
	is.True(strings.Contains(md, "### Candidates\n"))
	is.True(strings.Contains(md, "| 2 | 1 | claude (sonnet) | 1/3 (failing: `go test ./...`, `go vet ./...`) | $0.0200 | 31.0s | not kept: fewer checks passing than #2 \\| (1 of 3 against 3) · `.architect/transcripts/iteration-2/candidate-1` |\n"))
	is.True(strings.Contains(md, "| 2 | 2 | codex | 3/3 | $0.0500 | 40.0s | ✅ kept · `.architect/transcripts/iteration-2/candidate-2` |\n"))
	is.True(strings.Contains(md, "| 2 | 3 | claude (sonnet) | - | unknown | 40.0s | not kept: stopped: #2 succeeded first |\n"))

	res.Iterations[1].Candidates = nil
	is.True(!strings.Contains(Summary(res, ""), "Candidates"))
}
