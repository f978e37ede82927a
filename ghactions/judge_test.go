package ghactions

import (
	"bytes"
	"strings"
	"testing"

	"github.com/architect-dev/architect/runlog"
	"github.com/matryer/is"
)

// The summary and the annotations name the files that define a check the
// agent changed, undone or kept.
func TestJudgeChangedInSummaryAndAnnotations(t *testing.T) {
	is := is.New(t)
	res := &runlog.Result{StopReason: runlog.StopMaxIterations, Workspace: t.TempDir(),
		Iterations: []runlog.Iteration{
			{Iteration: 1, JudgeChanged: []runlog.JudgeChange{{File: "check.sh", Checks: []string{"sh check.sh"}}}},
			{Iteration: 2, JudgeChanged: []runlog.JudgeChange{{File: "check.sh", Checks: []string{"sh check.sh"}}, {File: "ruff.toml", Checks: []string{"ruff check ."}, Kept: true}}},
		}}
	res.Recost()
	md := Summary(res, "")
	is.True(strings.Contains(md, "### ⚠️ The agent changed how the checks are judged\n\n"))
	is.True(strings.Contains(md, "- the agent changed how `sh check.sh` is judged: check.sh (iteration 1, 2): undone, and the iteration failed\n"))
	is.True(strings.Contains(md, "- the agent changed how `ruff check .` is judged: ruff.toml (iteration 2): **kept** (`--judge warn`)\n"))

	var buf bytes.Buffer
	(&Reporter{W: &buf}).Finish(res)
	is.True(strings.Contains(buf.String(), "::error file=check.sh,title=the agent changed how a check is judged::the agent changed how `sh check.sh` is judged: check.sh (undone; the iteration failed)\n"))
	is.True(strings.Contains(buf.String(), "::warning file=ruff.toml,title=the agent changed how a check is judged::the agent changed how `ruff check .` is judged: ruff.toml (kept: --judge warn)\n"))

	is.True(!strings.Contains(Summary(&runlog.Result{}, ""), "judged"))
}
