//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/architect-dev/architect/runlog"
)

// history300 runs a real loop of 300 iterations in a fresh repository:
// each changes a file, prints 200 lines and fails a check that prints 300,
// so that every record, prompt, transcript and diff has something in it.
func history300() string {
	dir := fixture("history", 10)
	cmd := exec.Command(bin, "loop", "a long run", "-C", dir, "--quiet", "--idle-threshold", "0", "--inactivity-timeout", "0",
		"--agent-cmd", `echo "line $ARCHITECT_ITERATION" >> notes.txt; seq 1 200`,
		"--check", "seq 1 300; exit 1", "--check", "true", "--max-iterations", "300")
	cmd.Stderr = os.Stderr
	t0 := time.Now()
	_ = cmd.Run() // ends without success, by design
	fmt.Fprintf(os.Stderr, "bench: 300 iterations recorded in %s\n", time.Since(t0).Round(time.Second))
	return dir
}

// tuiIdle measures what the terminal view costs while nothing happens: a
// run with 300 iterations of history is resumed in a tmux pane (120×40)
// with an agent that sleeps, and architect's own CPU time is read from
// /proc over a window of seconds; the same with --plain, where no view is
// drawn, tells the view's share apart from the loop's own waiting.
func tuiIdle(dir string) {
	if _, err := exec.LookPath("tmux"); err != nil {
		fmt.Fprintln(os.Stderr, "bench: tmux is not installed: skipping the terminal view")
		return
	}
	const window = 10 * time.Second
	sock := filepath.Join(tmp, "tmux.sock")
	measure := func(extra ...string) float64 {
		args := append([]string{"loop", "--resume", "-C", dir, "--max-iterations", "301", "--agent-cmd", "sleep 60"}, extra...)
		line := bin
		for _, a := range args {
			line += " '" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		must(exec.Command("tmux", "-u", "-f", "/dev/null", "-S", sock, "new-session", "-d", "-x", "120", "-y", "40", line).Run())
		defer func() { _ = exec.Command("tmux", "-S", sock, "kill-server").Run() }() // the session may have ended already
		pid := 0
		for deadline := time.Now().Add(30 * time.Second); pid == 0 && time.Now().Before(deadline); {
			if st, err := runlog.ReadStateNow(dir); err == nil && st.Phase == runlog.PhaseAgent {
				pid = st.PID
			}
			time.Sleep(50 * time.Millisecond)
		}
		if pid == 0 {
			fatal(fmt.Errorf("the resumed run did not reach iteration 301"))
		}
		time.Sleep(time.Second) // the first frame drawn
		c0, t0 := ownCPU(pid), time.Now()
		time.Sleep(window)
		c1, t1 := ownCPU(pid), time.Now()
		_ = exec.Command("kill", "-TERM", fmt.Sprint(pid)).Run()
		for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err != nil {
				break
			}
		}
		// The interrupted iteration 301 is recorded (or not): drop it, so
		// that each measurement resumes the same 300.
		trimRecords(dir, 300)
		return float64(c1-c0) / float64(t1.Sub(t0)) * 100
	}
	var view, plain []float64
	for range max(*runs, 1) {
		view = append(view, measure())
		plain = append(plain, measure("--plain"))
	}
	report("terminal view idle, 300 iterations in history (120×40): architect's CPU", fmt.Sprintf("%.2f%% of one core (the same with --plain, no view: %.2f%%)", median(view), median(plain)),
		"< 5%", median(view) < 5)
}

// trimRecords keeps the first n iteration records of the run in dir.
func trimRecords(dir string, n int) {
	path := filepath.Join(dir, ".architect", "iterations.jsonl")
	data, err := os.ReadFile(path)
	must(err)
	lines := strings.SplitAfter(string(data), "\n")
	if len(lines) > n {
		must(os.WriteFile(path, []byte(strings.Join(lines[:n], "")), 0o600))
	}
}

// reportTime times `architect report` on the 300-iteration run, the
// whole process: reading the records and writing the page.
func reportTime(dir string) {
	var times []float64
	var size int64
	for range max(*runs, 3) {
		wall, _ := timed(dir, bin, "report", "-C", dir)
		times = append(times, wall.Seconds()*1000)
		fi, err := os.Stat(filepath.Join(dir, ".architect", "report.html"))
		must(err)
		size = fi.Size()
	}
	report("architect report, 300 iterations (whole process)", fmt.Sprintf("%.0f ms, a page of %.1f MB", median(times), float64(size)/(1<<20)), "< 1 s", median(times) < 1000)
}

func tuiScenario() {
	dir := history300()
	reportTime(dir)
	tuiIdle(dir)
}
