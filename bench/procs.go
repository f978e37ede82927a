//go:build linux

package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// The cost of supervision against the number of processes on the
// machine: architect must find its runs' processes in time that grows
// with the run, not with the machine. Each scenario measures its
// conditions side by side, interleaved, in one run: the idle machine, and
// the same machine with 1,000 and 5,000 unrelated `sleep` processes that
// the bench starts and ends itself.

// procConditions are the numbers of unrelated processes measured.
var procConditions = []int{0, 1000, 5000}

// sleepers starts n `sleep` processes, unrelated to architect.
func sleepers(n int) []*exec.Cmd {
	out := make([]*exec.Cmd, 0, n)
	for range n {
		c := exec.Command("sleep", "3600")
		must(c.Start())
		out = append(out, c)
	}
	return out
}

func endSleepers(cs []*exec.Cmd) {
	for _, c := range cs {
		_ = c.Process.Kill()
	}
	for _, c := range cs {
		_ = c.Wait()
	}
}

// timed runs name with args in dir and returns its wall time and its own
// CPU time (user and system, not its children's), read from /proc while
// it is a zombie, before it is reaped.
func timed(dir, name string, args ...string) (wall, cpu time.Duration) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	start := time.Now()
	must(cmd.Start())
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			must(err)
			break
		}
	}
	wall = time.Since(start)
	cpu = ownCPU(cmd.Process.Pid)
	// Exit status 1 is a loop that ended without success: still measured.
	if err := cmd.Wait(); err != nil {
		if ee := (*exec.ExitError)(nil); !errors.As(err, &ee) || ee.ExitCode() != 1 {
			fatal(fmt.Errorf("%s %v: %w", name, args, err))
		}
	}
	return wall, cpu
}

// ownCPU is utime+stime of pid, from /proc/PID/stat.
func ownCPU(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	must(err)
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / 100 // USER_HZ
}

// floorScript makes the processes architect makes for `loop` with an agent
// `true`, three checks `true` and 25 iterations: the git commands of the
// start (as gitwt runs them today), then per iteration the agent and the
// three checks at once, each through `sh -c`. It is the least any program
// doing this work spends. (git add fails on the ignored .architect once
// architect has run: the script goes on, as architect's own add does not
// fail, having excluded it.)
const floorScript = `git -C . -c gc.autoDetach=false rev-parse --show-toplevel --absolute-git-dir --git-common-dir >/dev/null
git -C . -c gc.autoDetach=false rev-parse --verify --quiet 'HEAD^{commit}' >/dev/null
git -C . -c gc.autoDetach=false ls-files -z --others --ignored --exclude-standard --directory >/dev/null
git -C . -c gc.autoDetach=false -c advice.addIgnoredFile=false -c advice.addEmbeddedRepo=false add --intent-to-add -- . ':(top,exclude).architect' >/dev/null
git -C . -c gc.autoDetach=false -c core.quotePath=false diff-index -M --no-color --no-ext-diff --full-index -p HEAD -- . ':(top,exclude).architect' >/dev/null
i=0
while [ $i -lt 25 ]; do
	sh -c true
	sh -c true & sh -c true & sh -c true & wait
	i=$((i+1))
done`

// overheadRun is `architect loop` for the overhead-bound run, with the
// architect binary exe.
func overheadRun(exe, dir string) (wall, cpu time.Duration) {
	must(os.RemoveAll(filepath.Join(dir, ".architect")))
	return timed(dir, exe, "loop", "noop", "-C", dir, "--quiet", "--idle-threshold", "0", "--inactivity-timeout", "0",
		"--agent-cmd", "true", "--check", "true", "--check", "true", "--check", "true", "--max-iterations", "25")
}

func procsScenario() {
	dir := fixture("procs", 10)
	type sample struct{ arch, floor, cpu, baseArch, baseCPU []float64 }
	by := make([]sample, len(procConditions))
	for range *runs {
		var sl []*exec.Cmd
		for i, n := range procConditions {
			sl = append(sl, sleepers(n-len(sl))...)
			time.Sleep(time.Second) // let the new processes settle
			// The floor and architect alternate within a condition too.
			fw, _ := timed(dir, "sh", "-c", floorScript)
			aw, ac := overheadRun(bin, dir)
			fw2, _ := timed(dir, "sh", "-c", floorScript)
			by[i].arch = append(by[i].arch, aw.Seconds())
			by[i].floor = append(by[i].floor, (fw.Seconds()+fw2.Seconds())/2)
			by[i].cpu = append(by[i].cpu, ac.Seconds())
			if *base != "" {
				bw, bc := overheadRun(*base, dir)
				by[i].baseArch = append(by[i].baseArch, bw.Seconds())
				by[i].baseCPU = append(by[i].baseCPU, bc.Seconds())
			}
		}
		endSleepers(sl)
	}
	per := func(i int) float64 { return (median(by[i].arch) - median(by[i].floor)) / 25 * 1000 }
	cpu := func(i int) float64 { return median(by[i].cpu) / 25 * 1000 }
	baseline := func(i int) string {
		if *base == "" {
			return ""
		}
		return fmt.Sprintf("; baseline build: %.2f ms over the floor, own CPU %.2f ms per iteration",
			(median(by[i].baseArch)-median(by[i].floor))/25*1000, median(by[i].baseCPU)/25*1000)
	}
	for i, n := range procConditions {
		value := fmt.Sprintf("%.2f ms per iteration over the floor (architect %.3f s, floor %.3f s, %.2f×); architect's own CPU %.2f ms per iteration%s",
			per(i), median(by[i].arch), median(by[i].floor), median(by[i].arch)/median(by[i].floor), cpu(i), baseline(i))
		if n == 0 {
			r := median(by[0].arch) / median(by[0].floor)
			report("overhead-bound run (25 iterations × 3 `true` checks) against the process-spawn floor, idle machine", value, "≤ 1.05× the floor", r <= 1.05)
			continue
		}
		r := per(i) / per(0)
		report(fmt.Sprintf("per-iteration overhead with %d unrelated processes", n),
			fmt.Sprintf("%s: %.2f× idle (own CPU %.2f× idle)", value, r, cpu(i)/cpu(0)), "≤ 1.1× idle", r <= 1.1)
	}
}

// batchScenario is a batch of 8 loops, 8 at a time, on the idle machine
// and with 1,000 unrelated processes: architect's own CPU time.
func batchScenario() {
	dir := fixture("batch", 10)
	var tasks strings.Builder
	tasks.WriteString("defaults:\n  agent_cmd: \"true\"\n  checks: [\"true\", \"true\", \"true\"]\n  max_iterations: 10\n  idle_threshold: 0\n  inactivity_timeout: 0\ntasks:\n")
	for i := range 8 {
		fmt.Fprintf(&tasks, "  - id: t%d\n    task: noop %d\n", i, i)
	}
	file := filepath.Join(tmp, "batch.yaml")
	must(os.WriteFile(file, []byte(tasks.String()), 0o644))
	var idle, busy, baseIdle, baseBusy []float64
	reset := func() {
		must(os.RemoveAll(filepath.Join(dir, ".architect-worktrees")))
		git(dir, "worktree", "prune")
		for i := range 8 {
			_ = exec.Command("git", "-C", dir, "branch", "-D", fmt.Sprintf("architect/t%d", i)).Run()
		}
	}
	for range *runs {
		for _, n := range []int{0, 1000} {
			sl := sleepers(n)
			time.Sleep(time.Second)
			reset()
			_, c := timed(dir, bin, "batch", file, "-C", dir, "--parallel", "8", "--quiet")
			if n == 0 {
				idle = append(idle, c.Seconds())
			} else {
				busy = append(busy, c.Seconds())
			}
			if *base != "" {
				reset()
				_, c := timed(dir, *base, "batch", file, "-C", dir, "--parallel", "8", "--quiet")
				if n == 0 {
					baseIdle = append(baseIdle, c.Seconds())
				} else {
					baseBusy = append(baseBusy, c.Seconds())
				}
			}
			endSleepers(sl)
		}
	}
	r := median(busy) / median(idle)
	note := ""
	if *base != "" {
		note = fmt.Sprintf("; baseline build: %.2f s against %.2f s, %.2f×", median(baseBusy), median(baseIdle), median(baseBusy)/median(baseIdle))
	}
	report("`batch --parallel 8` (8 loops × 10 iterations): architect's own CPU time with 1,000 unrelated processes",
		fmt.Sprintf("%.2f s (idle machine: %.2f s): %.2f×%s", median(busy), median(idle), r, note), "≤ 1.2× idle", r <= 1.2)
}
