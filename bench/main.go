//go:build linux

// Command bench measures architect's own cost next to the processes it
// runs: it builds architect, runs it on fixture repositories and prints a
// table (Markdown, for bench/RESULTS.md). Run it from the repository root:
//
//	go run ./bench            # every scenario, 3 runs each (medians)
//	go run ./bench -runs 5 -only overhead,startup
//	go run ./bench -only scale,batch   # 1k to 100k-file repositories, a batch of 20
//
// The hot functions have `go test -bench . ./bench` benchmarks.
//
// It builds on Linux only: it reads each process's CPU time from /proc and
// waits for it with waitid.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/architect-dev/architect/changes"
	"github.com/architect-dev/architect/gitwt"
	"github.com/architect-dev/architect/prompt"
)

var (
	runs = flag.Int("runs", 3, "runs per scenario (the median is reported)")
	only = flag.String("only", "", "comma-separated scenarios: overhead, checks, diff, output, startup, procs, batch, tui (the terminal view idle and the report, on 300 iterations), scale (1k to 100k files), worktrees (a batch's worktrees on 50k files), look (the clean last look, 1k and 10k files), sandbox (the cost per iteration of --sandbox workspace), candidates (--candidates' worktrees: first creation and a round's reset, 100k files), setup (worktree_setup: npm ci in a batch of 10 worktrees, private and shared caches, node_modules linked; needs npm and the registry)")
	use  = flag.String("bin", "", "measure this architect binary instead of building one")
	base = flag.String("baseline", "", "procs, batch and scale: measure this other architect binary too, side by side (e.g. a build of main)")
	bin  string
	tmp  string
)

type row struct{ name, value, target, verdict string }

// lastStart is when run last started architect.
var lastStart time.Time

var table []row

func report(name, value, target string, ok bool) {
	v := "met"
	if !ok {
		v = "MISSED"
	}
	table = append(table, row{name, value, target, v})
	fmt.Fprintf(os.Stderr, "bench: %s: %s (target %s) %s\n", name, value, target, v)
}

func main() {
	flag.Parse()
	var err error
	if tmp, err = os.MkdirTemp("", "architect-bench-"); err != nil {
		fatal(err)
	}
	defer os.RemoveAll(tmp)
	home := filepath.Join(tmp, "home")
	must(os.MkdirAll(home, 0o755))
	gitconfig := filepath.Join(home, ".gitconfig")
	must(os.WriteFile(gitconfig, []byte("[user]\n\tname = Bench\n\temail = bench@example.com\n[init]\n\tdefaultBranch = main\n"), 0o644))
	os.Setenv("HOME", home)
	os.Setenv("GIT_CONFIG_GLOBAL", gitconfig)
	os.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	os.Setenv("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
	os.Setenv("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")

	bin = filepath.Join(tmp, "architect")
	if *use != "" {
		if bin, err = filepath.Abs(*use); err != nil {
			fatal(err)
		}
	} else {
		fmt.Fprintln(os.Stderr, "bench: building architect as releases are built (static, CGO_ENABLED=0)")
		build := exec.Command("go", "build", "-trimpath", "-o", bin, "./cmd/architect")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			fatal(fmt.Errorf("go build: %w\n%s", err, out))
		}
	}
	want := func(s string) bool { return *only == "" || slices.Contains(strings.Split(*only, ","), s) }
	for _, sc := range []struct {
		name string
		run  func()
	}{
		{"overhead", overhead}, {"checks", concurrentChecks}, {"diff", diffPhase}, {"output", output},
		{"startup", startup}, {"procs", procsScenario}, {"batch", batchScenario}, {"tui", tuiScenario},
		{"scale", scale}, {"worktrees", worktreesScenario}, {"look", lookScenario}, {"sandbox", sandboxScenario},
		{"candidates", candidatesScenario},
		{"setup", setupScenario}, // the network and minutes: only when asked (-only setup)
	} {
		if want(sc.name) && (sc.name != "setup" || *only != "") {
			sc.run()
		}
	}
	fmt.Printf("Machine: %s\n\n", machine())
	fmt.Println("| measurement | result (median of runs) | target | |")
	fmt.Println("|---|---|---|---|")
	for _, r := range table {
		fmt.Printf("| %s | %s | %s | %s |\n", r.name, r.value, r.target, r.verdict)
	}
}

// fixture builds a git repository of n small files, 50 to a folder,
// committed.
func fixture(name string, n int) string {
	return layout(name, n, 50, "pkg%03d/file%05d.txt")
}

// layout builds a committed repository of n small files, perDir to a
// folder, named by pattern from the folder's and the file's numbers.
func layout(name string, n, perDir int, pattern string) string {
	dir := filepath.Join(tmp, name)
	for i := range n {
		p := filepath.Join(dir, filepath.FromSlash(fmt.Sprintf(pattern, i/perDir, i)))
		if i%perDir == 0 {
			must(os.MkdirAll(filepath.Dir(p), 0o755))
		}
		must(os.WriteFile(p, []byte(fmt.Sprintf("file %d\nline two\nline three\n", i)), 0o644))
	}
	git(dir, "init", "-q")
	git(dir, "add", "-A")
	git(dir, "-c", "gc.auto=0", "commit", "-q", "-m", "fixture")
	// Packed, as a repository of that size is; and no gc --auto left
	// running in the background while the scenario measures.
	git(dir, "-c", "gc.autoDetach=false", "gc", "-q")
	return dir
}

// alternate runs a then b, or b then a on odd runs, so that neither is
// always the one that meets a warm (or cold) cache.
func alternate(run int, a, b func()) {
	if run%2 == 1 {
		a, b = b, a
	}
	a()
	b()
}

func git(dir string, args ...string) {
	if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
		fatal(fmt.Errorf("git %v: %w\n%s", args, err, out))
	}
}

type iteration struct {
	Duration       float64 `json:"duration"`
	AgentDuration  float64 `json:"agent_duration"`
	ChecksDuration float64 `json:"checks_duration"`
	CheckResults   []struct {
		Duration float64 `json:"duration"`
	} `json:"check_results"`
}

type result struct {
	Iterations []iteration `json:"iterations"`
	StopReason string      `json:"stop_reason"`
}

// run runs architect loop in dir; it returns the result, the wall time
// and architect's own peak RSS (VmHWM, polled: its children are not counted).
func run(dir string, args ...string) (result, time.Duration, int64) {
	cmd := exec.Command(bin, append([]string{"loop", "-C", dir, "--quiet", "--idle-threshold", "0", "--inactivity-timeout", "0"}, args...)...)
	cmd.Stderr = os.Stderr
	start := time.Now()
	lastStart = start
	must(cmd.Start())
	done := make(chan struct{})
	peak := make(chan int64)
	go func() {
		var hwm int64
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			if v := vmHWM(cmd.Process.Pid); v > hwm {
				hwm = v
			}
			select {
			case <-done:
				peak <- hwm
				return
			case <-t.C:
			}
		}
	}()
	_ = cmd.Wait()
	wall := time.Since(start)
	close(done)
	hwm := <-peak
	var res result
	data, err := os.ReadFile(filepath.Join(dir, ".architect", "result.json"))
	must(err)
	must(json.Unmarshal(data, &res))
	return res, wall, hwm
}

// vmHWM is a process's peak resident set in bytes, 0 once it is gone.
func vmHWM(pid int) int64 {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func overhead() {
	const iters = 25
	dir := fixture("overhead", 5000)
	var per []float64
	for range *runs {
		res, wall, _ := run(dir, "noop", "--agent-cmd", "true", "--check", "true", "--check", "true", "--check", "true", "--max-iterations", strconv.Itoa(iters))
		if len(res.Iterations) != iters {
			fatal(fmt.Errorf("overhead: %d iterations (%s)", len(res.Iterations), res.StopReason))
		}
		own := 0.0
		for _, it := range res.Iterations {
			own += it.AgentDuration + it.ChecksDuration
		}
		per = append(per, (wall.Seconds()-own)/iters*1000)
	}
	m := median(per)
	report("orchestration overhead per iteration (no-op agent, 3 no-op checks, 25 iterations, 5,000 files; wall time less the agent's and checks' own, start-up included)",
		fmt.Sprintf("%.1f ms", m), "≤ 15 ms", m <= 15)
}

func concurrentChecks() {
	dir := fixture("checks", 10)
	var phase, speed []float64
	for range *runs {
		res, _, _ := run(dir, "checks", "--agent-cmd", "true", "--check", "sleep 1", "--check", "sleep 1", "--check", "sleep 1", "--check", "sleep 1", "--max-iterations", "1")
		it := res.Iterations[0]
		serial := 0.0
		for _, c := range it.CheckResults {
			serial += c.Duration
		}
		phase = append(phase, it.ChecksDuration)
		speed = append(speed, serial/it.ChecksDuration)
	}
	report("checks phase, 4 × `sleep 1`", fmt.Sprintf("%.3f s", median(phase)), "≈ 1 s", median(phase) < 1.2)
	report("speed-up over one after another", fmt.Sprintf("%.2f×", median(speed)), "≥ 3.5×", median(speed) >= 3.5)
}

// rewrite gives each of n files about 25 KB of new content, different per round.
const rewriteScript = `i=0; while [ $i -lt %d ]; do f=$(printf 'pkg%%03d/file%%05d.txt' $((i/50)) $i); head -c 25000 /dev/urandom | base64 > "$f"; i=$((i+1)); done`

func diffPhase() {
	const files = 2000
	dir := fixture("diff", files)
	ctx := context.Background()
	repo, err := gitwt.Open(ctx, dir)
	must(err)
	head, err := repo.Head(ctx)
	must(err)
	var gitT, archT, ratio []float64
	var size int64
	for i := range *runs {
		sh(dir, fmt.Sprintf(rewriteScript, files))
		gitDiff := func() float64 {
			t0 := time.Now()
			out, err := exec.Command("git", "-C", dir, "diff", "HEAD").Output()
			must(err)
			size = int64(len(out))
			return time.Since(t0).Seconds()
		}
		archDiff := func() float64 {
			t0 := time.Now()
			d, err := changes.Compare(ctx, repo, head, []string{".architect"}, prompt.DiffLimit)
			must(err)
			if d.Total < size/2 {
				fatal(fmt.Errorf("diff: architect saw %d bytes, git %d", d.Total, size))
			}
			return time.Since(t0).Seconds()
		}
		// Whichever runs first after the rewrite pays for reading the new
		// files: the order alternates between runs.
		var gitD, archD float64
		if i%2 == 0 {
			gitD = gitDiff()
			archD = archDiff()
		} else {
			size = 0
			archD = archDiff()
			gitD = gitDiff()
		}
		gitT, archT, ratio = append(gitT, gitD), append(archT, archD), append(ratio, archD/gitD)
		git(dir, "checkout", "-q", "--", ".")
	}
	report(fmt.Sprintf("diff phase, 2,000 files rewritten (%.0f MB of diff): architect's diff (with new files and the stat)", float64(size)/1e6),
		fmt.Sprintf("%.2f s (git diff alone: %.2f s; %.2f×)", median(archT), median(gitT), median(ratio)), "≤ 1.5× git diff", median(ratio) <= 1.5)

	// The whole binary, for its peak RSS through that phase.
	var rss []float64
	for range *runs {
		res, _, hwm := run(dir, "rewrite", "--agent-cmd", fmt.Sprintf(rewriteScript, files), "--max-iterations", "1", "--no-checks")
		if len(res.Iterations) != 1 {
			fatal(fmt.Errorf("diff: no iteration (%s)", res.StopReason))
		}
		rss = append(rss, float64(hwm)/(1<<20))
		git(dir, "checkout", "-q", "--", ".")
	}
	report("architect's peak RSS through an iteration with that diff", fmt.Sprintf("%.1f MB", median(rss)), "≤ 50 MB", median(rss) <= 50)
}

// printGB prints 1 GB of 64-byte lines.
const printGB = `yes 'architect bench: a line of output from a chatty process......' | head -c 1000000000`

func output() {
	dir := fixture("output", 10)
	var base, cat, aRate, aRSS, cRate, cRSS []float64
	for range *runs {
		// Interleaved, so that the references and architect see the same
		// machine: the pipeline alone into /dev/null, then with cat reading
		// it, the least a reader can cost.
		t0 := time.Now()
		sh(dir, printGB+" >/dev/null")
		base = append(base, 1e9/time.Since(t0).Seconds()/1e6)
		t0 = time.Now()
		sh(dir, printGB+" | cat >/dev/null")
		cat = append(cat, 1e9/time.Since(t0).Seconds()/1e6)
		res, _, hwm := run(dir, "print", "--agent-cmd", printGB, "--max-iterations", "1", "--no-checks")
		aRate = append(aRate, 1e9/res.Iterations[0].AgentDuration/1e6)
		aRSS = append(aRSS, float64(hwm)/(1<<20))
		res, _, hwm = run(dir, "print", "--agent-cmd", "true", "--check", printGB, "--max-iterations", "1")
		cRate = append(cRate, 1e9/res.Iterations[0].CheckResults[0].Duration/1e6)
		cRSS = append(cRSS, float64(hwm)/(1<<20))
	}
	note := fmt.Sprintf(" (the same pipeline into cat: %.0f MB/s; into /dev/null: %.0f MB/s)", median(cat), median(base))
	report("agent printing 1 GB: consumed at", fmt.Sprintf("%.0f MB/s%s", median(aRate), note), "≥ 500 MB/s", median(aRate) >= 500)
	report("agent printing 1 GB: architect's peak RSS", fmt.Sprintf("%.1f MB", median(aRSS)), "≤ 50 MB", median(aRSS) <= 50)
	report("check printing 1 GB: consumed at", fmt.Sprintf("%.0f MB/s%s", median(cRate), note), "≥ 500 MB/s", median(cRate) >= 500)
	report("check printing 1 GB: architect's peak RSS", fmt.Sprintf("%.1f MB", median(cRSS)), "≤ 50 MB", median(cRSS) <= 50)
}

func startup() {
	// References, built and timed the same way, interleaved with
	// architect: what starting any process and any Go program costs here.
	hello := filepath.Join(tmp, "hello")
	src := filepath.Join(tmp, "hello.go")
	must(os.WriteFile(src, []byte("package main\n\nimport \"os\"\n\nfunc main() { os.Stdout.WriteString(\"hello\\n\") }\n"), 0o644))
	build := exec.Command("go", "build", "-trimpath", "-o", hello, src)
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GO111MODULE=off")
	if out, err := build.CombinedOutput(); err != nil {
		fatal(fmt.Errorf("go build hello: %w\n%s", err, out))
	}
	// The libraries architect is built on, initialised and nothing else:
	// the floor for any program made of them.
	libs := filepath.Join(tmp, "libs")
	libsSrc := filepath.Join("bench", "out", "libs")
	must(os.MkdirAll(libsSrc, 0o755))
	defer os.RemoveAll(libsSrc)
	must(os.WriteFile(filepath.Join(libsSrc, "main.go"), []byte(libsProgram), 0o644))
	build = exec.Command("go", "build", "-trimpath", "-o", libs, "./"+libsSrc)
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		fatal(fmt.Errorf("go build %s: %w\n%s", libsSrc, err, out))
	}
	cmds := [][]string{{bin, "--version"}, {libs}, {hello}, {"true"}}
	times := make([][]float64, len(cmds))
	for range 30 * max(*runs/3, 1) {
		for i, c := range cmds {
			t0 := time.Now()
			must(exec.Command(c[0], c[1:]...).Run())
			times[i] = append(times[i], time.Since(t0).Seconds()*1000)
		}
	}
	m := median(times[0])
	report("start-up: architect --version", fmt.Sprintf("%.1f ms (architect's libraries alone: %.1f ms; a hello-world Go program: %.1f ms; /bin/true: %.1f ms)",
		m, median(times[1]), median(times[2]), median(times[3])),
		"≤ 10 ms", m <= 10)
}

// libsProgram imports the libraries architect's binary links, for their
// initialisation, and prints a line.
const libsProgram = `package main

import (
	"os"

	_ "encoding/json"
	_ "html/template"
	_ "os/exec"
	_ "regexp"
	_ "time/tzdata"

	_ "github.com/gofrs/flock"
	_ "github.com/google/renameio/v2"
	_ "github.com/sergi/go-diff/diffmatchpatch"
	_ "github.com/sourcegraph/conc/pool"
	_ "github.com/spf13/cobra"
	_ "github.com/spf13/pflag"
	_ "go.yaml.in/yaml/v3"
	_ "golang.org/x/term"
	_ "mvdan.cc/sh/v3/syntax"
)

func main() { os.Stdout.WriteString("libs\n") }
`

func sh(dir, script string) {
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		fatal(fmt.Errorf("sh -c %q: %w\n%s", script, err, out))
	}
}

func machine() string {
	cpu := "unknown CPU"
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(l, "model name"); ok {
				cpu = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
				break
			}
		}
	}
	gv, _ := exec.Command("git", "--version").Output()
	kernel, _ := exec.Command("uname", "-sr").Output()
	return fmt.Sprintf("%s, %d CPUs (%s), %s, %s, %s", strings.TrimSpace(string(kernel)), runtime.NumCPU(), cpu,
		runtime.Version(), strings.TrimSpace(string(gv)), "shared with other jobs")
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

func must(err error) {
	if err != nil {
		fatal(err)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "bench: error:", err)
	os.Exit(1)
}
