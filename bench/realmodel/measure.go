//go:build linux

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// record is one run of the measurement, one line of results.jsonl.
type record struct {
	Label   string `json:"label"`   // names the prompt (or anything else) being compared
	Task    string `json:"task"`    // HumanEval/N
	Mode    string `json:"mode"`    // direct, single, loop, best or hybrid
	Attempt int    `json:"attempt"` // 1-based; independent attempts of single
	Solved  bool   `json:"solved"`  // the check passes on the workspace after the run
	// Success is architect's own verdict (checks passed and completion
	// declared); direct runs have none.
	Success          bool    `json:"success"`
	Iterations       int     `json:"iterations"`
	StopReason       string  `json:"stop_reason,omitempty"`
	Requests         int     `json:"requests"`
	Seconds          float64 `json:"model_seconds"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	Wall             float64 `json:"wall_seconds"`
	Error            string  `json:"error,omitempty"`
	// Candidates and Rounds are the settings of best and hybrid: agents
	// per round and architect's --max-iterations.
	Candidates int `json:"candidates,omitempty"`
	Rounds     int `json:"rounds,omitempty"`
}

func (r record) key() string {
	return r.Label + " " + r.Task + " " + r.Mode + " " + strconv.Itoa(r.Attempt)
}

// measurement holds the settings of `realmodel measure`.
type measurement struct {
	endpoint, architect, self, out, usage, label string
	attempts, iterations                         int
	candidates, rounds                           int    // of best and hybrid
	declare                                      string // how the agent declares completion: code or tag
	deadline                                     time.Time
}

// measureArgs are the flags of `realmodel measure` that choose the
// problems and the modes run on each.
type measureArgs struct {
	humaneval, modes, only string
	n, first               int
	seed                   uint64
}

func runMeasure(args []string) error {
	m, a, err := parseMeasure(args)
	if err != nil {
		return err
	}
	probs, err := a.problems()
	if err != nil {
		return err
	}
	return m.runAll(probs, strings.Split(a.modes, ","))
}

// parseMeasure reads the flags of `realmodel measure`.
func parseMeasure(args []string) (measurement, measureArgs, error) {
	fs := flag.NewFlagSet("measure", flag.ContinueOnError)
	var a measureArgs
	fs.StringVar(&a.humaneval, "humaneval", "", "HumanEval.jsonl.gz")
	fs.IntVar(&a.n, "n", 40, "problems in the subset")
	fs.Uint64Var(&a.seed, "seed", 26, "the subset's seed")
	fs.StringVar(&a.modes, "modes", "direct,single,loop", "what to run per problem: direct (the plain prompt, greedy), single (architect, one iteration, -attempts independent times), loop (architect loop, -iterations), best (architect loop, -candidates agents per round, -rounds rounds, the checks keep one; the next prompt without the losers' section), hybrid (best with the losers' section)")
	m := measurement{}
	fs.StringVar(&m.endpoint, "endpoint", "http://127.0.0.1:8088/v1", "the model's endpoint")
	fs.StringVar(&m.architect, "architect", "", "the architect binary")
	fs.StringVar(&m.out, "out", "", "folder for results.jsonl and the task repositories")
	fs.StringVar(&m.usage, "usage", "", "the server's usage log")
	fs.StringVar(&m.label, "label", "current", "a name for this prompt version")
	fs.IntVar(&m.attempts, "attempts", 4, "independent single-iteration attempts per problem")
	fs.IntVar(&m.iterations, "iterations", 4, "the loop's --max-iterations")
	fs.IntVar(&m.candidates, "candidates", 2, "best and hybrid: architect's --candidates, agents per round")
	fs.IntVar(&m.rounds, "rounds", 2, "best and hybrid: architect's --max-iterations, rounds of -candidates agents")
	fs.StringVar(&m.declare, "declare", "code", "how the agent declares completion: code (an answer that defines the function does, by architect's --done-pattern) or tag (the model must print <promise>COMPLETE</promise>)")
	fs.IntVar(&a.first, "first", 0, "run only the first K problems of the subset (0: all)")
	fs.StringVar(&a.only, "tasks", "", "run only these problems of the subset (comma-separated task IDs, HumanEval/N)")
	budget := fs.Duration("budget", 0, "start no new run after this long (0: no limit); a rerun resumes")
	if err := fs.Parse(args); err != nil {
		return m, a, err
	}
	if a.humaneval == "" || m.architect == "" || m.out == "" || m.usage == "" {
		return m, a, errors.New("measure needs -humaneval, -architect, -out and -usage")
	}
	if m.declare != "code" && m.declare != "tag" {
		return m, a, fmt.Errorf("-declare %q: want code or tag", m.declare)
	}
	if m.candidates < 1 || m.rounds < 1 {
		return m, a, fmt.Errorf("-candidates %d -rounds %d: want 1 or more of each", m.candidates, m.rounds)
	}
	for _, mode := range strings.Split(a.modes, ",") {
		if !slices.Contains(knownModes, mode) {
			return m, a, fmt.Errorf("-modes: unknown mode %q (want some of %s)", mode, strings.Join(knownModes, ","))
		}
	}
	if *budget > 0 {
		m.deadline = time.Now().Add(*budget)
	}
	self, err := os.Executable()
	m.self = self
	return m, a, err
}

// modes are the ways of running a problem that measure knows.
var knownModes = []string{"direct", "single", "loop", "best", "hybrid"}

// problems loads HumanEval and returns the subset to run: -n problems by
// -seed, cut to -first, narrowed to -tasks.
func (a measureArgs) problems() ([]problem, error) {
	all, err := loadProblems(a.humaneval)
	if err != nil {
		return nil, err
	}
	if len(all) != 164 {
		return nil, fmt.Errorf("%s holds %d problems, HumanEval has 164", a.humaneval, len(all))
	}
	probs := subset(all, a.n, a.seed)
	if a.first > 0 && a.first < len(probs) {
		probs = probs[:a.first]
	}
	if a.only != "" {
		return onlyTasks(probs, a.only)
	}
	return probs, nil
}

// runAll runs every mode on every problem, each run appended to
// results.jsonl as it ends; a run already there is not run again, and no
// run starts after the deadline.
func (m measurement) runAll(probs []problem, modes []string) error {
	results := filepath.Join(m.out, "results.jsonl")
	done, err := readRecords(results)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, r := range done {
		seen[r.key()] = true
		if r.Label == m.label && (r.Mode == "best" || r.Mode == "hybrid") && slices.Contains(modes, r.Mode) &&
			(r.Candidates != m.candidates || r.Rounds != m.rounds) {
			return fmt.Errorf("%s holds %s runs of label %s made with -candidates %d -rounds %d, not %d and %d: give another -label or -out, so that the report does not mix them",
				results, r.Mode, r.Label, r.Candidates, r.Rounds, m.candidates, m.rounds)
		}
	}
	f, err := os.OpenFile(results, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	for i, p := range probs {
		for _, mode := range modes {
			for a := 1; a <= m.attemptsOf(mode); a++ {
				r := record{Label: m.label, Task: p.TaskID, Mode: mode, Attempt: a}
				if seen[r.key()] {
					continue
				}
				if !m.deadline.IsZero() && time.Now().After(m.deadline) {
					fmt.Fprintf(os.Stderr, "realmodel: budget spent after %d of %d problems; rerun the same command to go on\n", i, len(probs))
					return nil
				}
				r = m.run(p, r)
				b, _ := json.Marshal(r)
				if _, err := f.Write(append(b, '\n')); err != nil {
					return err
				}
				fmt.Fprintf(os.Stderr, "realmodel: [%d/%d] %s %s #%d: solved=%v success=%v iterations=%d model %.0fs, %d+%d tokens%s\n",
					i+1, len(probs), p.TaskID, mode, a, r.Solved, r.Success, r.Iterations, r.Seconds, r.PromptTokens, r.CompletionTokens,
					map[bool]string{true: " error: " + r.Error}[r.Error != ""])
			}
		}
	}
	return nil
}

// attemptsOf is how many independent runs a mode gets per problem.
func (m measurement) attemptsOf(mode string) int {
	if mode == "single" {
		return m.attempts
	}
	return 1
}

// run makes the task repository and runs one record's mode in it.
func (m measurement) run(p problem, r record) record {
	start := time.Now()
	tag := strings.Join([]string{r.Label, strings.ReplaceAll(r.Task, "/", "-"), r.Mode, strconv.Itoa(r.Attempt)}, "/")
	dir := filepath.Join(m.out, "work", r.Label, strings.ReplaceAll(r.Task, "/", "-"), r.Mode+"-"+strconv.Itoa(r.Attempt))
	_ = os.RemoveAll(dir)
	if err := makeRepo(p, dir); err != nil {
		r.Error = err.Error()
		return r
	}
	switch r.Mode {
	case "direct":
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
		answer, err := complete(ctx, m.endpoint, tag+"/i1", greedy, seedOf(tag), p.directPrompt(), directPrefix)
		cancel()
		if err != nil {
			r.Error = err.Error()
			break
		}
		if code := pickCode(answer, p.EntryPoint); code != "" {
			if err := os.WriteFile(filepath.Join(dir, solutionFile), []byte(code), 0o644); err != nil {
				r.Error = err.Error()
			}
		}
		r.Iterations = 1
	case "single", "loop", "best", "hybrid":
		if r.Mode == "best" || r.Mode == "hybrid" {
			r.Candidates, r.Rounds = m.candidates, m.rounds
		}
		m.architectLoop(p, dir, tag, &r)
	default:
		r.Error = "unknown mode " + r.Mode
	}
	r.Solved = r.Error == "" && checkPasses(dir)
	r.Wall = time.Since(start).Seconds()
	// Every request of the run, each candidate's of each round too, is
	// tagged tag/iN (tag/iN/cK): the agent's command line, the same for
	// every candidate, carries the tag.
	u, _ := usageOf(m.usage, tag+"/", start)
	r.Requests, r.Seconds, r.PromptTokens, r.CompletionTokens = u.Requests, u.Seconds, u.PromptTokens, u.CompletionTokens
	return r
}

// architectLoop runs `architect loop` on p in dir with the command agent.
func (m measurement) architectLoop(p problem, dir, tag string, r *record) {
	home := filepath.Join(m.out, "home")
	_ = os.MkdirAll(home, 0o755)
	cmd := exec.Command(m.architect, m.loopArgs(p, dir, tag, r.Mode)...)
	cmd.Env = append(os.Environ(), "HOME="+home, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@example.com", "GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@example.com")
	out, err := cmd.Output()
	var res struct {
		Success         bool   `json:"success"`
		TotalIterations int    `json:"total_iterations"`
		StopReason      string `json:"stop_reason"`
	}
	if jerr := json.Unmarshal(out, &res); jerr != nil {
		var ee *exec.ExitError
		msg := fmt.Sprint(err)
		if errors.As(err, &ee) {
			msg += ": " + lastLine(string(ee.Stderr))
		}
		r.Error = "architect printed no result: " + msg
		return
	}
	r.Success, r.Iterations, r.StopReason = res.Success, res.TotalIterations, res.StopReason
}

// loopArgs is architect's command line (after the binary) for a run of
// mode: single is one iteration, loop -iterations, best and hybrid
// -candidates agents per round for -rounds rounds, without and with the
// losers' section in the next prompt.
func (m measurement) loopArgs(p problem, dir, tag, mode string) []string {
	iters := 1
	var extra []string
	switch mode {
	case "loop":
		iters = m.iterations
	case "best", "hybrid":
		iters = m.rounds
		lessons := "off"
		if mode == "hybrid" {
			lessons = "on"
		}
		// Every candidate runs to its end: the model server answers one
		// request at a time and does not stop one whose client went, so a
		// candidate stopped early would still be generated, unlogged
		// against its run. With all, every call a round makes is counted.
		extra = []string{"--candidates", strconv.Itoa(m.candidates), "--candidates-lessons", lessons, "--candidates-finish", "all"}
	}
	agent := shellQuote(m.self) + " agent -endpoint " + shellQuote(m.endpoint) + " -entry " + shellQuote(p.EntryPoint) + " -tag " + shellQuote(tag)
	args := []string{"loop", p.task(), "-C", dir, "--agent-cmd", agent,
		"--check", checkCmd, "--protect", testFile, "--max-iterations", strconv.Itoa(iters),
		"--check-timeout", "60", "--iteration-timeout", "30m", "--inactivity-timeout", "0",
		"--idle-threshold", "0", "--max-consecutive-errors", "2", "--backoff-cap", "1s", "--json", "--quiet"}
	args = append(args, extra...)
	if m.declare == "code" {
		// A model without tools delivers its work as its answer: an answer
		// that defines the function is its declaration that it is done.
		// Success still needs the check to pass.
		args = append(args, "--done-pattern", donePattern(p.EntryPoint))
	}
	return args
}

// donePattern is the --done-pattern of -declare code: an answer that
// defines entry.
func donePattern(entry string) string {
	return `def ` + regexp.QuoteMeta(entry) + `\s*\(`
}

// onlyTasks keeps the problems of probs named in list (comma-separated
// task IDs), in the subset's order; naming one the subset lacks is an
// error.
func onlyTasks(probs []problem, list string) ([]problem, error) {
	want := map[string]bool{}
	for _, id := range strings.Split(list, ",") {
		want[strings.TrimSpace(id)] = true
	}
	kept := slices.DeleteFunc(slices.Clone(probs), func(p problem) bool { return !want[p.TaskID] })
	if len(kept) != len(want) {
		var missing []string
		for id := range want {
			if !slices.ContainsFunc(kept, func(p problem) bool { return p.TaskID == id }) {
				missing = append(missing, fmt.Sprintf("%q", id))
			}
		}
		slices.Sort(missing)
		return nil, fmt.Errorf("-tasks: %s not in the subset (see -n and -seed)", strings.Join(missing, ", "))
	}
	return kept, nil
}

// checkTimeout is how long checkPasses lets the check run (architect's
// --check-timeout in the runs is the same).
var checkTimeout = 60 * time.Second

// checkPasses runs the check in dir, as architect does, with a timeout
// that ends its whole process group: the shell's python too, which a kill
// of the shell alone left running (an answer that loops for ever kept a
// CPU busy for the rest of a measurement).
func checkPasses(dir string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), checkTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", checkCmd)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	return cmd.Run() == nil
}

// usage sums the server's log lines for one run.
type usage struct {
	Requests, PromptTokens, CompletionTokens int
	Seconds                                  float64
}

// usageOf reads the server's usage log and sums the lines whose tag starts
// with prefix, logged since the run started (an earlier, interrupted run
// of the same problem may have left answers under the same tag).
func usageOf(path, prefix string, since time.Time) (usage, error) {
	var u usage
	f, err := os.Open(path)
	if err != nil {
		return u, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l struct {
			Time             time.Time `json:"time"`
			Tag              string    `json:"tag"`
			PromptTokens     int       `json:"prompt_tokens"`
			CompletionTokens int       `json:"completion_tokens"`
			Seconds          float64   `json:"seconds"`
		}
		if json.Unmarshal(sc.Bytes(), &l) != nil || !strings.HasPrefix(l.Tag, prefix) || l.Time.Before(since) {
			continue
		}
		u.Requests++
		u.PromptTokens += l.PromptTokens
		u.CompletionTokens += l.CompletionTokens
		u.Seconds += l.Seconds
	}
	return u, sc.Err()
}

func readRecords(path string) ([]record, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []record
	for _, line := range strings.Split(string(b), "\n") {
		var r record
		if strings.TrimSpace(line) != "" && json.Unmarshal([]byte(line), &r) == nil {
			out = append(out, r)
		}
	}
	return out, nil
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
