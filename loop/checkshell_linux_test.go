package loop

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/proc"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/usererr"
	"github.com/matryer/is"
)

// TestMain lets this test binary be the built-in shell, as architect is.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == proc.ShellCommand {
		os.Exit(proc.Interpret(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// An agent that declares completion at once never succeeds while a check
// fails in the first stage of a pipeline, whatever shell runs it; the
// shell chosen is the one that runs the checks (the process $$ names).
func TestPipelineCheckNeverPasses(t *testing.T) {
	shells := []string{"", proc.BuiltinShell}
	if _, err := exec.LookPath("bash"); err == nil {
		shells = append(shells, "bash")
	}
	for _, sh := range shells {
		t.Run("shell="+sh, func(t *testing.T) {
			is := is.New(t)
			cfg := testConfig(t)
			cfg.Checks = []string{"go test ./... 2>&1 | tail -5", "false | tail -1", "cat /proc/$$/comm; true"}
			cfg.CheckShell = sh
			cfg.MaxIterations = 2
			t.Setenv("PATH", fakeGo(t)+string(os.PathListSeparator)+os.Getenv("PATH"))
			res, _, _ := run(t, cfg, &scripted{outcomes: []agent.Outcome{done}})
			is.True(!res.Success)
			is.Equal(res.StopReason, runlog.StopMaxIterations)
			for _, it := range res.Iterations {
				is.True(!it.AllChecksPassed)
				is.True(!it.CheckResults[0].Passed) // go test ... | tail -5
				is.True(!it.CheckResults[1].Passed) // false | tail -1
				is.True(it.CheckResults[2].Passed)
				switch sh {
				case "bash":
					is.Equal(it.CheckResults[2].Output, "bash\n")
				case proc.BuiltinShell: // this test binary, started again as /proc/self/exe
					is.Equal(it.CheckResults[2].Output, "exe\n")
				}
			}
		})
	}
}

// fakeGo is a folder with a `go` whose tests fail.
func fakeGo(t *testing.T) string {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go"), []byte("#!/bin/sh\necho '--- FAIL: TestAdd'\necho FAIL\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A check shell that cannot be used is refused before anything starts.
func TestUnusableCheckShellRefused(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	cfg.CheckShell = "architect-no-such-shell"
	a := &scripted{outcomes: []agent.Outcome{done}}
	_, err := Run(context.Background(), cfg, Deps{Agent: a})
	var ue *usererr.Error
	is.True(errorsAs(err, &ue))
	is.True(strings.Contains(ue.Msg, "architect-no-such-shell is not installed"))
	is.Equal(ue.Hint, proc.ShellHint)
	is.Equal(a.runs, 0) // no agent ran
	_, statErr := os.Stat(filepath.Join(cfg.Dir, runlog.StateDir))
	is.True(os.IsNotExist(statErr)) // nothing written
}

// The last look runs the checks in the shell the run chose, as the
// iteration did: a check that holds only in that shell holds in the look.
func TestLastLookUsesTheCheckShell(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	gitInit(t, cfg.Dir)
	cfg.CheckShell = proc.BuiltinShell // this test binary, started again as /proc/self/exe
	cfg.Checks = []string{`test "$(cat /proc/$$/comm)" = exe`}
	cfg.MaxIterations = 1
	res, _, _ := run(t, cfg, &scripted{outcomes: []agent.Outcome{done}})
	is.Equal(res.StopReason, runlog.StopSuccess)
	is.True(res.FinalCheck != nil && !res.FinalCheck.Failed())
}
