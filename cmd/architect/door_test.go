//go:build unix

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/architect-dev/architect/cli"
	"github.com/architect-dev/architect/loop"
	"github.com/architect-dev/architect/runlog"
)

// TestDoor drives the architect binary over every flag of every command,
// every key of ralph.yaml and of a batch file's task, and every ARCHITECT_*
// variable, each with values generated for its kind (door_values_test.go):
// numbers NaN, ±Inf, -0, huge, not numbers; durations with units that do
// not exist; strings empty, 100 KiB (10 MB in files), NUL, invalid UTF-8,
// terminal escapes, newlines, shell metacharacters; paths missing, a
// folder for a file and the reverse, unreadable, a symlink loop, a FIFO.
//
// Each input either runs correctly or is refused with exit status 2, an
// `architect: error:` line naming the flag, key or variable and an
// `architect: hint:` line, having written nothing in the row's folder (no
// .architect/, worktree, branch or info/exclude line). Never a panic, a Go
// parser's message, a hang, terminal escapes or invalid UTF-8 on stderr,
// or a run whose state cannot be saved.
//
// "Runs correctly" is judged cheaply: loop inputs with --dry-run --json
// (the configuration resolved, the pre-flight passed: nothing written),
// then, for each accepted flag value with the command agent, a real run of
// one iteration (agent `true`, check `true`) whose state must be saved,
// and a resume of it; batch-file keys with --matrix (the file read and
// validated); batch's own flags with a real batch of one such task; demo's
// flags by parsing them (--help); the other commands by running them in a
// workspace that holds a finished run.
func TestDoor(t *testing.T) {
	setup := time.Now()
	f := newDoorFixture(t)
	root := cli.Command()
	loopCmd, _, err := root.Find([]string{"loop"})
	if err != nil {
		t.Fatal(err)
	}
	rows := flagRows(root)
	rows = append(rows, envRows(loopCmd)...)
	rows = append(rows, yamlRows(loopCmd)...)
	if only := os.Getenv("DOOR_ONLY"); only != "" { // a regular expression, to look at some rows
		re := regexp.MustCompile(only)
		var some []row
		for _, r := range rows {
			if re.MatchString(r.name) {
				some = append(some, r)
			}
		}
		rows = some
	}
	baselines := f.baselines(t, rows)
	t.Logf("set up in %s (the binary built, the templates made, each command's baseline run)", time.Since(setup).Round(100*time.Millisecond))

	start := time.Now()
	var mu sync.Mutex
	tally := map[string]int{}
	var slow []string // rows that took over 2 s, to find what makes the test slow
	work := make(chan row)
	var wg sync.WaitGroup
	for range doorWorkers() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			desks := map[bool]*desk{}
			for r := range work {
				began := time.Now()
				verdict := f.check(t, r, baselines[r.command], desks)
				took := time.Since(began)
				mu.Lock()
				tally[verdict]++
				if took > 2*time.Second {
					slow = append(slow, fmt.Sprintf("%s (%s)", r.name, took.Round(100*time.Millisecond)))
				}
				mu.Unlock()
			}
		}()
	}
	for _, r := range rows {
		work <- r
	}
	close(work)
	wg.Wait()
	t.Logf("%d inputs in %s: %v", len(rows), time.Since(start).Round(time.Second), tally)
	if len(slow) > 0 {
		t.Logf("rows over 2 s: %s", strings.Join(slow, ", "))
	}
}

// doorWorkers is how many rows run at once: the binary mostly waits for
// git and the agent, so twice the CPUs.
func doorWorkers() int { return 2 * runtime.NumCPU() }

// baselines runs each command that plain rows try, without the flag under
// test: what it does then is what an accepted value lets it do.
func (f *doorFixture) baselines(t *testing.T, rows []row) map[string]outcome {
	out := map[string]outcome{}
	for _, r := range rows {
		if r.judge != judgePlain {
			continue
		}
		if _, ok := out[r.command]; ok {
			continue
		}
		dir, err := f.newRow(r.ran)
		if err != nil {
			t.Fatal(err)
		}
		out[r.command] = f.run(context.Background(), dir, nil, 60*time.Second, strings.Fields(r.command)[1:]...)
	}
	return out
}

// check runs one row and judges it; it returns the verdict.
func (f *doorFixture) check(t *testing.T, r row, baseline outcome, desks map[bool]*desk) string {
	d, err := f.desk(desks, r.ran)
	if err != nil {
		t.Errorf("%s: %v", r.name, err)
		return "error"
	}
	defer f.release(desks, r.ran)
	dir := d.dir
	if r.file != nil {
		if err := os.WriteFile(filepath.Join(dir, "fx", "row.yaml"), []byte(r.file()), 0o644); err != nil {
			t.Errorf("%s: %v", r.name, err)
			return "error"
		}
	}
	fail := func(o outcome, format string, args ...any) string {
		t.Errorf("%s\n  command: architect %s%s\n  exit %d; %s\n  stderr:\n%s", r.name, short(strings.Join(r.args, " ")), envText(r.env),
			o.code, fmt.Sprintf(format, args...), indent(o.stderr))
		return "failed"
	}
	before := snapshot(dir)
	o := f.run(context.Background(), dir, r.env, 30*time.Second, r.args...)
	after := snapshot(dir)
	if slices.Contains(r.args, "--dry-run") {
		after = withoutEmptyBlob(after)
	}
	if p := hygiene(o); p != "" {
		return fail(o, "%s", p)
	}
	if pwnedIn(after) {
		return fail(o, "a value reached a shell: %s was created", pwned)
	}
	if r.judge == judgeGroup {
		if p := groupProblem(r, o, before, after); p != "" {
			return fail(o, "%s", p)
		}
		return "group"
	}
	if r.judge == judgePlain && o.code == baseline.code && firstError(o, dir) == firstError(baseline, baseline.dir) {
		return "accepted" // what the command does without the flag
	}
	if o.code == 2 {
		if p := refusal(r, o, before, after); p != "" {
			return fail(o, "%s", p)
		}
		return "refused"
	}
	switch r.judge {
	case judgeDryRun:
		if o.code != 0 {
			return fail(o, "the dry run neither passed (exit 0) nor refused the value (exit 2)")
		}
		if c := changes(before, after); len(c) > 0 {
			return fail(o, "the dry run wrote %v", c)
		}
		return f.acceptedDryRun(r, dir, o, fail)
	case judgeMatrix:
		var m map[string][]string
		if o.code != 0 || json.Unmarshal([]byte(o.stdout), &m) != nil || len(m["task"]) != 1 {
			return fail(o, "batch --matrix: want exit 0 and the matrix of one task on stdout, got %q", short(o.stdout))
		}
		if c := changes(before, after); len(c) > 0 {
			return fail(o, "batch --matrix wrote %v", c)
		}
	case judgeHelp:
		if o.code != 0 || !strings.Contains(o.stdout, "Usage:") {
			return fail(o, "want the help, exit 0")
		}
	case judgeRun, judgePlain:
		if o.code != 0 && o.code != 1 {
			return fail(o, "neither ran (exit 0 or 1) nor refused the value")
		}
	}
	return "accepted"
}

// acceptedDryRun judges the output of a loop row's dry run that passed,
// then runs it for real when it has a real command line and the agent is
// the command agent: the run's state must be saved, and the run resumed.
func (f *doorFixture) acceptedDryRun(r row, dir string, o outcome, fail func(outcome, string, ...any) string) string {
	var doc struct {
		Config []struct {
			Key   string `json:"key"`
			Value any    `json:"value"`
		} `json:"config"`
		Workspace loop.WorkspacePlan `json:"workspace"`
	}
	switch {
	case strings.Contains(o.stdout, "Usage:"), strings.Contains(o.stdout, "Nothing was run (--dry-run)."):
		return "accepted" // --help, or --json=false
	case json.Unmarshal([]byte(o.stdout), &doc) != nil || len(doc.Config) == 0:
		return fail(o, "the dry run's output is not the configuration as JSON: %q", short(o.stdout))
	}
	agentName := ""
	for _, s := range doc.Config {
		if s.Key == "agent" {
			agentName = fmt.Sprint(s.Value)
		}
	}
	if r.real == nil || agentName != "command" {
		return "accepted"
	}
	before := snapshot(dir)
	o = f.run(context.Background(), dir, r.env, 60*time.Second, r.real...)
	after := snapshot(dir)
	if p := hygiene(o); p != "" {
		return fail(o, "real run: %s", p)
	}
	if strings.Contains(o.stdout, "Nothing was run (--dry-run).") {
		return "accepted" // --dry-run=true
	}
	if r.kind != kindCommand && pwnedIn(after) {
		return fail(o, "real run: a value reached a shell: %s was created", pwned)
	}
	switch o.code {
	case 2:
		if p := refusal(r, o, before, after); p != "" {
			return fail(o, "real run: %s", p)
		}
		return "refused by the run"
	case 0, 1:
	default:
		return fail(o, "real run: neither ran (exit 0 or 1) nor refused (exit 2)")
	}
	ws := doc.Workspace.Dir
	if doc.Workspace.Worktree != "" {
		ws = doc.Workspace.Worktree
	}
	if _, err := runlog.ReadState(ws); err != nil {
		return fail(o, "real run: the state cannot be read back: %v", err)
	}
	// A text could come back changed from the records (JSON); a number
	// or a switch that was saved comes back as it was.
	if o.code == 1 && r.kind != kindInt && r.kind != kindNumber && r.kind != kindDuration && r.kind != kindBool {
		o = f.run(context.Background(), dir, r.env, 60*time.Second, "loop", "--resume", "-C", ws, "--max-iterations", "2")
		if p := hygiene(o); p != "" || (o.code != 0 && o.code != 1) {
			return fail(o, "resuming the real run: %s", p)
		}
	}
	return "accepted and run"
}

// groupProblem judges a batch file with one task per value: either every
// task is accepted (the matrix lists them all), or the file is refused
// (exit 2, nothing written) and each error belongs to a task and names
// the key.
func groupProblem(r row, o outcome, before, after map[string]string) string {
	if o.code == 0 {
		var m map[string][]string
		if json.Unmarshal([]byte(o.stdout), &m) != nil || len(m["task"]) != len(r.group) {
			return fmt.Sprintf("batch --matrix: want the matrix of %d tasks, got %q", len(r.group), short(o.stdout))
		}
		if c := changes(before, after); len(c) > 0 {
			return fmt.Sprintf("batch --matrix wrote %v", c)
		}
		return ""
	}
	if o.code != 2 {
		return "neither accepted every task nor refused the file"
	}
	if c := changes(before, after); len(c) > 0 {
		return fmt.Sprintf("refused, but wrote %v", c)
	}
	byTask := map[int][]string{}
	for _, line := range strings.Split(o.stderr, "\n") {
		if !strings.HasPrefix(line, "architect: error: ") {
			continue
		}
		_, rest, ok := strings.Cut(line, "tasks.t")
		digits := strings.IndexFunc(rest+".", func(r rune) bool { return r < '0' || r > '9' })
		n, err := strconv.Atoi(rest[:digits])
		if !ok || err != nil || n >= len(r.group) {
			return "an error that names none of the tasks: " + short(line)
		}
		byTask[n] = append(byTask[n], line)
	}
	for n, lines := range byTask {
		if !namesAny(strings.Join(lines, "\n"), r.names) {
			return fmt.Sprintf("value %s: the error does not name any of %q: %s", r.group[n].label, r.names, short(lines[0]))
		}
	}
	return ""
}

// goParser matches the messages of Go's parsers and encoders, which a
// user should never see.
var goParser = regexp.MustCompile(`strconv\.|invalid syntax|parsing "|(^|[\s(])(json|time|yaml): |error parsing regexp|unsupported value|cannot unmarshal`)

// hygiene reports what is wrong with any outcome, accepted or refused.
func hygiene(o outcome) string {
	switch {
	case o.code == -1:
		return "hung: killed at the time limit"
	case o.code == -2:
		return "could not start: " + o.stderr
	case o.code != 0 && o.code != 1 && o.code != 2:
		return fmt.Sprintf("exit status %d", o.code)
	case strings.Contains(o.stderr, "panic:") || strings.Contains(o.stderr, "goroutine "):
		return "a panic"
	case strings.Contains(o.stderr, "could not save"):
		return "the state could not be saved"
	case goParser.MatchString(o.stderr):
		return "a Go parser's message: " + goParser.FindString(o.stderr)
	case strings.ContainsAny(o.stderr, "\x1b\x00"):
		return "a terminal escape or NUL byte on stderr"
	case !utf8.ValidString(o.stderr):
		return "invalid UTF-8 on stderr"
	}
	lines := strings.Split(o.stderr, "\n")
	for i, line := range lines {
		if !strings.HasPrefix(line, "architect: error: ") {
			continue
		}
		if len(line) > 1000 {
			return fmt.Sprintf("an error line of %d bytes", len(line))
		}
		j := i + 1
		for j < len(lines) && strings.HasPrefix(lines[j], "architect: error: ") {
			j++
		}
		if j == len(lines) || !strings.HasPrefix(lines[j], "architect: hint: ") {
			return "an error without its hint: " + short(line)
		}
	}
	return ""
}

// refusal reports what is wrong with a refusal: it must name the row's
// flag, key or variable, and leave everything as it was.
func refusal(r row, o outcome, before, after map[string]string) string {
	var errs []string
	for _, line := range strings.Split(o.stderr, "\n") {
		if strings.HasPrefix(line, "architect: error: ") {
			errs = append(errs, line)
		}
	}
	if len(errs) == 0 {
		return "exit 2 without an error"
	}
	if !namesAny(strings.Join(errs, "\n"), r.names) {
		return fmt.Sprintf("the error does not name any of %q", r.names)
	}
	if c := changes(before, after); len(c) > 0 {
		return fmt.Sprintf("refused, but wrote %v", c)
	}
	return ""
}

// namesAny reports whether text holds one of names as a whole word (not
// --agent in --agent-cmd, nor agent in agent_cmd).
func namesAny(text string, names []string) bool {
	word := func(b byte) bool {
		return b == '-' || b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
	}
	for _, n := range names {
		if n == "" {
			continue
		}
		for i := 0; ; {
			j := strings.Index(text[i:], n)
			if j < 0 {
				break
			}
			j += i
			end := j + len(n)
			if (j == 0 || !word(text[j-1]) || n[0] == '-' && text[j-1] != '-') && (end == len(text) || !word(text[end])) {
				return true
			}
			i = j + 1
		}
	}
	return false
}

// firstError is the first error line, the row's folder replaced by ROW.
func firstError(o outcome, dir string) string {
	for _, line := range strings.Split(o.stderr, "\n") {
		if strings.HasPrefix(line, "architect: error: ") {
			return strings.ReplaceAll(line, dir, "ROW")
		}
	}
	return ""
}

// pwnedIn reports whether a snapshot holds a file named pwned.
func pwnedIn(snap map[string]string) bool {
	for p := range snap {
		if filepath.Base(p) == pwned {
			return true
		}
	}
	return false
}

func short(s string) string {
	if len(s) > 300 {
		return s[:300] + fmt.Sprintf("… (%d bytes)", len(s))
	}
	return s
}

func envText(env []string) string {
	if len(env) == 0 {
		return ""
	}
	return " with " + short(strings.Join(env, " "))
}

func indent(s string) string {
	s = short(strings.TrimRight(s, "\n"))
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}
