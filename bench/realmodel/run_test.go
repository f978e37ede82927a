//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"
)

// The test binary plays two parts for TestRunRecordsEveryCandidate: with
// REALMODEL_TEST_ROLE=main it is realmodel (the agent architect runs),
// with REALMODEL_TEST_ROLE=architect a stand-in for architect loop.
func TestMain(m *testing.M) {
	switch os.Getenv("REALMODEL_TEST_ROLE") {
	case "main":
		main()
		os.Exit(0)
	case "architect":
		os.Exit(fakeArchitect(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// fakeArchitect stands in for `architect loop` as measure runs it: for
// each of --max-iterations rounds it runs --agent-cmd once, or once per
// candidate with ARCHITECT_CANDIDATE=1..N under --candidates N, each with
// the task on stdin, then prints a result as --json does.
func fakeArchitect(args []string) int {
	flagOf := func(name string) string {
		if i := slices.Index(args, name); i >= 0 && i+1 < len(args) {
			return args[i+1]
		}
		return ""
	}
	rounds, _ := strconv.Atoi(flagOf("--max-iterations"))
	candidates := []string{""}
	if n, err := strconv.Atoi(flagOf("--candidates")); err == nil {
		candidates = nil
		for k := 1; k <= n; k++ {
			candidates = append(candidates, strconv.Itoa(k))
		}
	}
	for round := 1; round <= rounds; round++ {
		for _, c := range candidates {
			cmd := exec.Command("sh", "-c", flagOf("--agent-cmd"))
			cmd.Env = append(os.Environ(), "REALMODEL_TEST_ROLE=main", "ARCHITECT_ITERATION="+strconv.Itoa(round),
				"ARCHITECT_WORKSPACE="+flagOf("-C"), "ARCHITECT_RESULT_FILE=")
			if c != "" {
				cmd.Env = append(cmd.Env, "ARCHITECT_CANDIDATE="+c)
			}
			cmd.Stdin = strings.NewReader(args[1])
			if out, err := cmd.CombinedOutput(); err != nil {
				fmt.Fprintf(os.Stderr, "agent: %v: %s\n", err, out)
				return 1
			}
		}
	}
	// The stop reason tells the test what --candidates-lessons said.
	fmt.Printf(`{"success":true,"total_iterations":%d,"stop_reason":"lessons %s"}`+"\n", rounds, flagOf("--candidates-lessons"))
	return 0
}

// A best or hybrid run's record counts every candidate of every round: their
// requests all carry the run's tag, each with its own seed; a loop run's
// record is as before.
func TestRunRecordsEveryCandidate(t *testing.T) {
	is := is.New(t)
	for _, tool := range []string{"git", "python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip(tool + " not installed")
		}
	}
	t.Setenv("HOME", t.TempDir())
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	out := t.TempDir()
	usagePath := filepath.Join(out, "usage.jsonl")
	var mu sync.Mutex
	seeds := map[string]uint64{} // tag → seed
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req chatRequest
		_ = json.NewDecoder(r.Body).Decode(&req)
		tag := r.Header.Get("X-Bench-Tag")
		mu.Lock()
		defer mu.Unlock()
		seeds[tag] = req.Seed
		line, _ := json.Marshal(map[string]any{"time": time.Now().UTC().Format(time.RFC3339Nano), "tag": tag,
			"prompt_tokens": 100, "completion_tokens": 10, "seconds": 2})
		f, _ := os.OpenFile(usagePath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		_, _ = f.Write(append(line, '\n'))
		_ = f.Close()
		_, _ = w.Write([]byte(`{"choices":[{"message":{"role":"assistant","content":"` + "```python\\ndef add(a, b):\\n    return a + b\\n```" + `"}}]}`))
	}))
	defer srv.Close()

	self, err := os.Executable()
	is.NoErr(err)
	t.Setenv("REALMODEL_TEST_ROLE", "architect") // m.architect is this binary as architect
	m := measurement{endpoint: srv.URL + "/v1", architect: self, self: self, out: out, usage: usagePath, label: "l",
		attempts: 4, iterations: 3, candidates: 2, rounds: 2, declare: "code"}
	p := problem{TaskID: "HumanEval/9", EntryPoint: "add",
		Prompt: "def add(a, b):\n    \"\"\"Return a + b.\"\"\"\n",
		Test:   "def check(candidate):\n    assert candidate(2, 3) == 5\n"}

	r := m.run(p, record{Label: "l", Task: p.TaskID, Mode: "best", Attempt: 1})
	is.Equal(r.Error, "")
	is.True(r.Solved && r.Success)
	is.Equal([]int{r.Candidates, r.Rounds, r.Iterations}, []int{2, 2, 2})
	is.Equal([]int{r.Requests, r.PromptTokens, r.CompletionTokens}, []int{4, 400, 40}) // 2 candidates × 2 rounds
	is.Equal(r.Seconds, 8.0)
	is.Equal(r.StopReason, "lessons off")

	r = m.run(p, record{Label: "l", Task: p.TaskID, Mode: "hybrid", Attempt: 1})
	is.Equal(r.Error, "")
	is.Equal([]int{r.Candidates, r.Rounds, r.Requests}, []int{2, 2, 4})
	is.Equal(r.StopReason, "lessons on")

	r = m.run(p, record{Label: "l", Task: p.TaskID, Mode: "loop", Attempt: 1})
	is.Equal(r.Error, "")
	is.Equal([]int{r.Candidates, r.Rounds, r.Iterations, r.Requests}, []int{0, 0, 3, 3})

	mu.Lock()
	defer mu.Unlock()
	var tags []string
	distinct := map[uint64]bool{}
	for tag, seed := range seeds {
		tags = append(tags, tag)
		distinct[seed] = true
	}
	slices.Sort(tags)
	is.Equal(tags, []string{"l/HumanEval-9/best/1/i1/c1", "l/HumanEval-9/best/1/i1/c2", "l/HumanEval-9/best/1/i2/c1", "l/HumanEval-9/best/1/i2/c2",
		"l/HumanEval-9/hybrid/1/i1/c1", "l/HumanEval-9/hybrid/1/i1/c2", "l/HumanEval-9/hybrid/1/i2/c1", "l/HumanEval-9/hybrid/1/i2/c2",
		"l/HumanEval-9/loop/1/i1", "l/HumanEval-9/loop/1/i2", "l/HumanEval-9/loop/1/i3"})
	is.Equal(len(distinct), 11)                                                 // every request its own seed
	is.Equal(seeds["l/HumanEval-9/loop/1/i1"], seedOf("HumanEval-9/loop/1/i1")) // the loop's as before
}
