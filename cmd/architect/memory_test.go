package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

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
	repo, _ := loopFixture(t, "")
	const gig = "1000000000"
	cmd := exec.Command(bin, "loop", "print a lot", "-C", repo, "--max-iterations", "1",
		"--agent-cmd", "yes 'agent output line that goes on and on' | head -c "+gig,
		"--check", "yes 'check output line that goes on and on' | head -c "+gig+"; exit 1")
	cmd.Stderr = os.Stderr
	err = cmd.Run()
	is.Equal(exitStatus(err), 1) // max_iterations: the check fails
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	peakMB := float64(ru.Maxrss) / 1024 // KiB on Linux
	t.Logf("architect's peak RSS: %.1f MB", peakMB)
	if peakMB >= 50 {
		t.Fatalf("peak RSS %.1f MB, want < 50 MB", peakMB)
	}
	res := readResult(t, repo)
	checks := res["iterations"].([]any)[0].(map[string]any)["check_results"].([]any)
	is.Equal(checks[0].(map[string]any)["output_bytes"], float64(1e9)) // all of it was read
}
