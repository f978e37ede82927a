package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/architect-dev/architect/runlog/runlogtest"
	"github.com/matryer/is"
)

// loopFixture makes a git repository and a fake-agent script folder whose
// default script is script. It returns the repo and the agent folder.
func loopFixture(t *testing.T, script string) (repo, agentDir string) {
	t.Helper()
	root := t.TempDir()
	repo, agentDir = filepath.Join(root, "repo"), filepath.Join(root, "agent")
	for _, d := range []string{repo, agentDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(agentDir, "default.txt"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	// Whatever happened, nothing the test's runs started outlives it.
	t.Cleanup(func() {
		for _, p := range leftovers(agentDir) {
			if pid, err := strconv.Atoi(strings.SplitN(p, ":", 2)[0]); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	if err := os.WriteFile(filepath.Join(repo, "file.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(root, "home")
	_ = os.MkdirAll(home, 0o755)
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, "gitconfig"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"}} {
		if out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	return repo, agentDir
}

// startArchitect starts the architect binary (put on PATH by testscript)
// in its own process group.
func startArchitect(t *testing.T, agentDir string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command("architect", args...)
	cmd.Env = append(os.Environ(), "FAKE_AGENT_DIR="+agentDir, "WORK="+filepath.Dir(agentDir), "GORACE=atexit_sleep_ms=0")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	return cmd, &stderr
}

func waitFile(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s did not appear", path)
}

// leftovers lists live processes whose environment mentions marker.
func leftovers(marker string) []string {
	var found []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !bytes.Contains(env, []byte(marker)) {
			continue
		}
		stat, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
		if i := bytes.LastIndexByte(stat, ')'); i > 0 && len(stat) > i+2 && stat[i+2] == 'Z' {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		found = append(found, e.Name()+": "+strings.ReplaceAll(string(cmdline), "\x00", " "))
	}
	return found
}

func exitStatus(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// SIGINT during an iteration stops the agent (and what it spawned, even in
// a new session), prints the result and exits 130.
func TestInterruptMidIteration(t *testing.T) {
	is := is.New(t)
	repo, agentDir := loopFixture(t, "spawn $WORK/daemon.pid\ntouch $WORK/started\nhang\n")
	cmd, stderr := startArchitect(t, agentDir, "loop", "task", "-C", repo, "--check", "true", "--agent-cmd", "fake-agent")
	waitFile(t, filepath.Join(filepath.Dir(agentDir), "started"))
	is.True(len(leftovers(agentDir)) > 0) // the agent and its daemon are running

	is.NoErr(cmd.Process.Signal(syscall.SIGINT))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		is.Equal(exitStatus(err), 130)
	case <-time.After(7 * time.Second):
		t.Fatalf("architect did not stop within 7 s of SIGINT; stderr:\n%s", stderr)
	}
	is.True(strings.Contains(stderr.String(), "stopped on cancelled")) // the summary is printed
	is.Equal(leftovers(agentDir), []string(nil))                       // nothing left behind
	res := runlogtest.Result(t, repo)
	is.Equal(res.StopReason, "cancelled")
}

// --max-time stops a hanging agent at once, not at the next iteration.
func TestMaxTimeStopsHangingAgent(t *testing.T) {
	is := is.New(t)
	repo, agentDir := loopFixture(t, "touch $WORK/started\nhang\n")
	start := time.Now()
	cmd, stderr := startArchitect(t, agentDir, "loop", "task", "-C", repo, "--check", "true", "--agent-cmd", "fake-agent", "--max-time", "2")
	err := cmd.Wait()
	elapsed := time.Since(start)
	is.Equal(exitStatus(err), 1)
	if elapsed > 4*time.Second {
		t.Fatalf("stopped %s after start, more than 2 s past the 2 s limit; stderr:\n%s", elapsed, stderr)
	}
	res := runlogtest.Result(t, repo)
	is.Equal(res.StopReason, "timeout")
	is.Equal(leftovers(agentDir), []string(nil))
}
