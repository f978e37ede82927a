//go:build linux

package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// sizeList are the repositories of the scale scenario, in files (100 to a
// folder); the first is the reference the last is compared with.
var sizeList = flag.String("sizes", "1000,10000,50000,100000", "scale: repository sizes in files")

// scaleIterations is how many iterations each run of the scale scenario
// has, each changing one file.
const scaleIterations = 12

// bigFixture builds a committed repository of n small files, 100 to a
// folder (a 50,000-file one has 500 folders).
func bigFixture(name string, n int) string {
	return layout(name, n, 100, "pkg%04d/file%06d.txt")
}

// scaleChange is the agent of the scale scenario: it changes one file
// (edit, the usual case) or adds one (new).
var scaleChange = flag.String("scale-change", "edit", "scale: what the agent does each iteration: edit (one file) or new (a new file)")

// changeOne is the scale scenario's agent command.
func changeOne() string {
	switch *scaleChange {
	case "new":
		return "date +%s%N > pkg0000/new$(date +%s%N).txt"
	case "edit":
		return "date +%s%N >> pkg0000/file000007.txt"
	}
	fatal(fmt.Errorf("-scale-change %q: say edit (one file changed) or new (a file added)", *scaleChange))
	return ""
}

// scale measures architect's own cost per iteration as the repository
// grows, one file changed per iteration, committed (--mode build), next to
// plain git doing the same work in a copy of the same
// repository: git add -A && git commit && git diff HEAD~1.
func scale() {
	var sizes []int
	for _, f := range strings.Split(*sizeList, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		must(err)
		sizes = append(sizes, n)
	}
	all := make([]*scaleRepos, len(sizes))
	for i, n := range sizes {
		all[i] = newScaleRepos(n)
	}
	// Every size in every run, so that the sizes compared with each other
	// are measured close together in time on a machine whose load drifts.
	for r := range *runs {
		for _, s := range all {
			alternate(r, func() { s.archRun(r) }, s.plainRun)
		}
	}
	for i, s := range all {
		if i == len(all)-1 {
			s.reportLargest(all[0])
		} else {
			report(s.name(), s.value(), "-", true)
		}
	}
	for _, s := range all {
		for _, d := range []string{s.arch, s.plain, s.baseline} {
			if d != "" {
				must(os.RemoveAll(d))
			}
		}
	}
}

// scaleRepos are the copies of one size's repository (architect's, plain
// git's, -baseline's build's) and what was measured on them.
type scaleRepos struct {
	n                         int // files
	arch, plain, baseline     string
	own, span, plainT, starts []float64
	perRun                    []float64 // each run's median overhead
	baseOwn, basePerRun       []float64 // the same for -baseline's build
	baseStarts                []float64
}

func newScaleRepos(n int) *scaleRepos {
	s := &scaleRepos{n: n, arch: bigFixture(fmt.Sprintf("scale-%d", n), n), plain: bigFixture(fmt.Sprintf("scale-%d-git", n), n)}
	if *base != "" {
		s.baseline = bigFixture(fmt.Sprintf("scale-%d-base", n), n)
	}
	return s
}

// loop runs a build on dir, checks that each iteration committed, and
// returns its costs.
func (s *scaleRepos) loop(dir string) (own, span []float64, start float64) {
	before := gitCount(dir)
	res, _, _ := run(dir, "change", "--mode", "build", "--agent-cmd", changeOne(), "--check", "true", "--max-iterations", strconv.Itoa(scaleIterations))
	if len(res.Iterations) != scaleIterations {
		fatal(fmt.Errorf("scale %d: %d iterations (%s)", s.n, len(res.Iterations), res.StopReason))
	}
	if c := gitCount(dir) - before; c != scaleIterations {
		fatal(fmt.Errorf("scale %d: %d commits for %d iterations", s.n, c, scaleIterations))
	}
	return iterationCosts(dir)
}

// archRun is run r of architect on its copy, and with -baseline, of the
// baseline build right before or after, on its own copy.
func (s *scaleRepos) archRun(r int) {
	this := func() {
		o, sp, st := s.loop(s.arch)
		s.own, s.span, s.starts = append(s.own, o...), append(s.span, sp...), append(s.starts, st)
		s.perRun = append(s.perRun, median(o))
	}
	if *base == "" {
		this()
		return
	}
	alternate(r, this, func() {
		saved := bin
		bin = *base
		o, _, st := s.loop(s.baseline)
		bin = saved
		s.baseOwn, s.baseStarts = append(s.baseOwn, o...), append(s.baseStarts, st)
		s.basePerRun = append(s.basePerRun, median(o))
	})
}

// plainRun is plain git doing an iteration's work, as many times.
func (s *scaleRepos) plainRun() {
	for range scaleIterations {
		sh(s.plain, changeOne())
		t0 := time.Now()
		git(s.plain, "add", "-A")
		git(s.plain, "commit", "-q", "-m", "iteration")
		out, err := exec.Command("git", "-C", s.plain, "diff", "HEAD~1").Output()
		must(err)
		if len(out) == 0 {
			fatal(fmt.Errorf("scale %d: plain git saw no change", s.n))
		}
		s.plainT = append(s.plainT, time.Since(t0).Seconds()*1000)
	}
}

// name is the size's line in the report.
func (s *scaleRepos) name() string {
	if *scaleChange == "new" {
		return fmt.Sprintf("per-iteration overhead, %d files, one added and committed per iteration", s.n)
	}
	return fmt.Sprintf("per-iteration overhead, %d files, one changed and committed per iteration", s.n)
}

// value is the size's figures: architect's overhead, plain git's, their
// ratio and the start-up, and the baseline build's.
func (s *scaleRepos) value() string {
	o, p := median(s.own), median(s.plainT)
	value := fmt.Sprintf("%.1f ms (checks finished → iteration recorded: %.1f ms); plain git add -A && git commit && git diff HEAD~1: %.1f ms; ratio %.2f; from the process's start to the first iteration (watching the tree, the first look at it): %.0f ms",
		o, median(s.span), p, o/p, median(s.starts))
	if *base != "" {
		value += fmt.Sprintf("; baseline build: %.1f ms, ratio to plain git %.2f, to the first iteration %.0f ms", median(s.baseOwn), median(s.baseOwn)/p, median(s.baseStarts))
	}
	return value
}

// reportLargest reports the largest size against its target, and its
// overhead against the smallest size's (first), run by run.
func (s *scaleRepos) reportLargest(first *scaleRepos) {
	o, p := median(s.own), median(s.plainT)
	report(s.name(), s.value(), "≤ 0.5× plain git", o <= p/2)
	var ratios []float64
	for r := range s.perRun {
		ratios = append(ratios, s.perRun[r]/first.perRun[r])
	}
	m := median(ratios)
	value := fmt.Sprintf("%.2f× (each run: %s)", m, list(ratios))
	if *base != "" {
		var br []float64
		for r := range s.basePerRun {
			br = append(br, s.basePerRun[r]/first.basePerRun[r])
		}
		value += fmt.Sprintf("; baseline build: %.2f× (each run: %s)", median(br), list(br))
	}
	report(fmt.Sprintf("per-iteration overhead, %d files against %d (median of the runs' ratios)", s.n, first.n), value, "≤ 3×", m <= 3)
}

// gitCount is how many commits HEAD has.
func gitCount(dir string) int {
	out, err := exec.Command("git", "-C", dir, "rev-list", "--count", "HEAD").Output()
	must(err)
	n, err := strconv.Atoi(strings.TrimSpace(string(out)))
	must(err)
	return n
}

// list formats figures as "1.23, 4.56".
func list(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf("%.2f", x)
	}
	return strings.Join(parts, ", ")
}

type event struct {
	Type           string   `json:"type"`
	Time           string   `json:"time"`
	Iteration      int      `json:"iteration"`
	AgentDuration  *float64 `json:"agent_duration"`
	ChecksDuration *float64 `json:"checks_duration"`
}

// iterationCosts reads a run's event log: for each iteration, the time
// from its start to the next one's (or to the end of the run) less the
// agent's and the checks' own, and the time from its last check's end to
// its record; and the time from the process's start to its first
// iteration (start-up, watching the tree, the first look at it).
func iterationCosts(dir string) (own, span []float64, start float64) {
	f, err := os.Open(filepath.Join(dir, ".architect", "events.jsonl"))
	must(err)
	defer f.Close()
	var evs []event
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var ev event
		if json.Unmarshal(sc.Bytes(), &ev) == nil {
			evs = append(evs, ev)
		}
	}
	at := func(ev event) time.Time {
		t, err := time.Parse(time.RFC3339Nano, ev.Time)
		must(err)
		return t
	}
	var began, lastCheck time.Time
	var pending *event
	flush := func(next time.Time) {
		if pending == nil {
			return
		}
		d := next.Sub(began).Seconds() - *pending.AgentDuration - *pending.ChecksDuration
		own = append(own, d*1000)
		pending = nil
	}
	for i, ev := range evs {
		switch ev.Type {
		case "iteration_started":
			flush(at(ev))
			if ev.Iteration == 1 {
				start = at(ev).Sub(lastStart).Seconds() * 1000
			}
			began = at(ev)
		case "check_finished":
			lastCheck = at(ev)
		case "iteration_finished":
			span = append(span, at(ev).Sub(lastCheck).Seconds()*1000)
			pending = &evs[i]
		case "loop_finished":
			flush(at(ev))
		}
	}
	return own, span, start
}

// worktreesScenario measures the creation of a batch's worktrees: 20 tasks on the
// 50,000-file repository, each a one-iteration loop with a no-op agent,
// against git worktree add run 20 times in a copy of the same repository.
// Both are timed on the wall clock and in CPU (user and system, the
// processes they waited for included), which a machine shared with other
// jobs inflates far less; and both are checked: every worktree exists, on
// its branch, with every file of the repository checked out.
var (
	batchFiles    = flag.Int("batch-files", 50000, "worktrees: the repository's size in files")
	batchParallel = flag.String("batch-parallel", "1,4", "worktrees: the --parallel values to measure")
)

func worktreesScenario() {
	const tasks = 20
	files := *batchFiles
	repo := bigFixture("batch", files)
	ref := bigFixture("batch-git", files)
	var y strings.Builder
	y.WriteString("defaults:\n  agent_cmd: \"echo '<promise>COMPLETE</promise>'\"\n  checks: [\"true\"]\n  max_iterations: 1\ntasks:\n")
	for i := range tasks {
		fmt.Fprintf(&y, "  - id: t%02d\n    task: nothing\n", i)
	}
	file := filepath.Join(tmp, "batch.yaml")
	must(os.WriteFile(file, []byte(y.String()), 0o644))
	for _, f := range strings.Split(*batchParallel, ",") {
		parallel, err := strconv.Atoi(strings.TrimSpace(f))
		must(err)
		var arch, plain, archCPU, plainCPU []float64
		for r := range *runs {
			archRun := func() {
				cmd := exec.Command(bin, "batch", file, "-C", repo, "--parallel", strconv.Itoa(parallel))
				t0 := time.Now()
				if out, err := cmd.CombinedOutput(); err != nil {
					fatal(fmt.Errorf("batch: %w\n%s", err, out))
				}
				arch = append(arch, time.Since(t0).Seconds())
				archCPU = append(archCPU, cpuOf(cmd))
				for i := range tasks {
					checkWorktree(filepath.Join(repo, ".architect-worktrees", fmt.Sprintf("t%02d", i)), fmt.Sprintf("architect/t%02d", i), files)
				}
				must(os.RemoveAll(filepath.Join(repo, ".architect-worktrees")))
				git(repo, "worktree", "prune")
				for i := range tasks {
					git(repo, "branch", "-q", "-D", fmt.Sprintf("architect/t%02d", i))
				}
			}
			plainRun := func() {
				t0 := time.Now()
				cpu := 0.0
				for i := range tasks {
					cmd := exec.Command("git", "-C", ref, "worktree", "add", "-q", "-b", fmt.Sprintf("ref/t%02d", i), filepath.Join(ref, ".wt", fmt.Sprintf("t%02d", i)), "HEAD")
					if out, err := cmd.CombinedOutput(); err != nil {
						fatal(fmt.Errorf("git worktree add: %w\n%s", err, out))
					}
					cpu += cpuOf(cmd)
				}
				plain = append(plain, time.Since(t0).Seconds())
				plainCPU = append(plainCPU, cpu)
				for i := range tasks {
					checkWorktree(filepath.Join(ref, ".wt", fmt.Sprintf("t%02d", i)), fmt.Sprintf("ref/t%02d", i), files)
				}
				must(os.RemoveAll(filepath.Join(ref, ".wt")))
				git(ref, "worktree", "prune")
				for i := range tasks {
					git(ref, "branch", "-q", "-D", fmt.Sprintf("ref/t%02d", i))
				}
			}
			alternate(r, archRun, plainRun)
		}
		a, p := median(arch), median(plain)
		ac, pc := median(archCPU), median(plainCPU)
		report(fmt.Sprintf("batch of %d one-iteration tasks on %d files, --parallel %d: the whole batch, every worktree checked", tasks, files, parallel),
			fmt.Sprintf("wall %.1f s, CPU %.1f s; git worktree add %d times: wall %.1f s, CPU %.1f s; ratio wall %.2f, CPU %.2f (each run's wall: %s against %s)",
				a, ac, tasks, p, pc, a/p, ac/pc, list(arch), list(plain)),
			"≤ 1.1× git worktree add", a <= 1.1*p)
	}
	must(os.RemoveAll(repo))
	must(os.RemoveAll(ref))
}

// cpuOf is the user and system time of a finished command, in seconds,
// with that of the processes it waited for.
func cpuOf(cmd *exec.Cmd) float64 {
	return (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
}

// checkWorktree fails the bench unless dir is a worktree on branch with
// every one of the repository's files checked out: as many tracked as
// the repository has, as many on disk (architect's own folder aside), and
// none differing from the index.
func checkWorktree(dir, branch string, files int) {
	out, err := exec.Command("git", "-C", dir, "rev-parse", "--abbrev-ref", "HEAD").Output()
	if err != nil || strings.TrimSpace(string(out)) != branch {
		fatal(fmt.Errorf("worktree %s: on %q, not on %s (%w)", dir, strings.TrimSpace(string(out)), branch, err))
	}
	out, err = exec.Command("git", "-C", dir, "ls-files", "-z").Output()
	must(err)
	if n := strings.Count(string(out), "\x00"); n != files {
		fatal(fmt.Errorf("worktree %s: %d files tracked, want %d", dir, n, files))
	}
	n := 0
	must(filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path != dir && (d.Name() == ".git" || d.Name() == ".architect") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			n++
		}
		return nil
	}))
	if n != files {
		fatal(fmt.Errorf("worktree %s: %d files on disk, want %d", dir, n, files))
	}
	if err := exec.Command("git", "-C", dir, "diff", "--quiet").Run(); err != nil {
		fatal(fmt.Errorf("worktree %s: files differ from the commit checked out (%w)", dir, err))
	}
}
