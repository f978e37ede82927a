//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/architect-dev/architect/internal/testutil"
)

// The helpers the whole-binary tests share: a workspace with a fake
// agent, architect started in the background or run to its end, waits
// for what a run writes, and the processes a run leaves behind.

// waitLimit is how long a test waits for what a run should write or print
// before it fails: far more than a loaded machine needs.
const waitLimit = 30 * time.Second

// loopFixture makes a git repository and a fake-agent script folder whose
// default script is script. It returns the repo and the agent folder.
// The repository's git configuration (HOME, GIT_CONFIG_*) is the test's
// own, set in the processes archEnv describes, so tests may run in
// parallel.
func loopFixture(t *testing.T, script string) (repo, agentDir string) {
	t.Helper()
	root := t.TempDir()
	repo, agentDir = filepath.Join(root, "repo"), filepath.Join(root, "agent")
	for _, d := range []string{repo, agentDir, filepath.Join(root, "home")} {
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
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"}} {
		cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
		cmd.Env = append(os.Environ(), fixtureGitEnv(agentDir)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	return repo, agentDir
}

// fixtureGitEnv is the git configuration of loopFixture's workspace: an empty
// home of its own, no system configuration.
func fixtureGitEnv(agentDir string) []string {
	home := filepath.Join(filepath.Dir(agentDir), "home")
	return []string{"HOME=" + home, "GIT_CONFIG_GLOBAL=" + filepath.Join(home, "gitconfig"), "GIT_CONFIG_NOSYSTEM=1"}
}

// archEnv is the environment of the architect processes a test starts.
// The race detector's exit-time sleep (1 s by default, in every
// race-enabled architect and fake-agent) is turned off: it would make
// each agent run a second longer. TMPDIR keeps what a killed architect
// leaves in the temporary folder inside the test's.
func archEnv(t *testing.T, agentDir string) []string {
	return append(append(os.Environ(), fixtureGitEnv(agentDir)...),
		"FAKE_AGENT_DIR="+agentDir,
		"WORK="+filepath.Dir(agentDir),
		"GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"),
		"TMPDIR="+t.TempDir(),
	)
}

// loopProc is an architect process running in the background.
type loopProc struct {
	cmd    *exec.Cmd
	stderr *testutil.Buffer
	done   chan struct{}
	err    error // set when done is closed
}

// startLoop starts architect with args in its own process group; the
// group is killed when the test ends, whatever happened.
func startLoop(t *testing.T, agentDir string, args ...string) *loopProc {
	t.Helper()
	return startLoopEnv(t, agentDir, nil, args...)
}

// startLoopEnv is startLoop with more environment variables.
func startLoopEnv(t *testing.T, agentDir string, env []string, args ...string) *loopProc {
	t.Helper()
	p := &loopProc{cmd: exec.Command("architect", args...), stderr: &testutil.Buffer{}, done: make(chan struct{})}
	p.cmd.Env = append(archEnv(t, agentDir), env...)
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p.cmd.Stderr = p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	})
	return p
}

// exit waits up to limit for the process to end and returns its status.
func (p *loopProc) exit(t *testing.T, limit time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
		return exitStatus(p.err)
	case <-time.After(limit):
		t.Fatalf("architect did not exit within %s; stderr:\n%s", limit, p.stderr)
		return 0
	}
}

// await waits until cond holds, failing if the process ends first (and
// cond still does not hold) or after waitLimit; what names what the test
// waited for.
func (p *loopProc) await(t *testing.T, what string, cond func() bool) {
	t.Helper()
	ended := false
	if testutil.Until(waitLimit, func() bool {
		select {
		case <-p.done:
			ended = true
		default:
		}
		return cond() || ended
	}) && cond() {
		return
	}
	if ended {
		t.Fatalf("architect exited (%v) before %s; stderr:\n%s", p.err, what, p.stderr)
	}
	t.Fatalf("%s: not within %s; stderr:\n%s", what, waitLimit, p.stderr)
}

// waitOutput waits until the process has printed want on stderr.
func (p *loopProc) waitOutput(t *testing.T, want string) {
	t.Helper()
	p.await(t, "printing "+strconv.Quote(want), func() bool { return strings.Contains(p.stderr.String(), want) })
}

// waitFile waits until path exists, failing early if the process ends.
func (p *loopProc) waitFile(t *testing.T, path string) {
	t.Helper()
	p.await(t, path+" appeared", func() bool { return exists(path) })
}

// escapedPids waits until the agent's escape verb has written the pids of
// what it left running (seven of them), and returns them.
func escapedPids(t *testing.T, p *loopProc, path string) []int {
	t.Helper()
	var f []string
	p.await(t, "the agent's escapes started", func() bool {
		b, _ := os.ReadFile(path)
		f = strings.Fields(string(b))
		return len(f) >= 7
	})
	var pids []int
	for _, s := range f {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("%s: %q", path, f)
		}
		pids = append(pids, n)
	}
	return pids
}

// architect runs a short architect command to its end and returns its
// output and exit status.
func architect(t *testing.T, agentDir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return architectEnv(t, agentDir, nil, args...)
}

// architectEnv is architect with more environment.
func architectEnv(t *testing.T, agentDir string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "architect", args...)
	cmd.Env = append(archEnv(t, agentDir), env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("architect %v did not end within a minute; stderr:\n%s", args, e.String())
	}
	return o.String(), e.String(), exitStatus(err)
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

// waitFile waits until path exists.
func waitFile(t *testing.T, path string) {
	t.Helper()
	if !testutil.Until(waitLimit, func() bool { return exists(path) }) {
		t.Fatalf("%s did not appear", path)
	}
}

// waitContains waits until the file at path holds want.
func waitContains(t *testing.T, path, want string) {
	t.Helper()
	var b []byte
	if !testutil.Until(waitLimit, func() bool {
		var err error
		b, err = os.ReadFile(path)
		return err == nil && strings.Contains(string(b), want)
	}) {
		t.Fatalf("%s never held %q; it holds %q", path, want, b)
	}
}

func touch(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
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
		if err != nil || !bytes.Contains(env, []byte(marker)) || !testutil.Alive(pid) {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		found = append(found, e.Name()+": "+strings.ReplaceAll(string(cmdline), "\x00", " "))
	}
	return found
}

// killLeftovers ends what a SIGKILLed architect left running (its agent),
// so that the test can resume: the containment of such orphans is tested
// on its own.
func killLeftovers(t *testing.T, marker string) {
	t.Helper()
	for _, p := range leftovers(marker) {
		if pid, err := strconv.Atoi(strings.SplitN(p, ":", 2)[0]); err == nil {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	if !testutil.Until(waitLimit, func() bool { return len(leftovers(marker)) == 0 }) {
		t.Fatalf("processes left behind: %v", leftovers(marker))
	}
}

// goneWithin fails unless every process of the run (its environment
// names agentDir) and every pid in pids has ended within limit.
func goneWithin(t *testing.T, agentDir string, pids []int, limit time.Duration, what string) {
	t.Helper()
	began := time.Now()
	var left []string
	if !testutil.Until(limit, func() bool {
		left = leftovers(agentDir)
		for _, pid := range pids {
			if testutil.Alive(pid) {
				left = append(left, strconv.Itoa(pid))
			}
		}
		return len(left) == 0
	}) {
		t.Fatalf("%s: still running after %s: %v", what, limit, left)
	}
	t.Logf("%s: everything gone within %s", what, time.Since(began).Round(time.Millisecond))
}

// removedWithin fails the test unless path is gone within limit.
func removedWithin(t *testing.T, path string, limit time.Duration) {
	t.Helper()
	var err error
	if !testutil.Until(limit, func() bool {
		_, err = os.Stat(path)
		return os.IsNotExist(err)
	}) {
		t.Fatalf("%s is still there after %s (err %v)", path, limit, err)
	}
}
