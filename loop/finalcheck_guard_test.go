package loop

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/runlog"
)

// A check that passes only because of a file git ignores, which the agent
// wrote, is no success under --final-check clean: the last look runs the
// checks in a fresh checkout of the final tree, where the file is not.
// The same run succeeds under off; a real fix (a tracked file) succeeds
// under clean.
func TestLastLookInACleanTree(t *testing.T) {
	for _, tc := range []struct {
		name, mode, file string
		success          bool
	}{
		{"cheat", config.FinalCheckClean, "build.out", false},
		{"cheat-off", config.FinalCheckOff, "build.out", true},
		{"fix", config.FinalCheckClean, "fixed.txt", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			cfg := testConfig(t)
			gitInit(t, cfg.Dir)
			is.NoErr(os.WriteFile(filepath.Join(cfg.Dir, ".gitignore"), []byte("*.out\n.architect/\n"), 0o644))
			cfg.MaxIterations = 1
			cfg.FinalCheck = tc.mode
			cfg.Checks = []string{"test -f " + tc.file}
			a := &scripted{outcomes: []agent.Outcome{done}, edit: func(dir string, _ int) {
				_ = os.WriteFile(filepath.Join(dir, tc.file), []byte("x"), 0o644)
			}}
			res, _, _ := run(t, cfg, a)
			if tc.success {
				is.Equal(res.StopReason, runlog.StopSuccess)
				return
			}
			is.Equal(res.StopReason, runlog.StopMaxIterations)
			fc := res.Iterations[0].FinalCheck
			is.True(fc != nil && fc.Failed())
			is.True(res.Iterations[0].AllChecksPassed) // in the agent's tree
			is.Equal(res.Iterations[0].CompletionSignal, "")
		})
	}
}

// The verdict alone, without the last look behind it: a declared
// completion while a check fails is no success.
func TestFailingCheckIsNoSuccessWithoutTheLastLook(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	cfg.FinalCheck = config.FinalCheckOff
	cfg.Checks = []string{"test -f ok"}
	a := &scripted{outcomes: []agent.Outcome{done}, edit: func(dir string, run int) {
		if run == 1 {
			_ = os.WriteFile(filepath.Join(dir, "ok"), nil, 0o644)
		}
	}}
	res, _, _ := run(t, cfg, a)
	is.Equal(res.StopReason, runlog.StopSuccess)
	is.Equal(res.TotalIterations, 2) // iteration 1 declared completion with a failing check
	is.Equal(res.Iterations[0].CompletionSignal, "")
}
