// Command mutants breaks architect's guarantees one at a time, on purpose,
// and checks that a test of the package that keeps each one fails. The
// list (list.go) is of chosen changes, each naming the promise it breaks:
// a random mutation tool would spend its time on changes no promise
// depends on and could not say which promise a survivor leaves unguarded.
//
//	go run ./internal/mutants              # every mutant, 2 at a time
//	go run ./internal/mutants -run loop/   # those whose name matches
//	go run ./internal/mutants -list        # the list, with the guarantees
//
// No file of the tree is changed: each mutant is a copy of one file that
// `go test -overlay` compiles in place of the original, so a run that is
// killed leaves nothing behind, and the build cache keeps every package
// the mutant does not touch. A mutant's snippet must occur exactly once in
// its file: when the code it names has moved or changed, the run says so
// and fails, rather than testing nothing.
//
// It exits with status 1 when a mutant survives (its package's tests all
// pass with the guarantee broken), cannot be applied, or does not build.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
)

// mutant is one change that breaks one guarantee.
type mutant struct {
	name      string // short, unique: package/what-breaks
	guarantee string // the promise the change breaks, in words
	file      string // relative to the module root
	find      string // occurs exactly once in file
	replace   string
	pkg       string // the package whose tests must catch it; the file's by default
	run       string // go test -run: the tests to run, all by default
	timeout   time.Duration
}

// The outcomes of a mutant.
const (
	caught   = "caught"
	survived = "SURVIVED"
	stale    = "STALE"  // the snippet is not in the file exactly once
	broken   = "BROKEN" // the mutant does not build, or no test ran
)

type outcome struct {
	m      mutant
	status string
	by     string // the test that failed, or why the mutant is stale or broken
	took   time.Duration
	output string
}

func main() {
	runPat := flag.String("run", "", "run only the mutants whose name matches this `regexp`")
	jobs := flag.Int("j", min(runtime.NumCPU(), 4), "mutants tested at the same time")
	list := flag.Bool("list", false, "print the mutants and the guarantee each breaks, and exit")
	verbose := flag.Bool("v", false, "print the test output of every mutant, not only of those that fail the run")
	timeout := flag.Duration("timeout", 4*time.Minute, "the longest a mutant's tests may take (a mutant may set its own)")
	all := flag.Bool("all", false, "run every test of each mutant's package, not only those its entry names: is it caught anywhere?")
	flag.Parse()
	os.Exit(mainErr(*runPat, *jobs, *list, *verbose, *all, *timeout))
}

func mainErr(runPat string, jobs int, list, verbose, all bool, timeout time.Duration) int {
	root, err := moduleRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		return 2
	}
	selected := mutants
	if runPat != "" {
		re, err := regexp.Compile(runPat)
		if err != nil {
			fmt.Fprintln(os.Stderr, "mutants: -run:", err)
			return 2
		}
		selected = nil
		for _, m := range mutants {
			if re.MatchString(m.name) {
				selected = append(selected, m)
			}
		}
	}
	selected = slices.Clone(selected)
	if all {
		for i := range selected {
			selected[i].run = ""
		}
	}
	if err := checkList(mutants); err != nil {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		return 2
	}
	if list {
		for _, m := range selected {
			fmt.Printf("%s (%s)\n\t%s\n", m.name, m.file, m.guarantee)
		}
		return 0
	}
	if len(selected) == 0 {
		fmt.Fprintln(os.Stderr, "mutants: no mutant matches -run", runPat)
		return 2
	}
	tmp, err := os.MkdirTemp("", "mutants-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		return 2
	}
	defer os.RemoveAll(tmp)

	ctx := context.Background()
	start := time.Now()
	fmt.Printf("mutants: %d, %d at a time\n", len(selected), jobs)
	results := make([]outcome, len(selected))
	var next sync.Mutex
	i := 0
	var wg sync.WaitGroup
	var printMu sync.Mutex
	for range max(jobs, 1) {
		wg.Go(func() {
			for {
				next.Lock()
				n := i
				i++
				next.Unlock()
				if n >= len(selected) {
					return
				}
				o := try(ctx, root, filepath.Join(tmp, fmt.Sprint(n)), selected[n], timeout)
				results[n] = o
				printMu.Lock()
				report(o, verbose)
				printMu.Unlock()
			}
		})
	}
	wg.Wait()

	counts := map[string]int{}
	var bad []outcome
	for _, o := range results {
		counts[o.status]++
		if o.status != caught {
			bad = append(bad, o)
		}
	}
	fmt.Printf("mutants: %d caught, %d survived, %d stale, %d broken, in %s\n",
		counts[caught], counts[survived], counts[stale], counts[broken], time.Since(start).Round(time.Second))
	if len(bad) == 0 {
		return 0
	}
	fmt.Println("mutants: these guarantees are not guarded as listed:")
	for _, o := range bad {
		fmt.Printf("  %s %s (%s): %s\n", o.status, o.m.name, o.m.file, o.by)
		fmt.Printf("      guarantee: %s\n", o.m.guarantee)
	}
	fmt.Println("mutants: a survivor needs a test that fails without its guarantee; a stale or broken mutant, its snippet updated to the code as it is now (internal/mutants/list.go)")
	return 1
}

func report(o outcome, verbose bool) {
	fmt.Printf("%-8s %6.1fs  %s", o.status, o.took.Seconds(), o.m.name)
	if o.by != "" {
		fmt.Printf("  (%s)", o.by)
	}
	fmt.Println()
	if o.status != caught && o.status != stale || verbose {
		for _, l := range strings.Split(strings.TrimRight(o.output, "\n"), "\n") {
			if l != "" {
				fmt.Println("\t| " + l)
			}
		}
	}
}

// checkList refuses a list with a nameless or duplicate mutant, or one
// that changes nothing.
func checkList(ms []mutant) error {
	seen := map[string]bool{}
	for _, m := range ms {
		switch {
		case m.name == "" || m.file == "" || m.find == "" || m.guarantee == "":
			return fmt.Errorf("mutant %q: name, file, find and guarantee are all needed", m.name)
		case seen[m.name]:
			return fmt.Errorf("mutant %q is listed twice", m.name)
		case m.find == m.replace:
			return fmt.Errorf("mutant %q: its replacement is its snippet", m.name)
		}
		seen[m.name] = true
	}
	return nil
}

// apply returns the file's text with the mutant applied, or why it cannot be.
func apply(root string, m mutant) ([]byte, error) {
	src, err := os.ReadFile(filepath.Join(root, m.file))
	if err != nil {
		return nil, err
	}
	switch n := bytes.Count(src, []byte(m.find)); n {
	case 1:
	case 0:
		return nil, fmt.Errorf("its snippet is not in %s any more", m.file)
	default:
		return nil, fmt.Errorf("its snippet is in %s %d times: make it longer", m.file, n)
	}
	return bytes.Replace(src, []byte(m.find), []byte(m.replace), 1), nil
}

// try tests one mutant: the mutated file goes into dir, and go test
// compiles it in place of the original through an overlay.
func try(ctx context.Context, root, dir string, m mutant, timeout time.Duration) (o outcome) {
	o = outcome{m: m}
	started := time.Now()
	defer func() { o.took = time.Since(started) }()
	mutated, err := apply(root, m)
	if err != nil {
		o.status, o.by = stale, err.Error()
		return o
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		o.status, o.by = broken, err.Error()
		return o
	}
	copyPath := filepath.Join(dir, filepath.Base(m.file))
	overlay := filepath.Join(dir, "overlay.json")
	ov, _ := json.Marshal(map[string]map[string]string{"Replace": {filepath.Join(root, m.file): copyPath}})
	if err := errors.Join(os.WriteFile(copyPath, mutated, 0o644), os.WriteFile(overlay, ov, 0o644)); err != nil {
		o.status, o.by = broken, err.Error()
		return o
	}
	pkg := m.pkg
	if pkg == "" {
		pkg = "./" + filepath.ToSlash(filepath.Dir(m.file))
	}
	if m.timeout > 0 {
		timeout = m.timeout
	}
	// -vet=off: a mutant is caught by a test, not by vet noticing the
	// change; -count=1: every mutant really runs.
	args := []string{"test", "-overlay=" + overlay, "-vet=off", "-count=1", "-timeout=" + timeout.String()}
	if m.run != "" {
		args = append(args, "-run", m.run)
	}
	args = append(args, pkg)
	cctx, cancel := context.WithTimeout(ctx, timeout+time.Minute)
	defer cancel()
	cmd := exec.CommandContext(cctx, "go", args...)
	cmd.Dir = root
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	o.output = string(out)
	o.status, o.by = judge(o.output, err)
	return o
}

var failedTest = regexp.MustCompile(`(?m)^\s*--- FAIL: (\S+)`)

// judge tells from go test's output and error how the mutant fared.
func judge(out string, err error) (status, by string) {
	var exit *exec.ExitError
	switch {
	case strings.Contains(out, "[build failed]") || strings.Contains(out, "[setup failed]"):
		return broken, "the mutant does not build"
	case err == nil && strings.Contains(out, "[no tests to run]"):
		return broken, "-run matches no test"
	case err == nil:
		return survived, "every test passed"
	case !errors.As(err, &exit):
		return broken, err.Error()
	case strings.Contains(out, "panic: test timed out"):
		return caught, "a test timed out"
	}
	var names []string
	for _, m := range failedTest.FindAllStringSubmatch(out, -1) {
		names = append(names, m[1])
	}
	if len(names) > 0 {
		return caught, strings.Join(names, ", ")
	}
	if strings.Contains(out, "\nFAIL\t") || strings.HasPrefix(out, "FAIL\t") {
		return caught, "the test binary failed"
	}
	return broken, "go test failed without a failing test"
}

// moduleRoot is the folder of the go.mod above the working directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}
