package proc

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/architect-dev/architect/internal/testutil"
	"github.com/matryer/is"
)

// The proc tests run three ways: as they are (no Contain: a subreaper and
// the children lists, as for a library user), and again in a child
// process under Contain with a run cgroup, and without one (TestModes).
// The same binary is also the supervisor and the helper "architect" that
// the containment tests kill.
const (
	modeEnv   = "PROC_TEST_MODE"   // "cgroup" or "nocgroup": Contain first
	helperEnv = "PROC_TEST_HELPER" // run helper() instead of the tests
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == SupervisorCommand {
		os.Exit(Supervise(os.Args[2:], os.Stdin))
	}
	if len(os.Args) > 1 && os.Args[1] == ShellCommand {
		os.Exit(Interpret(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
	}
	mode := os.Getenv(modeEnv)
	if mode != "" {
		release := Contain(ContainOptions{
			Supervisor: []string{SupervisorCommand},
			NoCgroup:   mode == "nocgroup",
			Warn:       func(s string) { fmt.Fprintln(os.Stderr, "warning:", s) },
		})
		if os.Getenv(helperEnv) != "" {
			helper()
			return
		}
		code := m.Run()
		release()
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// canCgroup reports whether this process may make a cgroup (root, or a
// delegated cgroup): where it may not, architect runs without one, and the
// cgroup mode cannot be tested.
func canCgroup() bool {
	c, err := makeRunCgroup("probe-" + session)
	if err != nil {
		return false
	}
	return c.remove()
}

// TestModes runs the other tests again under Contain, with and without a
// run cgroup, each in a child process (Contain is once per process).
func TestModes(t *testing.T) {
	if os.Getenv(modeEnv) != "" {
		t.Skip("in a mode already")
	}
	for _, mode := range []string{"cgroup", "nocgroup"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "cgroup" && !canCgroup() {
				t.Skip("cannot make a cgroup here (not root, no delegated cgroup v2)")
			}
			cmd := exec.Command(os.Args[0], "-test.count=1", "-test.v",
				"-test.skip", "^(TestModes|TestSupervisorEndsRuns|TestEndLeftovers|TestCgroupStartFailure)$")
			cmd.Env = append(os.Environ(), modeEnv+"="+mode)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("tests under Contain (%s) failed: %v\n%s", mode, err, out)
			}
			if !strings.Contains(string(out), "--- PASS: TestModeInEffect") {
				t.Fatalf("the mode was not checked:\n%s", out)
			}
		})
	}
}

// TestModeInEffect: the child processes of TestModes run in the mode they
// were asked for.
func TestModeInEffect(t *testing.T) {
	mode := os.Getenv(modeEnv)
	if mode == "" {
		t.Skip("no mode")
	}
	is := is.New(t)
	o := Self()
	is.True(o.Supervisor > 0)
	is.True(running(o.Supervisor, o.SupervisorStart))
	is.Equal(o.Cgroup != "", mode == "cgroup")
	var out strings.Builder
	r := Shell(t.Context(), "cat /proc/self/cgroup", Options{Stdout: &out})
	is.Equal(r.ExitCode, 0)
	is.Equal(strings.Contains(out.String(), cgroupName(session)+"/"), mode == "cgroup") // each run in a slot
}

// A run that exits normally leaves nothing to do: no process of the
// machine is looked at. Escapes are found through the children lists or
// the cgroup, not by reading every process either.
func TestNoScan(t *testing.T) {
	is := is.New(t)
	before := scans.Load()
	for range 5 {
		r := Shell(t.Context(), "true", Options{})
		is.Equal(r.ExitCode, 0)
	}
	var out strings.Builder
	r := Shell(t.Context(), `setsid -f sleep 1000; sh -c 'sleep 1000 & echo $!'; nohup sleep 1000 >/dev/null 2>&1 & echo $!`,
		Options{Stdout: &out, Grace: time.Minute})
	is.Equal(r.ExitCode, 0)
	for _, f := range fields(out.String()) {
		is.True(!alive(atoi(t, f)))
	}
	is.Equal(scans.Load(), before) // no scan of /proc
}

// helper is an "architect" for the containment tests: contained as the
// mode says, it starts a run whose processes escape every way (the
// background, nohup, setsid, a double fork, SIGTERM ignored, setsid with
// SIGTERM ignored), waits until they all wrote their pid to $PIDS, prints
// its Owner record, and waits to be killed.
func helper() {
	pids := os.Getenv("PIDS")
	script := `
sleep 1000 & echo $! >> "$PIDS"
nohup sleep 1000 >/dev/null 2>&1 & echo $! >> "$PIDS"
setsid sleep 1000 & echo $! >> "$PIDS"
sh -c 'sleep 1000 & echo $! >> "$PIDS"' &
sh -c 'trap "" TERM; echo $$ >> "$PIDS"; exec sleep 1000' &
setsid sh -c 'trap "" TERM HUP; echo $$ >> "$PIDS"; while :; do sleep 1; done' &
while [ "$(wc -l < "$PIDS")" -lt 6 ]; do sleep 0.01; done
echo $$ >> "$PIDS"
echo ready
exec sleep 1000`
	w := newWaiter()
	go Shell(context.Background(), script, Options{Stdout: w, Env: env("PIDS=" + pids)})
	<-w.ready
	data, _ := json.Marshal(Self())
	fmt.Printf("%s\nready\n", data)
	select {}
}

// startHelper starts helper in mode and returns its process, its Owner
// record and the pids of its run's processes.
func startHelper(t *testing.T, mode string) (*exec.Cmd, Owner, []int) {
	t.Helper()
	if mode == "cgroup" && !canCgroup() {
		t.Skip("cannot make a cgroup here (not root, no delegated cgroup v2)")
	}
	pidsFile := filepath.Join(t.TempDir(), "pids")
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), modeEnv+"="+mode, helperEnv+"=1", "PIDS="+pidsFile)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var owner Owner
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var pids []int
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		for _, pid := range pids {
			if alive(pid) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		if owner.Cgroup != "" {
			_ = killCgroup(owner.Cgroup, time.Second)
		}
	})
	timeout := time.After(20 * time.Second)
	for ready := false; !ready; {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("the helper ended before it was ready")
			}
			if strings.HasPrefix(l, "{") {
				if err := json.Unmarshal([]byte(l), &owner); err != nil {
					t.Fatal(err)
				}
			}
			ready = l == "ready"
		case <-timeout:
			t.Fatal("the helper was not ready within 20 s")
		}
	}
	b, err := os.ReadFile(pidsFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fields(string(b)) {
		pids = append(pids, atoi(t, f))
	}
	if len(pids) != 7 {
		t.Fatalf("want 7 pids, got %v", pids)
	}
	for _, pid := range pids {
		if !alive(pid) {
			t.Fatalf("process %d is not running", pid)
		}
	}
	return cmd, owner, pids
}

// waitDead waits up to limit for every pid to have died, and lists those
// that have not.
func waitDead(pids []int, limit time.Duration) []int {
	var left []int
	testutil.Until(limit, func() bool {
		left = left[:0]
		for _, pid := range pids {
			if alive(pid) {
				left = append(left, pid)
			}
		}
		return len(left) == 0
	})
	return left
}

// Killing the contained process with SIGKILL ends its runs' processes,
// however they escaped, within seconds: the supervisor does it.
func TestSupervisorEndsRuns(t *testing.T) {
	for _, mode := range []string{"cgroup", "nocgroup"} {
		t.Run(mode, func(t *testing.T) {
			is := is.New(t)
			cmd, owner, pids := startHelper(t, mode)
			is.True(owner.Supervisor > 0)
			is.NoErr(cmd.Process.Kill())
			if left := waitDead(pids, 5*time.Second); len(left) > 0 {
				t.Fatalf("still running 5 s after the helper was killed: %v", left)
			}
			if left := waitDead([]int{owner.Supervisor}, 5*time.Second); len(left) > 0 {
				t.Fatal("the supervisor is still running")
			}
			if owner.Cgroup != "" {
				_, err := os.Stat(owner.Cgroup)
				is.True(os.IsNotExist(err)) // the run cgroup was removed
			}
		})
	}
}

// With the supervisor killed too, the runs' processes live on until
// EndLeftovers ends them (the next run in the workspace calls it).
func TestEndLeftovers(t *testing.T) {
	for _, mode := range []string{"cgroup", "nocgroup"} {
		t.Run(mode, func(t *testing.T) {
			is := is.New(t)
			cmd, owner, pids := startHelper(t, mode)
			is.Equal(EndLeftovers(owner), Leftovers{OwnerAlive: true}) // a live owner is left alone

			is.NoErr(syscall.Kill(owner.Supervisor, syscall.SIGSTOP))
			is.NoErr(cmd.Process.Kill())
			_ = cmd.Wait()
			is.NoErr(syscall.Kill(owner.Supervisor, syscall.SIGKILL))
			is.Equal(len(waitDead([]int{owner.Supervisor}, 5*time.Second)), 0)
			for _, pid := range pids {
				is.True(alive(pid)) // nothing ended them
			}

			left := EndLeftovers(owner)
			is.True(!left.OwnerAlive)
			is.True(len(left.Ended) >= len(pids))
			for _, pid := range pids {
				is.True(!alive(pid))
			}
			if owner.Cgroup != "" {
				_, err := os.Stat(owner.Cgroup)
				is.True(os.IsNotExist(err))
			}
			is.Equal(EndLeftovers(owner), Leftovers{}) // once
		})
	}
}

// A process that cannot be started in the run cgroup is started without
// it, and later runs go on without it (found through the children lists).
func TestCgroupStartFailure(t *testing.T) {
	if os.Getenv(modeEnv) != "cgroup" {
		if os.Getenv(modeEnv) == "" && canCgroup() {
			cmd := exec.Command(os.Args[0], "-test.count=1", "-test.run", "^TestCgroupStartFailure$")
			cmd.Env = append(os.Environ(), modeEnv+"=cgroup")
			if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "PASS") {
				t.Fatalf("%v\n%s", err, out)
			}
			return
		}
		t.Skip("needs a run cgroup")
	}
	is := is.New(t)
	c := currentCgroup()
	is.True(c != nil)
	// A slot whose directory is a file: clone3 refuses it.
	bad, err := syscall.Open(os.DevNull, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	is.NoErr(err)
	c.mu.Lock()
	c.free = append(c.free, &slot{dir: os.DevNull, rel: "/none", dirFD: bad, events: -1})
	c.mu.Unlock()
	var out strings.Builder
	r := Shell(t.Context(), `echo started; sleep 1000 & echo $!`, Options{Stdout: &out})
	is.Equal(r.ExitCode, 0)
	f := fields(out.String())
	is.Equal(f[0], "started")
	is.True(!alive(atoi(t, f[1])))  // its leftover was ended all the same
	is.True(currentCgroup() == nil) // runs go on without the cgroup
	r = Shell(t.Context(), `true`, Options{})
	is.Equal(r.ExitCode, 0)
}

// An Owner is its pid and its start time: a live process that has the
// recorded pid but started at another time (the pid was reused) is not
// the owner, and nothing of it is touched.
func TestEndLeftoversReusedPid(t *testing.T) {
	is := is.New(t)
	other := exec.Command("sleep", "1000")
	is.NoErr(other.Start())
	t.Cleanup(func() { _ = other.Process.Kill(); _ = other.Wait() })
	start := startOf(other.Process.Pid)
	is.True(start > 0)

	is.Equal(EndLeftovers(Owner{PID: other.Process.Pid, Start: start, Marker: "live-" + session}), Leftovers{OwnerAlive: true})

	reused := Owner{PID: other.Process.Pid, Start: start + 1, Marker: "dead-" + session,
		Supervisor: other.Process.Pid, SupervisorStart: start + 1}
	began := time.Now()
	left := EndLeftovers(reused)
	is.True(!left.OwnerAlive)
	is.Equal(len(left.Ended), 0)
	is.True(time.Since(began) < 4*time.Second) // not waited for as a supervisor
	is.True(alive(other.Process.Pid))
}
