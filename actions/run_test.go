//go:build unix

package actions_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/matryer/is"
)

// fakeBin writes a stand-in for architect that runs script.
func fakeBin(t *testing.T, script string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "architect")
	if err := os.WriteFile(p, []byte("#!/usr/bin/env bash\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func runScript(bin string, env ...string) *exec.Cmd {
	cmd := exec.Command("bash", "run.sh")
	cmd.Env = append(os.Environ(), "ARCHITECT_BIN="+bin)
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

// The inputs become architect's arguments as data, one check or extra
// argument per line, the task after --.
func TestRunScriptArguments(t *testing.T) {
	is := is.New(t)
	bin := fakeBin(t, `printf '%s\n' "$@"`)
	task := "\"; touch pwned; echo \" $(touch pwned) `touch pwned`"
	out, err := runScript(bin,
		"INPUT_TASK="+task, "INPUT_CHECKS=go vet ./...\n\ngo test ./...\r\n", "INPUT_AGENT_CMD=./agent.sh",
		"INPUT_MAX_ITERATIONS=3", "INPUT_WORKTREE=issue-7", "INPUT_ARGS=--check-timeout=5m", "INPUT_MODEL=",
	).Output()
	is.NoErr(err)
	is.Equal(strings.Split(strings.TrimSuffix(string(out), "\n"), "\n"), []string{
		"loop", "--agent-cmd=./agent.sh", "--max-iterations=3", "--worktree-name=issue-7",
		"--check=go vet ./...", "--check=go test ./...", "--check-timeout=5m", "--", task,
	})
	_, err = os.Stat("pwned")
	is.True(os.IsNotExist(err))
}

func TestRunScriptFailOnNoSuccess(t *testing.T) {
	is := is.New(t)
	bin := fakeBin(t, "exit 1")
	err := runScript(bin).Run()
	is.True(err != nil)
	is.True(strings.Contains(err.Error(), "exit status 1"))
	is.NoErr(runScript(bin, "INPUT_FAIL_ON_NO_SUCCESS=false").Run())
	// Usage errors (2) and interruptions (130) fail the step regardless.
	err = runScript(fakeBin(t, "exit 2"), "INPUT_FAIL_ON_NO_SUCCESS=false").Run()
	is.True(err != nil)
}

// The runner sends SIGINT to the step's shell only; run.sh passes it on to
// architect and exits with architect's status.
func TestRunScriptForwardsSIGINT(t *testing.T) {
	is := is.New(t)
	bin := fakeBin(t, `trap 'echo "got INT"; exit 130' INT
echo ready
while :; do sleep 0.05; done
`)
	cmd := runScript(bin)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, err := cmd.StdoutPipe()
	is.NoErr(err)
	is.NoErr(cmd.Start())
	defer func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }()
	sc := bufio.NewScanner(stdout)
	is.True(sc.Scan())
	is.Equal(sc.Text(), "ready")
	is.NoErr(cmd.Process.Signal(syscall.SIGINT)) // the shell, not the group
	is.True(sc.Scan())
	is.Equal(sc.Text(), "got INT")
	err = cmd.Wait()
	is.True(err != nil)
	is.Equal(cmd.ProcessState.ExitCode(), 130)
}

// The Action runs architect loop with the checks as given (run.sh above):
// with the real binary, a check whose failing command is piped into tail
// fails the step, with the default check shell and a chosen one, while the
// same pipeline whose stages all pass succeeds.
func TestRunScriptPipelineCheckFails(t *testing.T) {
	if testing.Short() {
		t.Skip("builds architect")
	}
	is := is.New(t)
	home := t.TempDir()
	bin := filepath.Join(t.TempDir(), "architect")
	build := exec.Command("go", "build", "-o", bin, "../cmd/architect")
	out, err := build.CombinedOutput()
	is.NoErr(err) // go build
	if err != nil {
		t.Log(string(out))
	}
	env := []string{"HOME=" + home, "GIT_CONFIG_GLOBAL=" + filepath.Join(home, "gitconfig"), "GIT_CONFIG_NOSYSTEM=1", "ARCHITECT_NO_CGROUP=1"}
	repo := t.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"-c", "user.name=T", "-c", "user.email=t@x", "commit", "-q", "--allow-empty", "-m", "one"}} {
		git := exec.Command("git", append([]string{"-C", repo}, args...)...)
		git.Env = append(os.Environ(), env...)
		out, err := git.CombinedOutput()
		is.NoErr(err) // git
		if err != nil {
			t.Log(string(out))
		}
	}
	for _, tc := range []struct {
		check, args string
		code        int
	}{
		{"false | tail -1", "", 1},
		{"(echo FAIL; exit 1) 2>&1 | tail -5", "--check-shell=builtin", 1},
		{"echo ok | tail -1", "--check-shell=builtin", 0},
	} {
		cmd := runScript(bin, append(env,
			"INPUT_TASK=t", "INPUT_CHECKS="+tc.check, "INPUT_AGENT_CMD=echo '<promise>COMPLETE</promise>'",
			"INPUT_MAX_ITERATIONS=1", "INPUT_ARGS=--dir="+repo+"\n--plain\n"+tc.args)...)
		out, _ := cmd.CombinedOutput()
		is.Equal(cmd.ProcessState.ExitCode(), tc.code) // the step's status
		if tc.code != 0 {
			is.True(strings.Contains(string(out), "checks 0/1 passing")) // the check failed
		}
	}
}
