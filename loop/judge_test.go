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

// An agent that rewrites the script its check runs, so that the check
// passes, gets no success: the script is put back, the iteration fails and
// its record names the file and the check. With --judge off the same agent
// succeeds, as before the judge existed.
func TestJudgeChangeIsUndoneAndFails(t *testing.T) {
	for _, tc := range []struct {
		mode    string
		success bool
	}{
		{config.JudgeProtect, false},
		{config.JudgeOff, true},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			is := is.New(t)
			cfg := testConfig(t)
			cfg.MaxIterations = 2
			cfg.Judge = tc.mode
			cfg.Checks = []string{"sh check.sh"}
			script := filepath.Join(cfg.Dir, "check.sh")
			is.NoErr(os.WriteFile(script, []byte("exit 1\n"), 0o644))
			a := &scripted{outcomes: []agent.Outcome{done, done}, edit: func(dir string, _ int) {
				_ = os.WriteFile(filepath.Join(dir, "check.sh"), []byte("exit 0\n"), 0o644)
			}}
			res, _, _ := run(t, cfg, a)
			got, err := os.ReadFile(script)
			is.NoErr(err)
			if tc.success {
				is.Equal(res.StopReason, runlog.StopSuccess)
				is.Equal(string(got), "exit 0\n")
				is.Equal(len(res.Iterations[0].JudgeChanged), 0)
				return
			}
			is.Equal(res.StopReason, runlog.StopMaxIterations) // never a success
			is.Equal(string(got), "exit 1\n")                  // put back
			for _, it := range res.Iterations {
				is.Equal(it.JudgeChanged, []runlog.JudgeChange{{File: "check.sh", Checks: []string{"sh check.sh"}}})
				is.Equal(it.CompletionSignal, "")
			}
		})
	}
}

// An iteration that changed the judge fails even when its checks pass
// once the change is undone: the agent fixed the code and loosened the
// check in the same run, and its declaration is not trusted.
func TestJudgeChangeFailsEvenWhenChecksPass(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	cfg.MaxIterations = 2
	cfg.Checks = []string{"sh check.sh"}
	script := filepath.Join(cfg.Dir, "check.sh")
	is.NoErr(os.WriteFile(script, []byte("test -f fixed\n"), 0o644))
	a := &scripted{outcomes: []agent.Outcome{done, done}, edit: func(dir string, run int) {
		if run == 0 {
			_ = os.WriteFile(filepath.Join(dir, "fixed"), nil, 0o644)
			_ = os.WriteFile(filepath.Join(dir, "check.sh"), []byte("exit 0\n"), 0o644)
		}
	}}
	res, _, _ := run(t, cfg, a)
	is.Equal(res.StopReason, runlog.StopSuccess)
	is.Equal(res.TotalIterations, 2) // iteration 1 changed the judge: not a success
	is.True(res.Iterations[0].AllChecksPassed)
	is.Equal(res.Iterations[0].CompletionSignal, "")
	is.Equal(len(res.Iterations[0].JudgeChanged), 1)
	is.Equal(len(res.Iterations[1].JudgeChanged), 0)
}

// A change to a file that defines two checks in parts (pyproject.toml's
// [tool.ruff] and [tool.pytest.ini_options]) is blamed on the check whose
// part changed, not on both.
func TestJudgeChangeNamesTheCheckConcerned(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	cfg.MaxIterations = 1
	cfg.Checks = []string{"pytest -q", "ruff check ."}
	py := filepath.Join(cfg.Dir, "pyproject.toml")
	const start = "[project]\nname = \"x\"\n\n[tool.pytest.ini_options]\ntestpaths = [\"tests\"]\n\n[tool.ruff]\nline-length = 100\n"
	is.NoErr(os.WriteFile(py, []byte(start), 0o644))
	a := &scripted{outcomes: []agent.Outcome{done}, edit: func(dir string, _ int) {
		_ = os.WriteFile(filepath.Join(dir, "pyproject.toml"), []byte(start+"ignore = [\"E501\"]\n"), 0o644)
	}}
	res, _, _ := run(t, cfg, a)
	is.Equal(res.Iterations[0].JudgeChanged, []runlog.JudgeChange{{File: "pyproject.toml", Checks: []string{"ruff check ."}}})
	got, err := os.ReadFile(py)
	is.NoErr(err)
	is.Equal(string(got), start) // put back all the same
}
