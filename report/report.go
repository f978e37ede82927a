// Package report turns a run's records into one self-contained HTML page:
// the task, the outcome, a timeline and charts of each iteration's time,
// cost, checks and changes, and per iteration what the agent saw and did
// (prompt, transcript, diff, the checks' output). It reads what the loop
// leaves in .architect/ (state.json, iterations.jsonl, result.json,
// events.jsonl, prompts/, and each iteration's transcript folder) and
// writes only the page; the page needs no network and runs no script. An
// overview page lists several runs (a batch), each linked to its own page.
package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/runlog"
)

// Run is everything the page shows about one run.
type Run struct {
	Dir        string // the run's records: WORKSPACE/.architect, or an archived run's folder
	State      *runlog.State
	Config     config.Config // the run's configuration (secrets masked), from the state
	Iterations []runlog.Iteration
	Prompts    map[int]string // iteration → the prompt the agent saw (its head)
	Spec       string         // the task or specification as the agent saw it (Markdown)
	Agent      string         // from the event log's loop_started
	Checks     []string       // the check commands, in order
	Commits    map[int]string // iteration → commit, from iteration_finished events
	Result     *runlog.Result // nil while the run has not finished a session
	// RunDiff is the head of the whole run's diff (what merge brings in),
	// from .architect/run.patch; "" when it was not kept.
	RunDiff string
}

// Load reads the run whose workspace is ws.
func Load(ws string) (*Run, error) {
	return LoadDir(filepath.Join(ws, runlog.StateDir))
}

// LoadDir reads the run whose records are in dir (a workspace's
// .architect, or an archived run under .architect/runs/).
func LoadDir(dir string) (*Run, error) {
	st, err := runlog.ReadStateIn(dir)
	if err != nil {
		return nil, err
	}
	r := &Run{Dir: dir, State: st, Prompts: map[int]string{}, Commits: map[int]string{}}
	if err := st.DecodeConfig(&r.Config); err != nil {
		return nil, runlog.Damaged(filepath.Join(dir, runlog.StateFile), err)
	}
	r.Agent = r.Config.Agent
	// result.json holds every iteration of the last session that ended;
	// iterations.jsonl is read too only when it has more (a run going on,
	// or killed), as reading both costs twice for nothing.
	if res, err := runlog.ReadResultIn(dir); err == nil {
		r.Result = res
		r.Iterations = res.Iterations
	}
	records := filepath.Join(dir, runlog.RecordsFile)
	if n, err := countLines(records); err != nil || n > len(r.Iterations) {
		its, err := runlog.ReadIterations(records)
		if err != nil {
			return nil, err
		}
		if len(its) > len(r.Iterations) {
			r.Iterations = its
		}
	}
	r.readEvents(filepath.Join(dir, runlog.EventsFile))
	for i := range r.Iterations {
		it := &r.Iterations[i]
		if it.Commit == "" {
			it.Commit = r.Commits[it.Iteration]
		}
		if p, err := readHead(r.promptPath(it.Iteration), promptLimit); err == nil {
			r.Prompts[it.Iteration] = p
		}
	}
	// The task as the agent last saw it (a specification is re-read every
	// iteration); the first prompt when no iteration has finished.
	last := 1
	if n := len(r.Iterations); n > 0 {
		last = r.Iterations[n-1].Iteration
	}
	if p, err := readHead(r.promptPath(last), 256<<10); err == nil {
		r.Spec = specOf(p)
	}
	r.Checks = checkNames(r.Config.Checks, r.Checks, r.Iterations)
	r.RunDiff, _ = readHead(filepath.Join(dir, runlog.RunDiffFile), runDiffLimit+1)
	return r, nil
}

// Title is the run's title: its task.
func (r *Run) Title() string {
	fallback := "architect run in " + filepath.Base(r.State.Workspace)
	if r.Config.Spec != "" {
		fallback = "work from " + filepath.Base(r.Config.Spec)
	}
	return Title(r.Config.Task, r.Spec, fallback)
}

func (r *Run) promptPath(n int) string {
	return filepath.Join(r.Dir, "prompts", "iteration-"+strconv.Itoa(n)+".md")
}

// ReadIterations reads the iteration records of the run in workspace ws
// (.architect/iterations.jsonl); none when there are none yet.
func ReadIterations(ws string) ([]runlog.Iteration, error) {
	return runlog.ReadIterations(filepath.Join(ws, runlog.StateDir, runlog.RecordsFile))
}

// readEvents takes the agent's name, the checks and the commits from the
// event log. The log is optional: a missing or damaged one leaves them out.
func (r *Run) readEvents(path string) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		// Only three kinds of event matter here: skip the rest (agent
		// activity is most of a long log) without decoding them.
		if !bytes.Contains(line, []byte(`"loop_started"`)) && !bytes.Contains(line, []byte(`"iteration_finished"`)) {
			continue
		}
		var ev runlog.Event
		if json.Unmarshal(line, &ev) != nil {
			continue
		}
		switch ev.Type {
		case runlog.EventLoopStarted:
			if ev.Agent != "" {
				r.Agent = ev.Agent
			}
			if len(ev.Checks) > 0 {
				r.Checks = ev.Checks
			}
		case runlog.EventIterationFinished:
			if ev.Commit != "" {
				r.Commits[ev.Iteration] = ev.Commit
			}
		}
	}
}

// checkNames lists every check once: the configured ones first, then
// those of the event log, then any other that appears in the results (a
// resumed run whose checks changed).
func checkNames(configured, logged []string, its []runlog.Iteration) []string {
	var out []string
	seen := map[string]bool{}
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for _, n := range configured {
		add(n)
	}
	for _, n := range logged {
		add(n)
	}
	for _, it := range its {
		for _, c := range it.CheckResults {
			add(c.Name)
		}
	}
	return out
}

// checkOutput is a check's output in iteration n: its end as kept in its
// file (the whole output, bounded), else the record's tail of it.
func (r *Run) checkOutput(n, index int, c runlog.CheckResult) string {
	rel := filepath.Join(runlog.StateDir, runlog.TranscriptDir(n), runlog.CheckFile(index))
	if s, err := readTail(filepath.Join(r.Dir, runlog.TranscriptDir(n), runlog.CheckFile(index)), outputLimit+1, rel); err == nil {
		return s
	}
	return c.Output
}

// diff is iteration n's own diff, "" when it was not kept.
func (r *Run) diff(n int) string {
	s, _ := readHead(filepath.Join(r.Dir, runlog.TranscriptDir(n), runlog.DiffFile), diffLimit+1)
	return s
}

// transcript is iteration n's readable transcript, "" when it was not kept.
func (r *Run) transcript(n int) string {
	s, _ := readHead(filepath.Join(r.Dir, runlog.TranscriptDir(n), runlog.TranscriptFile), transcriptLimit+1)
	return s
}

// ownDiff is the size of the changes iteration it made itself, when its
// record says (a committed iteration).
func ownDiff(it runlog.Iteration) (added, deleted int, ok bool) {
	if it.Diff == nil {
		return 0, 0, false
	}
	return it.Diff.Added, it.Diff.Deleted, true
}

// statRE is compiled when first used, not at every start of architect.
var statRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(\d+) insertions?\(\+\)|(\d+) deletions?\(-\)`)
})

// statLines reads the lines added and deleted from a diff stat's last
// line ("3 files changed, 12 insertions(+), 4 deletions(-)").
func statLines(stat string) (added, deleted int) {
	stat = strings.TrimSpace(stat)
	if i := strings.LastIndexByte(stat, '\n'); i >= 0 {
		stat = stat[i+1:]
	}
	for _, m := range statRE().FindAllStringSubmatch(stat, -1) {
		if m[1] != "" {
			added, _ = strconv.Atoi(m[1])
		}
		if m[2] != "" {
			deleted, _ = strconv.Atoi(m[2])
		}
	}
	return added, deleted
}

// readTail reads the last limit bytes of the file at path (from a whole
// line), saying where the rest is (name) when it cuts.
func readTail(path string, limit int64, name string) (string, error) {
	data, err := runlog.ReadEnd(path, limit)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(path); err == nil && fi.Size() > int64(len(data)) {
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		}
		data = append([]byte(fmt.Sprintf("… (the first %d bytes are in %s)\n", fi.Size()-int64(len(data)), name)), data...)
	}
	return string(bytes.ToValidUTF8(data, []byte("\uFFFD"))), nil
}

// countLines counts the lines of the file at path (0 when there is none).
func countLines(path string) (int, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	return bytes.Count(data, []byte{'\n'}), err
}

func readHead(path string, limit int) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return "", err
	}
	return string(bytes.ToValidUTF8(data, []byte("\uFFFD"))), nil
}
