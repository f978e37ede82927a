//go:build unix

package e2e

import (
	"encoding/json"
	"math"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/internal/agentbin"
	"github.com/architect-dev/architect/internal/stubmodel"
)

// claudeRun scripts one Claude Code run (one iteration): a Read of File
// (Claude's Write refuses to overwrite a file it has not read), a Write of
// File with Content, then Final as the last message. Status, when set,
// answers the run's first request with that HTTP error instead.
type claudeRun struct {
	File, Content, Final string
	Status               int
}

// Token usage the stub reports for a run's three answers, and what Claude
// Code charges for it with --model claude-sonnet-4-5 ($3 input, $0.30
// cache reads, $15 output per million tokens).
var (
	claudeUsage = []stubmodel.Usage{
		{Input: 1000, CachedInput: 200, Output: 50},
		{Input: 1050, CachedInput: 250, Output: 30},
		{Input: 1100, CachedInput: 300, Output: 20},
	}
	claudeRunCost   = (3150*3 + 750*0.30 + 100*15) / 1e6
	claudeWorkdirRE = regexp.MustCompile(`Working directory: ([^"\\]+)`)
)

// claudeScript answers the stub's requests run by run. The number of
// tool results in a request tells how far its run is; a request with none
// starts the next run.
type claudeScript struct {
	mu     sync.Mutex
	runs   []claudeRun
	next   int   // index of the next run to start
	starts []int // generation number of each run's first request
}

func (s *claudeScript) respond(n int, r stubmodel.Request) stubmodel.Turn {
	s.mu.Lock()
	defer s.mu.Unlock()
	step := toolResults(r.Body)
	if step == 0 {
		s.starts = append(s.starts, n)
		s.next++
	}
	run := s.runs[min(max(s.next-1, 0), len(s.runs)-1)]
	if run.Status != 0 {
		return stubmodel.Turn{Status: run.Status}
	}
	wd := "."
	if m := claudeWorkdirRE.FindSubmatch(r.Body); m != nil {
		wd = string(m[1])
	}
	path := filepath.Join(wd, run.File)
	switch step {
	case 0:
		return stubmodel.Turn{Text: "Reading " + run.File + ".", Usage: claudeUsage[0],
			ToolCalls: []stubmodel.ToolCall{{Name: "Read", Args: map[string]any{"file_path": path}}}}
	case 1:
		return stubmodel.Turn{Text: "Editing " + run.File + ".", Usage: claudeUsage[1],
			ToolCalls: []stubmodel.ToolCall{{Name: "Write", Args: map[string]any{"file_path": path, "content": run.Content}}}}
	}
	return stubmodel.Turn{Text: run.Final, Usage: claudeUsage[2]}
}

// runStarts returns the first request of each run, in order.
func (s *claudeScript) runStarts(srv *stubmodel.Server) []stubmodel.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return startRequests(srv, s.starts, func(r stubmodel.Request) bool {
		return r.Method == "POST" && strings.Contains(r.Path, "/v1/messages")
	})
}

// toolResults counts the tool_result blocks in a Messages request.
func toolResults(body []byte) int {
	var req struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil {
		return 0
	}
	n := 0
	for _, m := range req.Messages {
		var blocks []struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type == "tool_result" {
				n++
			}
		}
	}
	return n
}

// claudeLoop runs `architect loop --agent claude` on a fresh
// failing-go-test fixture against a stub scripted with runs.
func claudeLoop(t *testing.T, runs ...claudeRun) (r *Run, dir string, srv *stubmodel.Server, script *claudeScript, res Result) {
	t.Helper()
	return claudeLoopWith(t, nil, nil, nil, runs...)
}

// claudeLoopWith is claudeLoop with extra environment and arguments (which
// win over the defaults; an empty value removes a variable), and a
// responder that may answer some requests before the script does (nil:
// none).
func claudeLoopWith(t *testing.T, env, extra []string, before func(n int, req stubmodel.Request) *stubmodel.Turn, runs ...claudeRun) (r *Run, dir string, srv *stubmodel.Server, script *claudeScript, res Result) {
	t.Helper()
	bin := agentbin.Path(t, "claude")
	r = NewRun(t)
	dir = Fixture(t, "failing-go-test")
	script = &claudeScript{runs: runs}
	respond := script.respond
	if before != nil {
		respond = func(n int, req stubmodel.Request) stubmodel.Turn {
			if turn := before(n, req); turn != nil {
				return *turn
			}
			return script.respond(n, req)
		}
	}
	srv = stubmodel.Anthropic(t, respond)
	r.Env = withEnv(append(r.Env, claudeStubEnv(r, srv)...), env...)
	args := []string{"loop", "make go test pass",
		"--agent", "claude", "--agent-bin", bin, "--model", "claude-sonnet-4-5",
		"--check", "go test ./...", "--max-iterations", "4", "--backoff-cap", "1s",
		"--json", "-C", dir}
	res = r.Architect(dir, 5*time.Minute, append(args, extra...)...)
	return r, dir, srv, script, res
}

// claudeStubEnv points Claude Code at srv, quietly, with an API key.
func claudeStubEnv(r *Run, srv *stubmodel.Server) []string {
	return []string{
		"ANTHROPIC_BASE_URL=" + srv.URL,
		"ANTHROPIC_API_KEY=sk-ant-stub",
		"CLAUDE_CONFIG_DIR=" + filepath.Join(r.Home, ".claude"),
		"IS_SANDBOX=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_ERROR_REPORTING=1",
		"CLAUDE_CODE_MAX_RETRIES=0",
	}
}

const (
	wrongFix = "// Package calc does arithmetic.\npackage calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a * b\n}\n"
	rightFix = "// Package calc does arithmetic.\npackage calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n"
)

func TestClaudeLoopFixesFailingTest(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	r, dir, srv, script, res := claudeLoop(t,
		claudeRun{File: "calc.go", Content: wrongFix, Final: "I changed Add; it should work now (key sk-ant-stub)."},
		claudeRun{File: "calc.go", Content: rightFix, Final: "Add adds now. <promise>COMPLETE</promise>"},
	)
	var prompts []string
	for _, r := range script.runStarts(srv) {
		prompts = append(prompts, string(r.Body))
	}
	lr := fixedInTwo(t, res, dir, rightFix, 3, prompts)
	transcriptsKept(t, r, dir, "[tool call Write]", "sk-ant-stub")

	// Costs: each iteration's is Claude Code's own figure, and they add up.
	is.True(lr.TotalCostKnown)
	sum := 0.0
	for _, it := range lr.Iterations {
		is.True(it.Cost != nil)
		is.True(math.Abs(*it.Cost-claudeRunCost) < 1e-9) // Claude's total_cost_usd for the run
		sum += *it.Cost
	}
	is.True(math.Abs(lr.TotalCost-sum) < 1e-9)
	is.True(math.Abs(lr.TotalCost-2*claudeRunCost) < 1e-9)

	r.NoLeftovers(dir)
}

func TestClaudeLoopServerErrorIsRecordedAndLoopGoesOn(t *testing.T) {
	t.Parallel()
	r, dir, _, _, res := claudeLoop(t,
		claudeRun{Status: 500},
		claudeRun{File: "calc.go", Content: rightFix, Final: "Fixed. <promise>COMPLETE</promise>"},
	)
	recoveredFromTransient(t, res, dir, "500", rightFix)
	r.NoLeftovers(dir)
}

func TestClaudeLoopAuthErrorStops(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	r, dir, _, script, res := claudeLoop(t, claudeRun{Status: 401})
	stoppedOnFatal(t, res, "Invalid API key")
	script.mu.Lock()
	is.Equal(script.next, 1) // no second run
	script.mu.Unlock()
	r.NoLeftovers(dir)
}
