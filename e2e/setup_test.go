//go:build unix

// Package e2e runs the real architect binary with the real agent CLIs
// (installed by .ci/install-agents.sh) against the stub model server on
// 127.0.0.1, on fixture repositories. It holds tests only.
//
// The helpers here are shared by every agent's tests: TestMain builds
// architect once (or takes $ARCHITECT_E2E_BIN); AgentBin finds a CLI; Fixture builds a repository;
// NewRun gives a test its own HOME, environment and marker; Run.Architect
// runs the binary; Run.Leftovers lists processes the run left behind.
package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/architect-dev/architect/internal/testutil"
	"github.com/matryer/is"
)

// MarkerEnv is set, to a value unique to each test, in the environment of
// every architect the tests start: the processes it and its children leave
// behind are found by it.
const MarkerEnv = "ARCHITECT_E2E_MARKER"

var (
	repoRoot     string // the repository this package is in
	architectBin string // built by TestMain
	buildErr     error  // why it could not be built
	goEnv        = map[string]string{}
)

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	wd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 2
	}
	repoRoot = filepath.Dir(wd)
	tmp, err := os.MkdirTemp("", "architect-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 2
	}
	defer os.RemoveAll(tmp)
	if architectBin = os.Getenv("ARCHITECT_E2E_BIN"); architectBin == "" {
		architectBin = filepath.Join(tmp, "architect")
		cmd := exec.Command("go", "build", "-o", architectBin, "./cmd/architect")
		cmd.Dir = repoRoot
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./cmd/architect: %w\n%s", err, out)
		}
	}
	out, err := exec.Command("go", "env", "-json", "GOCACHE", "GOMODCACHE", "GOROOT").Output()
	if err == nil {
		_ = json.Unmarshal(out, &goEnv)
	}
	return testutil.Main(m)
}

// Architect returns the path of the architect binary built for the tests.
func Architect(t testing.TB) string {
	t.Helper()
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return architectBin
}

// Fixture builds the fixture repository testdata/repos/NAME.sh makes, in a
// new directory under the test's temporary directory, and returns its path.
func Fixture(t testing.TB, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	cmd := exec.Command("sh", filepath.Join(repoRoot, "testdata", "repos", name+".sh"), dir)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fixture %s: %v\n%s", name, err, out)
	}
	return dir
}

// Run is one test's sandbox: a temporary HOME, a clean environment and a
// unique marker.
type Run struct {
	t      testing.TB
	Home   string   // the temporary HOME
	Root   string   // a directory that holds everything the run makes (Home included)
	Marker string   // the value of MarkerEnv
	Env    []string // the environment architect gets; add to it before calling Architect
}

// NewRun makes a sandbox for one test. Its environment has PATH, the Go
// caches (so that `go test` checks stay fast), HOME, TMPDIR and git set up
// for tests, and the marker; nothing else of the developer's. When the
// test ends, any process still carrying the marker is killed.
func NewRun(t testing.TB) *Run {
	t.Helper()
	root := t.TempDir()
	r := &Run{t: t, Root: root, Home: filepath.Join(root, "home"), Marker: rand.Text()}
	tmp := filepath.Join(root, "tmp")
	for _, d := range []string{r.Home, tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + r.Home,
		"TMPDIR=" + tmp,
		"LANG=C.UTF-8",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=e2e", "GIT_AUTHOR_EMAIL=e2e@example.com",
		"GIT_COMMITTER_NAME=e2e", "GIT_COMMITTER_EMAIL=e2e@example.com",
		"GOTOOLCHAIN=local",
		"GOPROXY=off",
		MarkerEnv + "=" + r.Marker,
	}
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOROOT"} {
		if v := goEnv[k]; v != "" {
			r.Env = append(r.Env, k+"="+v)
		}
	}
	t.Cleanup(func() {
		for _, p := range r.Leftovers() {
			_ = syscall.Kill(p.PID, syscall.SIGKILL)
		}
	})
	return r
}

// withEnv returns env with the variables of more set, replaced or (with an
// empty value) removed.
func withEnv(env []string, more ...string) []string {
	out := append([]string(nil), env...)
	for _, kv := range more {
		k, v, _ := strings.Cut(kv, "=")
		out = slices.DeleteFunc(out, func(e string) bool { return strings.HasPrefix(e, k+"=") })
		if v != "" {
			out = append(out, kv)
		}
	}
	return out
}

// Result is what an architect run printed and how it exited.
type Result struct {
	Stdout, Stderr string
	ExitCode       int
}

// Architect runs the architect binary with args in dir, with the run's
// environment, in its own process group, and waits for it (at most
// timeout; then the group is killed and the test fails).
func (r *Run) Architect(dir string, timeout time.Duration, args ...string) Result {
	r.t.Helper()
	return r.Start(dir, timeout, args...).Wait()
}

// Started is an architect process started by Run.Start.
type Started struct {
	r              *Run
	cmd            *exec.Cmd
	ctx            context.Context
	cancel         context.CancelFunc
	stdout, stderr bytes.Buffer
	err            error
	args           []string
}

// Start starts the architect binary as Architect does, without waiting
// for it: the test can act on the run meanwhile (from a second process).
func (r *Run) Start(dir string, timeout time.Duration, args ...string) *Started {
	r.t.Helper()
	s := &Started{r: r, args: args}
	s.ctx, s.cancel = context.WithTimeout(context.Background(), timeout)
	s.cmd = exec.CommandContext(s.ctx, Architect(r.t), args...)
	s.cmd.Dir = dir
	s.cmd.Env = r.Env
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	s.cmd.Cancel = func() error { return syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL) }
	s.cmd.WaitDelay = 5 * time.Second
	s.cmd.Stdout, s.cmd.Stderr = &s.stdout, &s.stderr
	if s.err = s.cmd.Start(); s.err != nil {
		r.t.Fatalf("architect %s: %v", strings.Join(args, " "), s.err)
	}
	r.t.Cleanup(func() {
		s.cancel()
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	})
	return s
}

// Wait waits for the process and returns what it printed and its status.
func (s *Started) Wait() Result {
	s.r.t.Helper()
	defer s.cancel()
	err := s.cmd.Wait()
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	res := Result{Stdout: s.stdout.String(), Stderr: s.stderr.String(), ExitCode: s.cmd.ProcessState.ExitCode()}
	if s.ctx.Err() != nil {
		s.r.t.Fatalf("architect %s: still running at its deadline\nstderr:\n%s", strings.Join(s.args, " "), res.Stderr)
	}
	if err != nil && res.ExitCode < 0 {
		s.r.t.Fatalf("architect %s: %v\nstderr:\n%s", strings.Join(s.args, " "), err, res.Stderr)
	}
	return res
}

// Proc is a process found by Leftovers.
type Proc struct {
	PID  int
	Cmd  string
	Why  string // "marker" or "cwd DIR"
	Comm string
}

func (p Proc) String() string { return fmt.Sprintf("pid %d (%s, %s): %s", p.PID, p.Comm, p.Why, p.Cmd) }

// Leftovers lists the living processes (zombies excluded) whose
// environment carries the run's marker or whose working directory is
// inside the run's Root or one of dirs. The test process itself is left out.
func (r *Run) Leftovers(dirs ...string) []Proc {
	dirs = append([]string{r.Root}, dirs...)
	marker := []byte(MarkerEnv + "=" + r.Marker)
	ents, _ := os.ReadDir("/proc")
	var out []Proc
	self := os.Getpid()
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		base := "/proc/" + e.Name()
		stat, err := os.ReadFile(base + "/stat")
		if err != nil {
			continue
		}
		// state is the first field after "(comm) ".
		if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			continue
		}
		why := ""
		env, _ := os.ReadFile(base + "/environ")
		for _, kv := range bytes.Split(env, []byte{0}) {
			if bytes.Equal(kv, marker) {
				why = "marker"
			}
		}
		if why == "" {
			if cwd, err := os.Readlink(base + "/cwd"); err == nil {
				for _, d := range dirs {
					if cwd == d || strings.HasPrefix(cwd, d+"/") {
						why = "cwd " + cwd
					}
				}
			}
		}
		if why == "" {
			continue
		}
		cmdline, _ := os.ReadFile(base + "/cmdline")
		comm, _ := os.ReadFile(base + "/comm")
		out = append(out, Proc{PID: pid, Why: why, Comm: strings.TrimSpace(string(comm)),
			Cmd: strings.TrimSpace(string(bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))})
	}
	return out
}

// NoLeftovers fails the test if any process of the run is still alive.
func (r *Run) NoLeftovers(dirs ...string) {
	r.t.Helper()
	if left := r.Leftovers(dirs...); len(left) > 0 {
		var b strings.Builder
		for _, p := range left {
			b.WriteString("\n  " + p.String())
		}
		r.t.Errorf("processes left behind:%s", b.String())
	}
}

// LoopResult is the part of `architect loop --json` the tests read.
type LoopResult struct {
	Iterations []struct {
		Iteration          int      `json:"iteration"`
		StepsTaken         int      `json:"steps_taken"`
		Cost               *float64 `json:"cost"`
		Duration           float64  `json:"duration"`
		AllChecksPassed    bool     `json:"all_checks_passed"`
		CompletionTagFound bool     `json:"completion_tag_found"`
		Error              *string  `json:"error"`
		ErrorKind          string   `json:"error_kind"`
		Agent              string   `json:"agent"`
		Model              string   `json:"model"`
		Interrupted        string   `json:"interrupted"`
		Notes              []string `json:"notes"`
		CheckResults       []struct {
			Command  string `json:"command"`
			ExitCode int    `json:"exit_code"`
			Passed   bool   `json:"passed"`
			Output   string `json:"output"`
		} `json:"check_results"`
		Tokens *struct {
			Input       int64 `json:"input"`
			CachedInput int64 `json:"cached_input"`
			Output      int64 `json:"output"`
		} `json:"tokens"`
	} `json:"iterations"`
	TotalCost        float64 `json:"total_cost"`
	TotalCostKnown   bool    `json:"total_cost_known"`
	TotalIterations  int     `json:"total_iterations"`
	Success          bool    `json:"success"`
	StopReason       string  `json:"stop_reason"`
	StopDetail       string  `json:"stop_detail"`
	StopHint         string  `json:"stop_hint"`
	UsageLimitWaits  int     `json:"usage_limit_waits"`
	UsageLimitWaited float64 `json:"usage_limit_waited"`
	Waits            []struct {
		Agent   string  `json:"agent"`
		Seconds float64 `json:"seconds"`
		Exact   bool    `json:"exact"`
	} `json:"waits"`
	Agents []struct {
		Agent      string   `json:"agent"`
		Model      string   `json:"model"`
		Iterations int      `json:"iterations"`
		Cost       *float64 `json:"cost"`
	} `json:"agents"`
	Switches []struct {
		Iteration int    `json:"iteration"`
		From      string `json:"from"`
		To        string `json:"to"`
		Reason    string `json:"reason"`
	} `json:"switches"`
}

// ParseLoopResult decodes the --json result architect printed.
func ParseLoopResult(t testing.TB, res Result) LoopResult {
	t.Helper()
	var lr LoopResult
	if err := json.Unmarshal([]byte(res.Stdout), &lr); err != nil {
		t.Fatalf("architect --json printed no result (%v); exit %d\nstdout:\n%s\nstderr:\n%s", err, res.ExitCode, res.Stdout, res.Stderr)
	}
	return lr
}

// ReadFile returns the content of a file, failing the test if it cannot.
func ReadFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestLeftovers checks the process scan the other tests rely on.
func TestLeftovers(t *testing.T) {
	r := NewRun(t)
	dir := t.TempDir()
	cmd := exec.Command("sleep", "60")
	cmd.Env = r.Env
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	found := false
	for _, p := range r.Leftovers() {
		found = found || (p.PID == cmd.Process.Pid && p.Why == "marker")
	}
	if !found {
		t.Fatalf("sleep %d (with the marker) not found: %v", cmd.Process.Pid, r.Leftovers())
	}

	other := exec.Command("sleep", "60") // no marker, but its cwd is in dir
	other.Dir = dir
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = other.Process.Kill(); _ = other.Wait() })
	found = false
	for _, p := range r.Leftovers(dir) {
		found = found || (p.PID == other.Process.Pid && strings.HasPrefix(p.Why, "cwd "))
	}
	if !found {
		t.Fatalf("sleep %d (cwd %s) not found: %v", other.Process.Pid, dir, r.Leftovers(dir))
	}

	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	_ = other.Process.Kill()
	_ = other.Wait()
	if left := r.Leftovers(dir); len(left) > 0 {
		t.Fatalf("still listed after they ended: %v", left)
	}
}

// succeeded parses the loop's result and fails the test unless architect
// exited 0 with success after iterations iterations.
func succeeded(t *testing.T, res Result, iterations int) LoopResult {
	t.Helper()
	lr := ParseLoopResult(t, res)
	if res.ExitCode != 0 {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", res.ExitCode, res.Stderr)
	}
	if !lr.Success || lr.TotalIterations != iterations {
		t.Fatalf("success %v after %d iterations, want success after %d\nstderr:\n%s", lr.Success, lr.TotalIterations, iterations, res.Stderr)
	}
	return lr
}

// fixedInTwo asserts the loop every CLI's main test runs: iteration 1's
// wrong fix fails the check and does not declare completion; iteration 2's
// right fix passes and does; calc.go ends as want; each run took steps
// steps; and the model saw iteration 1's failing check output only in
// iteration 2 (prompts holds each run's first request, in order).
func fixedInTwo(t *testing.T, res Result, dir, want string, steps int, prompts []string) LoopResult {
	t.Helper()
	is := is.New(t)
	lr := succeeded(t, res, 2)
	is.Equal(len(lr.Iterations), 2)
	is.Equal(ReadFile(t, filepath.Join(dir, "calc.go")), want)

	it1, it2 := lr.Iterations[0], lr.Iterations[1]
	is.True(it1.Error == nil)
	is.True(!it1.AllChecksPassed)
	is.True(!it1.CompletionTagFound)
	is.True(it2.Error == nil)
	is.True(it2.AllChecksPassed)
	is.True(it2.CompletionTagFound)
	is.Equal(it1.StepsTaken, steps)
	is.Equal(it2.StepsTaken, steps)

	// Iteration 2 was told how iteration 1's change failed.
	is.Equal(len(prompts), 2)
	is.True(!strings.Contains(prompts[0], "Add(2, 3) = 6, want 5"))
	is.True(strings.Contains(prompts[1], "Add(2, 3) = 6, want 5")) // iteration 1's failing check output
	return lr
}

// recoveredFromTransient checks a loop whose first agent run failed with an
// outage (its text holding errHas) and whose second fixed calc.go to want
// and succeeded.
func recoveredFromTransient(t *testing.T, res Result, dir, errHas, want string) {
	t.Helper()
	is := is.New(t)
	lr := succeeded(t, res, 2)
	is.True(lr.Iterations[0].Error != nil)
	is.True(strings.Contains(*lr.Iterations[0].Error, errHas))
	is.Equal(lr.Iterations[0].ErrorKind, "outage") // a 5xx: the provider's service failed
	is.True(lr.Iterations[1].Error == nil)
	is.Equal(ReadFile(t, filepath.Join(dir, "calc.go")), want)
}

// stoppedOnFatal checks a loop stopped by a fatal error in its first agent
// run (its text holding errHas), with a hint and exit status 1.
func stoppedOnFatal(t *testing.T, res Result, errHas string) {
	t.Helper()
	is := is.New(t)
	lr := ParseLoopResult(t, res)
	is.Equal(res.ExitCode, 1)
	is.True(!lr.Success)
	is.Equal(lr.StopReason, "agent_error")
	is.Equal(lr.TotalIterations, 1)
	is.True(lr.Iterations[0].Error != nil)
	is.True(strings.Contains(*lr.Iterations[0].Error, errHas))
	is.Equal(lr.Iterations[0].ErrorKind, "fatal")
	is.True(strings.Contains(res.Stderr, "hint:"))
}
