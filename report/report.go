// Package report turns a run's records into one self-contained HTML page:
// the outcome, a chart of each iteration's time and cost, a grid of checks
// by iteration, and per iteration the prompt the agent saw, its final
// message, the failing checks' output and the diff stat. It reads what the
// loop leaves in .architect/ (state.json, iterations.jsonl, result.json,
// events.jsonl, prompts/) and never writes there except the page itself
// when asked to; the page needs no network to be viewed.
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
	"strconv"

	"github.com/architect-dev/architect/loop"
)

// promptLimit bounds how much of each saved prompt goes into the page.
const promptLimit = 64 << 10

// Run is everything the page shows about one run.
type Run struct {
	State      *loop.State
	Iterations []loop.Iteration
	Prompts    map[int]string // iteration → the prompt the agent saw
	Agent      string         // from the event log's loop_started
	Checks     []string       // the check commands, in order
	Commits    map[int]string // iteration → commit, from iteration_finished events
	Result     *loop.Result   // nil while the run has not finished a session
}

// Load reads the run whose workspace is ws.
func Load(ws string) (*Run, error) {
	st, err := loop.ReadState(ws)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(ws, loop.StateDir)
	r := &Run{State: st, Prompts: map[int]string{}, Commits: map[int]string{}, Agent: st.Config.Agent}
	r.Iterations, err = readIterations(filepath.Join(dir, loop.RecordsFile))
	if err != nil {
		return nil, err
	}
	if data, err := os.ReadFile(filepath.Join(dir, "result.json")); err == nil {
		var res loop.Result
		if json.Unmarshal(data, &res) == nil {
			r.Result = &res
			if len(res.Iterations) >= len(r.Iterations) {
				r.Iterations = res.Iterations
			}
		}
	}
	r.readEvents(filepath.Join(dir, loop.EventsFile))
	for i := range r.Iterations {
		it := &r.Iterations[i]
		if it.Commit == "" {
			it.Commit = r.Commits[it.Iteration]
		}
		if p, err := readHead(filepath.Join(dir, "prompts", "iteration-"+strconv.Itoa(it.Iteration)+".md"), promptLimit); err == nil {
			r.Prompts[it.Iteration] = p
		}
	}
	r.Checks = checkNames(st.Config.Checks, r.Checks, r.Iterations)
	return r, nil
}

// ReadIterations reads the iteration records of the run in workspace ws
// (.architect/iterations.jsonl); none when there are none yet.
func ReadIterations(ws string) ([]loop.Iteration, error) {
	return readIterations(filepath.Join(ws, loop.StateDir, loop.RecordsFile))
}

// readIterations reads iterations.jsonl, skipping a torn last line.
func readIterations(path string) ([]loop.Iteration, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []loop.Iteration
	seen := map[int]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for sc.Scan() {
		var it loop.Iteration
		if json.Unmarshal(sc.Bytes(), &it) != nil || seen[it.Iteration] {
			continue
		}
		seen[it.Iteration] = true
		out = append(out, it)
	}
	return out, nil
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
		var ev loop.Event
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		switch ev.Type {
		case loop.EventLoopStarted:
			if ev.Agent != "" {
				r.Agent = ev.Agent
			}
			if len(ev.Checks) > 0 {
				r.Checks = ev.Checks
			}
		case loop.EventIterationFinished:
			if ev.Commit != "" {
				r.Commits[ev.Iteration] = ev.Commit
			}
		}
	}
}

// checkNames lists every check once: the configured ones first, then
// those of the event log, then any other that appears in the results (a
// resumed run whose checks changed).
func checkNames(configured, logged []string, its []loop.Iteration) []string {
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
	if len(data) > limit {
		return string(bytes.ToValidUTF8(data[:limit], nil)) + fmt.Sprintf("\n… (cut at %d bytes)", limit), nil
	}
	return string(data), nil
}
