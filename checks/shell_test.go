package checks

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/architect-dev/architect/proc"
	"github.com/matryer/is"
)

// TestMain lets this test binary be the built-in shell, as architect is.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == proc.ShellCommand {
		os.Exit(proc.Interpret(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestPipelineFailureFails: a check whose failing command is piped into
// tail, tee or head does not pass, whatever shell runs it; its output is
// still the pipeline's.
func TestPipelineFailureFails(t *testing.T) {
	t.Parallel()
	shells := []string{"", proc.BuiltinShell}
	for _, name := range []string{"bash", "zsh"} {
		if _, err := exec.LookPath(name); err == nil {
			shells = append(shells, name)
		}
	}
	for _, sh := range shells {
		t.Run("shell="+sh, func(t *testing.T) {
			t.Parallel()
			is := is.New(t)
			cmds := []string{
				"false | tail -1",
				"(echo FAIL: TestX; exit 1) 2>&1 | tail -5",
				"(echo out; exit 2) | tee /dev/null",
				"echo ok | tail -1",
			}
			rs := Run(t.Context(), cmds, Options{Shell: sh})
			is.True(!rs[0].Passed) // false | tail -1
			is.Equal(rs[0].ExitCode, 1)
			is.True(!rs[1].Passed)
			is.Equal(rs[1].Output, "FAIL: TestX\n")
			is.True(!rs[2].Passed)
			is.Equal(rs[2].Status(), "exit status 2")
			is.True(rs[3].Passed)
			is.Equal(rs[3].Output, "ok\n")
		})
	}
}

// TestUnusableShellFailsEveryCheck: a check shell that cannot be used
// makes every check fail, with the reason as its output.
func TestUnusableShellFailsEveryCheck(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	rs := Run(t.Context(), []string{"true", "exit 0"}, Options{Shell: "architect-no-such-shell"})
	for _, r := range rs {
		is.True(!r.Passed)
		is.Equal(r.Status(), "could not start")
		is.True(strings.Contains(r.Output, "architect-no-such-shell is not installed"))
	}
}
