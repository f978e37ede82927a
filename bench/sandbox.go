//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/architect-dev/architect/sandbox"
)

// sandboxScenario is the sandbox's cost per iteration: the same loop (a
// no-op agent, 3 no-op checks, 25 iterations) with --sandbox off and with
// --sandbox workspace, the difference in wall time per iteration. Each
// confined process is one more start of architect (the helper applies
// the rules, then execs); the checks start at once, so on 2 cores an
// iteration pays about 2.5 starts of wall time. It also times that start
// alone: /bin/true through the helper, with the policy a run builds,
// against /bin/true. With -baseline, the other binary is measured too,
// the two alternating.
func sandboxScenario() {
	const iters = 25
	dir := fixture("sandbox", 100)
	bins := []string{bin}
	if *base != "" {
		bins = append(bins, *base)
	}
	perIter := func(b, mode string) float64 {
		saved := bin
		defer func() { bin = saved }()
		bin = b
		res, wall, _ := run(dir, "noop", "--sandbox", mode, "--agent-cmd", "true", "--check", "true", "--check", "true", "--check", "true", "--max-iterations", strconv.Itoa(iters))
		if len(res.Iterations) != iters {
			fatal(fmt.Errorf("sandbox: %d iterations (%s)", len(res.Iterations), res.StopReason))
		}
		return wall.Seconds() / iters * 1000
	}
	off := make([][]float64, len(bins))
	on := make([][]float64, len(bins))
	for r := range *runs {
		for i, b := range bins {
			alternate(r+i, func() { off[i] = append(off[i], perIter(b, "off")) }, func() { on[i] = append(on[i], perIter(b, "workspace")) })
		}
	}
	name := func(i int) string {
		if i == 0 {
			return ""
		}
		return " (baseline " + bins[i] + ")"
	}
	for i := range bins {
		o, w := median(off[i]), median(on[i])
		report("the sandbox's cost per iteration (--sandbox workspace against off: a no-op agent and 3 no-op checks, 25 iterations, wall time)"+name(i),
			fmt.Sprintf("%.1f ms (%.1f → %.1f ms)", w-o, o, w), "< 5 ms", w-o < 5)
	}
	start := helperStart(dir, bins)
	for i := range bins {
		n := "one confined process: /bin/true through the helper against /bin/true (200 each, alternating; medians of wall and of user+system CPU)" + name(i)
		table = append(table, row{n, start[i], "none of its own", ""})
		fmt.Fprintf(os.Stderr, "bench: %s: %s\n", n, start[i])
	}
}

// helperStart times /bin/true started through each binary's helper, and
// alone, 200 times each, alternating; the policy is the one a run in dir
// gives its agent.
func helperStart(dir string, bins []string) []string {
	sandbox.EnableHelper() // the helper's command line is given to bins, which serve it
	sb, err := sandbox.New(sandbox.Settings{Mode: sandbox.ModeWorkspace, Workspace: dir, Agents: []string{"claude"}})
	if err != nil {
		return []string{"not measured: " + err.Error()}
	}
	defer sb.Close()
	_, args, _, err := sb.AgentWrap()("/bin/true", nil, "true")
	must(err)
	time1 := func(path string, args ...string) (wall, cpu float64) {
		cmd := exec.Command(path, args...)
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		t := time.Now()
		must(cmd.Run())
		wall = float64(time.Since(t).Microseconds()) / 1000
		st := cmd.ProcessState
		return wall, float64((st.UserTime() + st.SystemTime()).Microseconds()) / 1000
	}
	var trueWall, trueCPU []float64
	wall := make([][]float64, len(bins))
	cpu := make([][]float64, len(bins))
	for range 200 {
		w, c := time1("/bin/true")
		trueWall, trueCPU = append(trueWall, w), append(trueCPU, c)
		for i, b := range bins {
			w, c := time1(b, args...)
			wall[i], cpu[i] = append(wall[i], w), append(cpu[i], c)
		}
	}
	out := make([]string, len(bins))
	for i := range bins {
		out[i] = fmt.Sprintf("%.2f ms against %.2f ms alone (CPU %.2f against %.2f ms)", median(wall[i]), median(trueWall), median(cpu[i]), median(trueCPU))
	}
	return out
}
