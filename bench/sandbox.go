//go:build linux

package main

import (
	"fmt"
	"strconv"
)

// sandboxScenario is the sandbox's cost per iteration: the same loop (a
// no-op agent, 3 no-op checks, 25 iterations) with --sandbox off and with
// --sandbox workspace, the difference in wall time per iteration. Each
// confined process is one more start of architect (the helper applies
// the rules, then execs); the checks start at once, so an iteration pays
// about two starts of wall time.
func sandboxScenario() {
	const iters = 25
	dir := fixture("sandbox", 100)
	perIter := func(mode string) float64 {
		var per []float64
		for range *runs {
			res, wall, _ := run(dir, "noop", "--sandbox", mode, "--agent-cmd", "true", "--check", "true", "--check", "true", "--check", "true", "--max-iterations", strconv.Itoa(iters))
			if len(res.Iterations) != iters {
				fatal(fmt.Errorf("sandbox: %d iterations (%s)", len(res.Iterations), res.StopReason))
			}
			per = append(per, wall.Seconds()/iters*1000)
		}
		return median(per)
	}
	off, on := perIter("off"), perIter("workspace")
	d := on - off
	report("the sandbox's cost per iteration (--sandbox workspace against off: a no-op agent and 3 no-op checks, 25 iterations, wall time)",
		fmt.Sprintf("%.1f ms (%.1f → %.1f ms)", d, off, on), "< 5 ms", d < 5)
}
