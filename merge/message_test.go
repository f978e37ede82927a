package merge

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/architect-dev/architect/runlog"
	"github.com/matryer/is"
)

// The merge commit's message says how the run ended: from its result when
// there is one (success, or the stop with its detail, the last checks and
// the cost), else from its state, else only where the commits came from.
func TestMessage(t *testing.T) {
	is := is.New(t)
	cfg, _ := json.Marshal(map[string]any{"task": "fix the parser\nand its tests", "agent": "claude"})
	st := &runlog.State{Status: "stopped", Iteration: 3, Config: cfg}

	ws := t.TempDir()
	is.Equal(message("architect/x", 2, st, ws),
		"architect: fix the parser\n\nStatus: stopped after 3 iterations.\n\nBranch architect/x (2 commits), agent claude.\n\nTask:\nfix the parser\nand its tests")

	res := runlog.Result{StopReason: "max_iterations", StopDetail: "25 of 25", TotalIterations: 1,
		Iterations: []runlog.Iteration{{CheckResults: []runlog.CheckResult{{Name: "go test", Passed: true}, {Name: "go vet", ExitCode: 1}}}}}
	is.NoErr(os.MkdirAll(filepath.Join(ws, runlog.StateDir), 0o700))
	is.NoErr(runlog.WriteJSON(filepath.Join(ws, runlog.StateDir, runlog.ResultFile), res))
	is.Equal(message("architect/x", 1, st, ws),
		"architect: fix the parser\n\nStopped on max_iterations after 1 iteration, without success (25 of 25).\n\nChecks in the last iteration:\n- go test: passed\n- go vet: failed (exit status 1)\n\nCost: $0.0000.\n\nBranch architect/x (1 commit), agent claude.\n\nTask:\nfix the parser\nand its tests")

	is.Equal(message("architect/x", 1, nil, ws), "architect: merge architect/x\n\n1 commit from the loop's branch architect/x.")
}
