package loop

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/runlog"
)

// An agent that deletes a test that was there at the start, while the
// checks pass and it declares completion, gets no success under --tests
// keep: the record names the file and the test. With --tests off it
// succeeds, as before tests were compared.
func TestRemovedTestIsNoSuccess(t *testing.T) {
	for _, tc := range []struct {
		mode    string
		success bool
	}{
		{config.TestsKeep, false},
		{config.TestsOff, true},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			is := is.New(t)
			cfg := testConfig(t)
			cfg.MaxIterations = 2
			cfg.Tests = tc.mode
			is.NoErr(os.WriteFile(filepath.Join(cfg.Dir, "calc_test.go"), []byte("package calc\n\nfunc TestAdd(t *testing.T) {}\n"), 0o644))
			a := &scripted{outcomes: []agent.Outcome{done, done}, edit: func(dir string, run int) {
				if run == 0 {
					_ = os.Remove(filepath.Join(dir, "calc_test.go"))
				}
			}}
			res, _, _ := run(t, cfg, a)
			if tc.success {
				is.Equal(res.StopReason, runlog.StopSuccess)
				is.Equal(res.Iterations[0].TestsRemoved, (*runlog.TestsRemoved)(nil))
				return
			}
			is.Equal(res.StopReason, runlog.StopMaxIterations) // never a success
			tr := res.Iterations[0].TestsRemoved
			is.True(tr != nil && tr.Failed)
			is.Equal(tr.Files, []string{"calc_test.go"})
			is.True(strings.Contains(strings.Join(tr.Tests, " "), "TestAdd"))
			is.Equal(res.Iterations[0].CompletionSignal, "")
		})
	}
}

// The DONE file does not end a run whose tests of the start are gone.
func TestDoneFileNeedsTheTests(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	cfg.MaxIterations = 2
	cfg.Tests = config.TestsKeep
	is.NoErr(os.WriteFile(filepath.Join(cfg.Dir, "test_calc.py"), []byte("def test_add():\n    pass\n"), 0o644))
	a := &scripted{outcomes: []agent.Outcome{{}, {}}, edit: func(dir string, _ int) {
		_ = os.Remove(filepath.Join(dir, "test_calc.py"))
		_ = os.WriteFile(filepath.Join(dir, runlog.StateDir, runlog.DoneFile), nil, 0o600)
	}}
	res, log, _ := run(t, cfg, a)
	is.Equal(res.StopReason, runlog.StopMaxIterations)
	// Before iteration 2 the DONE file was found, and its checks pass, but
	// the test it deleted is gone: iteration 2 ran.
	is.True(strings.Contains(log, "tests that were there at the start are gone"))
	is.Equal(res.TotalIterations, 2)
}
