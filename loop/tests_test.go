package loop

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/testset"
)

// A test report is a witness only when the check wrote it: one left as it
// was before the checks ran (an earlier run's, or one an agent wrote) is
// not read.
func TestReportIsReadOnlyWhenTheCheckWroteIt(t *testing.T) {
	is := is.New(t)
	path := filepath.Join(t.TempDir(), "report.json")
	const one = `{"testResults":[{"name":"a.test.js","assertionResults":[{"fullName":"adds","status":"passed"}]}]}`
	rep := report{path: path, read: testset.JSONReportRan}
	_, ok := rep.ran()
	is.True(!ok) // none written

	is.NoErr(os.WriteFile(path, []byte(one), 0o644))
	names, ok := rep.ran()
	is.True(ok) // none before, one now: the check wrote it
	is.Equal(names, []string{"a.test.js::adds"})

	rep.before, _ = os.Stat(path)
	_, ok = rep.ran()
	is.True(!ok) // as it was before the checks

	is.NoErr(os.WriteFile(path, []byte(one), 0o644))
	later := time.Now().Add(time.Minute)
	is.NoErr(os.Chtimes(path, later, later))
	_, ok = rep.ran()
	is.True(ok) // written again, the same content
}

// A check whose output goes through a filter (| tail) names some of the
// tests it ran, not all: which ones depends on what the tail kept. It is
// no witness, so a test added at the end (pushing another out of the
// tail) removes nothing; the same output unfiltered is a witness still.
func TestFilteredOutputIsNoWitness(t *testing.T) {
	for _, tc := range []struct {
		check   string
		success bool
	}{
		{"cat out.txt | tail -1", true},
		{"cat out.txt", false}, // a witness: TestB is gone from it
	} {
		t.Run(tc.check, func(t *testing.T) {
			is := is.New(t)
			cfg := testConfig(t)
			cfg.MaxIterations = 2
			cfg.Tests = config.TestsKeep
			cfg.Checks = []string{tc.check}
			out := filepath.Join(cfg.Dir, "out.txt")
			is.NoErr(os.WriteFile(out, []byte("=== RUN   TestA\n--- PASS: TestA (0.00s)\n=== RUN   TestB\n--- PASS: TestB (0.00s)\n"), 0o644))
			a := &scripted{outcomes: []agent.Outcome{{}, done}, edit: func(dir string, run int) {
				if run == 1 {
					next := "=== RUN   TestA\n--- PASS: TestA (0.00s)\n=== RUN   TestC\n--- PASS: TestC (0.00s)\n"
					if tc.success {
						next = "=== RUN   TestA\n--- PASS: TestA (0.00s)\n=== RUN   TestB\n--- PASS: TestB (0.00s)\n=== RUN   TestC\n--- PASS: TestC (0.00s)\n"
					}
					_ = os.WriteFile(filepath.Join(dir, "out.txt"), []byte(next), 0o644)
				}
			}}
			res, _, _ := run(t, cfg, a)
			if tc.success {
				is.Equal(res.StopReason, runlog.StopSuccess)
				return
			}
			is.Equal(res.StopReason, runlog.StopMaxIterations)
			tr := res.Iterations[1].TestsRemoved
			is.True(tr != nil && tr.Failed)
			is.Equal(tr.NotRun, []string{"cat out.txt: TestB"})
		})
	}
}
