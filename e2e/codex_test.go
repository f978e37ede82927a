//go:build unix

package e2e

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/internal/agentbin"
	"github.com/architect-dev/architect/internal/stubmodel"
)

// calcSource is the fixture's calc.go with Add computing a OP b.
func calcSource(op string) string {
	return "// Package calc does arithmetic.\npackage calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a " + op + " b\n}\n"
}

// tokenRun scripts one run (one iteration) of an agent whose cost comes
// from the price table: Call (a tool call that edits the workspace), then
// Final as the last message. Status, when set, answers the run's first
// request with that HTTP error (and ErrorBody) instead.
type tokenRun struct {
	Call      stubmodel.ToolCall
	Final     string
	Status    int
	ErrorBody string
}

// Token usage the stub reports for the two answers of a run, and their sum.
var (
	tokenUsage = []stubmodel.Usage{
		{Input: 1000, CachedInput: 200, Output: 50},
		{Input: 1100, CachedInput: 1300, Output: 20},
	}
	tokenRunInput, tokenRunCached, tokenRunOutput = 2100.0, 1500.0, 70.0
)

// tokenScript answers the stub's requests run by run. toolOutputs tells
// how far into its run a request is (the number of tool results it
// carries); a request with none starts the next run.
type tokenScript struct {
	mu          sync.Mutex
	runs        []tokenRun
	toolOutputs func(body []byte) int
	next        int   // index of the next run to start
	starts      []int // generation number of each run's first request
}

func (s *tokenScript) respond(n int, r stubmodel.Request) stubmodel.Turn {
	s.mu.Lock()
	defer s.mu.Unlock()
	step := s.toolOutputs(r.Body)
	if step == 0 {
		s.starts = append(s.starts, n)
		s.next++
	}
	run := s.runs[min(max(s.next-1, 0), len(s.runs)-1)]
	if run.Status != 0 {
		return stubmodel.Turn{Status: run.Status, ErrorBody: run.ErrorBody}
	}
	if step == 0 {
		return stubmodel.Turn{ToolCalls: []stubmodel.ToolCall{run.Call}, Usage: tokenUsage[0]}
	}
	return stubmodel.Turn{Text: run.Final, Usage: tokenUsage[1]}
}

// runStarts returns the body of each run's first request, in order.
func (s *tokenScript) runStarts(srv *stubmodel.Server) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return startBodies(srv, s.starts)
}

func (s *tokenScript) started() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.next
}

// codexToolOutputs counts the tool results in a Responses request.
func codexToolOutputs(body []byte) int {
	var req struct {
		Input []struct {
			Type string `json:"type"`
		} `json:"input"`
	}
	if json.Unmarshal(body, &req) != nil {
		return 0
	}
	n := 0
	for _, it := range req.Input {
		if strings.HasSuffix(it.Type, "_call_output") {
			n++
		}
	}
	return n
}

// codexPatch is an apply_patch call changing Add's operator.
func codexPatch(from, to string) stubmodel.ToolCall {
	return stubmodel.ToolCall{Name: "apply_patch", Input: "*** Begin Patch\n*** Update File: calc.go\n@@\n-\treturn a " + from +
		" b\n+\treturn a " + to + " b\n*** End Patch\n"}
}

// codexYAMLPrice is the price the tests give gpt-5.5 in ralph.yaml, unlike
// the built-in one, so that a cost computed with it shows that it was used.
const codexYAMLPrice = `prices:
  gpt-5.5: {input: 2, cached_input: 0.5, output: 8}
`

// codexLoop runs `architect loop --agent codex -c ralph.yaml` on a fresh
// failing-go-test fixture against a stub scripted with runs.
func codexLoop(t *testing.T, extra []string, runs ...tokenRun) (r *Run, dir string, srv *stubmodel.Server, script *tokenScript, res Result) {
	t.Helper()
	return codexLoopWith(t, extra, nil, runs...)
}

// codexLoopWith is codexLoop with the stub's responder wrapped by wrap
// (nil: not), to answer some requests before the script does.
func codexLoopWith(t *testing.T, extra []string, wrap func(stubmodel.Responder) stubmodel.Responder, runs ...tokenRun) (r *Run, dir string, srv *stubmodel.Server, script *tokenScript, res Result) {
	t.Helper()
	bin := agentbin.Path(t, "codex")
	r = NewRun(t)
	dir = Fixture(t, "failing-go-test")
	script = &tokenScript{runs: runs, toolOutputs: codexToolOutputs}
	respond := stubmodel.Responder(script.respond)
	if wrap != nil {
		respond = wrap(respond)
	}
	srv = stubmodel.OpenAI(t, respond)
	cfg := filepath.Join(r.Root, "ralph.yaml")
	if err := os.WriteFile(cfg, []byte("ralph_loop:\n  max_iterations: 4\n  backoff_cap: 1s\n"+codexYAMLPrice), 0o644); err != nil {
		t.Fatal(err)
	}
	r.Env = append(r.Env, codexStubEnv(t, r, srv)...)
	args := append([]string{"loop", "make go test pass", "-c", cfg,
		"--agent", "codex", "--agent-bin", bin, "--model", "gpt-5.5",
		"--check", "go test ./...", "--json", "-C", dir}, extra...)
	res = r.Architect(dir, 5*time.Minute, args...)
	return r, dir, srv, script, res
}

// codexStubEnv points Codex at srv: a CODEX_HOME whose config.toml names
// the stub, its API key, and TZ=UTC (Codex prints reset times in local time).
func codexStubEnv(t *testing.T, r *Run, srv *stubmodel.Server) []string {
	t.Helper()
	codexHome := filepath.Join(r.Home, ".codex")
	if err := os.MkdirAll(codexHome, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(srv.CodexConfig("gpt-5.5")), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{"CODEX_HOME=" + codexHome, "STUB_API_KEY=sk-stub", "TZ=UTC"}
}

func TestCodexLoopFixesFailingTest(t *testing.T) {
	t.Parallel()
	r, dir, srv, script, res := codexLoop(t, nil,
		tokenRun{Call: codexPatch("-", "*"), Final: "I changed Add; it should work now (key sk-stub)."},
		tokenRun{Call: codexPatch("*", "+"), Final: "Add adds now. <promise>COMPLETE</promise>"},
	)
	lr := fixedInTwo(t, res, dir, calcSource("+"), 1, script.runStarts(srv)) // one patch per run
	transcriptsKept(t, r, dir, "[file change]", "sk-stub")

	// Costs: tokens × the price ralph.yaml gives gpt-5.5, and they add up.
	want := (tokenRunInput*2 + tokenRunCached*0.5 + tokenRunOutput*8) / 1e6
	tokenCosts(t, lr, want)

	r.NoLeftovers(dir)
}

func TestCodexLoopServerErrorIsRecordedAndLoopGoesOn(t *testing.T) {
	t.Parallel()
	r, dir, _, _, res := codexLoop(t, nil,
		tokenRun{Status: 500},
		tokenRun{Call: codexPatch("-", "+"), Final: "Fixed. <promise>COMPLETE</promise>"},
	)
	recoveredFromTransient(t, res, dir, "high demand", calcSource("+")) // Codex's words for a 500
	r.NoLeftovers(dir)
}

func TestCodexLoopAuthErrorStops(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	r, dir, _, script, res := codexLoop(t, nil, tokenRun{Status: 401})
	stoppedOnFatal(t, res, "401 Unauthorized")
	is.Equal(script.started(), 1) // no second run
	r.NoLeftovers(dir)
}

func TestCodexLoopUsageLimit(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	r, dir, _, script, res := codexLoop(t, []string{"--on-usage-limit", "stop"},
		tokenRun{Status: 429, ErrorBody: stubmodel.OpenAIUsageLimitBody(1900000000)})
	lr := ParseLoopResult(t, res)
	is.True(!lr.Success)
	is.Equal(lr.StopReason, "usage_limit")
	is.True(strings.Contains(lr.StopDetail, "usage limit"))                 // Codex's message
	is.True(strings.Contains(lr.StopDetail, "resets 2030-03-17T17:46:00Z")) // read from it
	is.Equal(lr.TotalIterations, 0)                                         // a usage limit is not an iteration
	is.Equal(script.started(), 1)
	r.NoLeftovers(dir)
}

// tokenCosts asserts that every iteration used a scripted run's tokens and
// cost want (those tokens × the model's price), and that the total is their
// sum.
func tokenCosts(t *testing.T, lr LoopResult, want float64) {
	t.Helper()
	is := is.New(t)
	is.True(lr.TotalCostKnown)
	sum := 0.0
	for _, it := range lr.Iterations {
		is.True(it.Tokens != nil)
		is.Equal([]int64{it.Tokens.Input, it.Tokens.CachedInput, it.Tokens.Output}, []int64{2100, 1500, 70})
		is.True(it.Cost != nil)
		is.True(math.Abs(*it.Cost-want) < 1e-12)
		sum += *it.Cost
	}
	is.True(math.Abs(lr.TotalCost-sum) < 1e-12)
	is.True(math.Abs(lr.TotalCost-2*want) < 1e-12)
}
