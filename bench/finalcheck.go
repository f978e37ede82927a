//go:build linux

package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

var lookSizes = flag.String("look-sizes", "1000,10000", "look: repository sizes in files")

// lookEnvFiles is the size of the ignored node_modules the look's
// repositories hold: the clean last look brings it in.
const lookEnvFiles = 10000

// lookScenario measures the clean last look (final_check clean) against
// its target price: one worktree checkout plus one run of
// the checks. Each run is one iteration whose agent changes one file and
// declares completion; its record holds the look's checkout time (the
// snapshot commit, `git worktree add`, bringing node_modules in, removing
// it all) and its checks' time, next to the same checks' time in the
// agent's tree. Plain git's `git worktree add --detach` + `git worktree
// remove` of the same repository is timed right after, as the reference
// for one worktree checkout. The same iteration with --final-check off
// gives the run's time without the look.
func lookScenario() {
	var sizes []int
	for _, f := range strings.Split(*lookSizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		must(err)
		sizes = append(sizes, n)
	}
	type sums struct{ look, checkout, checks, agentChecks, plainCheckout, wallClean, wallOff []float64 }
	all := make([]*sums, len(sizes))
	dirs := make([]string, len(sizes))
	for i, n := range sizes {
		all[i] = &sums{}
		dirs[i] = fixture(fmt.Sprintf("look-%d", n), n)
		// An ignored node_modules of lookEnvFiles files, 200 to a package.
		must(os.WriteFile(filepath.Join(dirs[i], ".gitignore"), []byte("node_modules/\n"), 0o644))
		for k := range lookEnvFiles {
			p := filepath.Join(dirs[i], "node_modules", fmt.Sprintf("pkg%03d", k/200), fmt.Sprintf("f%05d.js", k))
			if k%200 == 0 {
				must(os.MkdirAll(filepath.Dir(p), 0o755))
			}
			must(os.WriteFile(p, []byte("module.exports = 1;\n"), 0o644))
		}
		git(dirs[i], "add", ".gitignore")
		git(dirs[i], "commit", "-q", "-m", "ignore node_modules")
	}
	agent := `date +%s%N >> pkg000/file00007.txt; echo '<promise>COMPLETE</promise>'`
	// The check reads the folder the agent changes and needs node_modules.
	check := `cat pkg000/*.txt > /dev/null && test -f node_modules/pkg049/f09999.js`
	for r := range *runs {
		for i, n := range sizes {
			dir, s := dirs[i], all[i]
			once := func(mode string) look {
				_ = os.RemoveAll(filepath.Join(dir, ".architect"))
				_, wall, _ := run(dir, "change", "--agent-cmd", agent, "--check", check, "--max-iterations", "1", "--final-check", mode)
				l := readLook(dir)
				l.wall = wall.Seconds()
				if l.stop != "all_checks_passed" {
					fatal(fmt.Errorf("look %d (%s): stopped on %s", n, mode, l.stop))
				}
				return l
			}
			// One plain worktree checkout of the same repository.
			plainCheckout := func() {
				wt := filepath.Join(tmp, fmt.Sprintf("look-%d-plain", n))
				t0 := time.Now()
				git(dir, "worktree", "add", "-q", "--detach", wt, "HEAD")
				git(dir, "worktree", "remove", "--force", wt)
				s.plainCheckout = append(s.plainCheckout, time.Since(t0).Seconds()*1000)
			}
			alternate(r, plainCheckout, func() {
				l := once("clean")
				if l.fc == nil || l.fc.Status != "passed" || len(l.fc.Environment) != 1 {
					fatal(fmt.Errorf("look %d: the clean look did not pass with node_modules brought in: %+v", n, l.fc))
				}
				s.look = append(s.look, l.fc.Duration*1000)
				s.checkout = append(s.checkout, l.fc.CheckoutDuration*1000)
				s.checks = append(s.checks, l.fc.ChecksDuration*1000)
				s.agentChecks = append(s.agentChecks, l.checks*1000)
				s.wallClean = append(s.wallClean, l.wall*1000)
			})
			s.wallOff = append(s.wallOff, once("off").wall*1000)
		}
	}
	for i, n := range sizes {
		s := all[i]
		look, checkout, checks := median(s.look), median(s.checkout), median(s.checks)
		plain, agentChecks := median(s.plainCheckout), median(s.agentChecks)
		price := plain + agentChecks
		value := fmt.Sprintf("%.0f ms: checkout %.0f ms (plain git worktree add + remove: %.0f ms), checks %.0f ms (the same checks in the agent's tree: %.0f ms); ratio to one checkout plus one run of the checks %.2f; the run with the look %.0f ms, without %.0f ms",
			look, checkout, plain, checks, agentChecks, look/price, median(s.wallClean), median(s.wallOff))
		report(fmt.Sprintf("clean last look, %d files and an ignored node_modules of %d files", n, lookEnvFiles), value,
			"≤ 1.5× one worktree checkout plus one run of the checks", look <= 1.5*price)
	}
}

type look struct {
	fc     *lookRecord
	checks float64 // the iteration's own checks, seconds
	stop   string
	wall   float64
}

type lookRecord struct {
	Status           string   `json:"status"`
	Duration         float64  `json:"duration"`
	CheckoutDuration float64  `json:"checkout_duration"`
	ChecksDuration   float64  `json:"checks_duration"`
	Environment      []string `json:"environment"`
}

// readLook reads the last look and the checks' time of the run in dir.
func readLook(dir string) look {
	var res struct {
		StopReason string `json:"stop_reason"`
		Iterations []struct {
			ChecksDuration float64     `json:"checks_duration"`
			FinalCheck     *lookRecord `json:"final_check"`
		} `json:"iterations"`
	}
	data, err := os.ReadFile(filepath.Join(dir, ".architect", "result.json"))
	must(err)
	must(json.Unmarshal(data, &res))
	if len(res.Iterations) != 1 {
		fatal(fmt.Errorf("look: %d iterations", len(res.Iterations)))
	}
	return look{fc: res.Iterations[0].FinalCheck, checks: res.Iterations[0].ChecksDuration, stop: res.StopReason}
}
