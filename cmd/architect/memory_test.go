//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/architect-dev/architect/runlog/runlogtest"
	"github.com/matryer/is"
)

// An agent and a check that each print 1 GB leave architect's peak RSS
// under 50 MB: output is read through bounded buffers. The binary is built
// without the race detector, whose shadow memory would distort the figure.
func TestMemoryBoundedByOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("prints 2 GB through pipes")
	}
	is := is.New(t)
	bin := filepath.Join(t.TempDir(), "architect")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := build.CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	repo, agentDir := loopFixture(t, "")
	const gig = "1000000000"
	cmd := exec.Command(bin, "loop", "print a lot", "-C", repo, "--max-iterations", "1",
		"--agent-cmd", "yes 'agent output line that goes on and on' | head -c "+gig,
		"--check", "yes 'check output line that goes on and on' | head -c "+gig+"; exit 1")
	cmd.Env = append(os.Environ(), fixtureGitEnv(agentDir)...)
	cmd.Stderr = os.Stderr
	is.NoErr(cmd.Start())
	// architect's own high-water mark (VmHWM), read until it exits: the
	// rusage of a waited-for child also counts its descendants.
	peakKB := 0
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for waiting := true; waiting; {
		if kb := vmHWM(cmd.Process.Pid); kb > peakKB {
			peakKB = kb
		}
		select {
		case err = <-done:
			waiting = false
		case <-time.After(20 * time.Millisecond):
		}
	}
	is.Equal(exitStatus(err), 1) // max_iterations: the check fails
	peakMB := float64(peakKB) / 1024
	t.Logf("architect's peak RSS: %.1f MB", peakMB)
	is.True(peakKB > 0) // it was measured
	if peakMB >= 50 {
		t.Fatalf("peak RSS %.1f MB, want < 50 MB", peakMB)
	}
	res := runlogtest.Result(t, repo)
	is.Equal(res.Iterations[0].CheckResults[0].OutputBytes, int64(1e9)) // all of it was read
}

// vmHWM returns the peak resident set size of pid in KiB, 0 when unknown.
func vmHWM(pid int) int {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			return n
		}
	}
	return 0
}
