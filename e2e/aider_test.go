//go:build unix

package e2e

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/internal/agentbin"
	"github.com/architect-dev/architect/internal/stubmodel"
)

// aiderModel is the model aider is pointed at: litellm's "openai/" prefix
// sends it to OPENAI_API_BASE, the stub's Chat Completions endpoint.
const aiderModel = "openai/stub-model"

// aiderUsage is what the stub reports for every answer; aiderIn and
// aiderOut are the prices the tests give the model, per token in aider's
// metadata file and per million tokens in ralph.yaml. A run takes two
// answers: the model's first names calc.go, which is not in aider's chat
// yet; aider adds it, says so, and asks again; the second answer's edit is
// applied (aider 0.86's file-mention flow, answered yes by --yes-always).
var (
	aiderUsage           = stubmodel.Usage{Input: 1000, Output: 50}
	aiderIn, aiderOut    = 2.0, 8.0 // USD per million tokens
	aiderRunCost         = 2 * (1000*aiderIn + 50*aiderOut) / 1e6
	aiderIterationRE     = regexp.MustCompile(`This is iteration (\d+)`)
	aiderRateLimitedTurn = stubmodel.Turn{Status: 429, ErrorBody: stubmodel.OpenAIRateLimitBody()}
)

// aiderRun scripts one aider run (one iteration): every answer is Answer,
// in aider's whole-file format. Status, when
// set, answers with that HTTP error instead; Failures, when set, answers
// only the run's first Failures requests with it (aider and the OpenAI
// client under it retry).
type aiderRun struct {
	Answer    string
	Status    int
	ErrorBody string
	Failures  int
}

// aiderWhole is an answer in aider's "whole" edit format (the default for a
// model aider does not know): the file name, then the whole file fenced.
func aiderWhole(file, content, final string) string {
	return file + "\n```go\n" + content + "```\n\n" + final + "\n"
}

// aiderScript answers the stub's requests by the iteration named in the
// prompt aider sends ("This is iteration N"), which tells runs apart even
// when aider resends a request.
type aiderScript struct {
	mu     sync.Mutex
	runs   []aiderRun
	seen   map[int]int // requests per iteration
	starts []int       // generation number of each iteration's first request
}

func (s *aiderScript) respond(n int, r stubmodel.Request) stubmodel.Turn {
	s.mu.Lock()
	defer s.mu.Unlock()
	it := 1
	if m := aiderIterationRE.FindSubmatch(r.Body); m != nil {
		it, _ = strconv.Atoi(string(m[1]))
	}
	if s.seen == nil {
		s.seen = map[int]int{}
	}
	if s.seen[it] == 0 {
		s.starts = append(s.starts, n)
	}
	s.seen[it]++
	run := s.runs[min(max(it-1, 0), len(s.runs)-1)]
	if run.Status != 0 && (run.Failures == 0 || s.seen[it] <= run.Failures) {
		return stubmodel.Turn{Status: run.Status, ErrorBody: run.ErrorBody}
	}
	return stubmodel.Turn{Text: run.Answer, Usage: aiderUsage}
}

// runStarts returns the body of each run's first request, in order.
func (s *aiderScript) runStarts(srv *stubmodel.Server) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return startBodies(srv, s.starts)
}

func (s *aiderScript) requests(iteration int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seen[iteration]
}

// aiderSetup says how a test sets aider up: whether aider knows the
// model's prices (then it reports dollars itself; otherwise ralph.yaml's
// price table prices the tokens), and the context window aider is told.
type aiderSetup struct {
	aiderPrices bool
	window      int
}

// aiderLoop runs `architect loop --agent aider` on a fresh
// failing-go-test fixture against a stub scripted with runs.
func aiderLoop(t *testing.T, setup aiderSetup, extra []string, runs ...aiderRun) (r *Run, dir string, srv *stubmodel.Server, script *aiderScript, res Result) {
	t.Helper()
	bin := agentbin.Path(t, "aider")
	r = NewRun(t)
	dir = Fixture(t, "failing-go-test")
	script = &aiderScript{runs: runs}
	srv = stubmodel.OpenAI(t, script.respond)

	// aider reads a model's context window and prices from
	// ~/.aider.model.metadata.json (litellm's format); without an entry it
	// would download litellm's whole table from the internet.
	window := setup.window
	if window == 0 {
		window = 32768
	}
	meta := map[string]any{"max_input_tokens": window, "max_output_tokens": 4096, "litellm_provider": "openai", "mode": "chat"}
	if setup.aiderPrices {
		meta["input_cost_per_token"] = aiderIn / 1e6
		meta["output_cost_per_token"] = aiderOut / 1e6
	}
	b, _ := json.Marshal(map[string]any{aiderModel: meta})
	if err := os.WriteFile(filepath.Join(r.Home, ".aider.model.metadata.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(r.Root, "ralph.yaml")
	yaml := "ralph_loop:\n  max_iterations: 4\n  backoff_cap: 1s\nprices:\n  " + aiderModel + ": {input: " +
		strconv.FormatFloat(aiderIn, 'f', -1, 64) + ", output: " + strconv.FormatFloat(aiderOut, 'f', -1, 64) + "}\n"
	if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	r.Env = append(r.Env, "OPENAI_API_BASE="+srv.URL+"/v1", "OPENAI_API_KEY=sk-stub",
		"LITELLM_LOCAL_MODEL_COST_MAP=True") // litellm's own copy of its table, not a download
	args := append([]string{"loop", "make go test pass", "-c", cfg,
		"--agent", "aider", "--agent-bin", bin, "--model", aiderModel,
		"--check", "go test ./...", "--json", "-C", dir}, extra...)
	res = r.Architect(dir, 5*time.Minute, args...)
	return r, dir, srv, script, res
}

// gitStatus returns `git status --porcelain --ignored` of dir, .architect/
// (architect's own folder, excluded from git) left out.
func gitStatus(t *testing.T, dir string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", dir, "status", "--porcelain", "--ignored", "--untracked-files=all").CombinedOutput()
	if err != nil {
		t.Fatalf("git status: %v\n%s", err, out)
	}
	var keep []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if l != "" && !strings.Contains(l, ".architect/") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

func TestAiderLoopFixesFailingTest(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	r, dir, srv, script, res := aiderLoop(t, aiderSetup{aiderPrices: true}, nil,
		aiderRun{Answer: aiderWhole("calc.go", calcSource("*"), "I changed Add; it should work now.")},
		aiderRun{Answer: aiderWhole("calc.go", calcSource("+"), "Add adds now. <promise>COMPLETE</promise>")},
	)
	lr := fixedInTwo(t, res, dir, calcSource("+"), 2, script.runStarts(srv)) // two model answers per run

	// The final message is aider's last model reply, read from its LLM history.
	is.True(lr.Iterations[1].CompletionTagFound)
	// Cost: aider's own figure (its metadata's prices × the stub's usage),
	// per iteration; tokens from its usage report.
	for _, it := range lr.Iterations {
		is.True(it.Cost != nil)
		is.True(math.Abs(*it.Cost-aiderRunCost) < 1e-9) // aider's "… Cost: $0.0024 message, $0.0048 session."
		is.True(it.Tokens != nil)
		is.Equal([]int64{it.Tokens.Input, it.Tokens.Output}, []int64{2000, 100})
	}
	is.True(lr.TotalCostKnown)
	is.True(math.Abs(lr.TotalCost-2*aiderRunCost) < 1e-9)

	// aider changed calc.go and nothing else: no .gitignore entry, no chat
	// history and no repo-map cache left in the workspace.
	is.Equal(gitStatus(t, dir), "M calc.go")
	r.NoLeftovers(dir)
}

func TestAiderLoopRateLimitRecoveredAndPricedFromTable(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	// The first 4 requests are rate limited: the OpenAI client under aider
	// tries 3 times, aider prints the error and tries again, and succeeds.
	r, dir, _, script, res := aiderLoop(t, aiderSetup{}, nil,
		aiderRun{Status: 429, ErrorBody: aiderRateLimitedTurn.ErrorBody, Failures: 4,
			Answer: aiderWhole("calc.go", calcSource("+"), "Fixed. <promise>COMPLETE</promise>")})
	lr := succeeded(t, res, 1)
	is.True(lr.Iterations[0].Error == nil) // recovered within the run
	is.True(script.requests(1) > 4)
	// aider knows no price for the model: tokens × ralph.yaml's price.
	is.True(lr.Iterations[0].Cost != nil)
	is.True(math.Abs(*lr.Iterations[0].Cost-aiderRunCost) < 1e-12)
	is.Equal(ReadFile(t, filepath.Join(dir, "calc.go")), calcSource("+"))
	r.NoLeftovers(dir)
}

func TestAiderLoopRateLimitGivesUpThenRecovers(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	// Every request of the first run is rate limited: aider retries for
	// about a minute, gives up and exits 0; architect takes it for a rate
	// limit, waits the "try again in 20s" the error gives, and the next
	// iteration fixes the code.
	r, dir, _, _, res := aiderLoop(t, aiderSetup{aiderPrices: true}, []string{"--events", "-"},
		aiderRun{Status: 429, ErrorBody: aiderRateLimitedTurn.ErrorBody},
		aiderRun{Answer: aiderWhole("calc.go", calcSource("+"), "Fixed. <promise>COMPLETE</promise>")},
	)
	if res.ExitCode != 0 {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", res.ExitCode, res.Stderr)
	}
	// stdout: the events, one per line, then the --json result.
	var waited bool
	var result strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(res.Stdout), "\n") {
		var ev struct {
			Type    string  `json:"type"`
			Seconds float64 `json:"seconds"`
		}
		if strings.HasPrefix(line, `{"type"`) && json.Unmarshal([]byte(line), &ev) == nil {
			if ev.Type == "usage_limit_wait" {
				waited = true
				// The 20 s the error gives, and the margin a wait for a reset
				// time has: a second, a hundredth of the wait and a random
				// part of up to a twentieth (loop.margin).
				is.True(ev.Seconds > 0 && ev.Seconds <= 20+1+20*0.01+20*0.05)
			}
			continue
		}
		result.WriteString(line + "\n")
	}
	is.True(waited)
	lr := ParseLoopResult(t, Result{Stdout: result.String(), Stderr: res.Stderr, ExitCode: res.ExitCode})
	is.True(lr.Success)
	is.True(len(lr.Iterations) >= 1)
	first := lr.Iterations[0]
	is.True(first.Error != nil && strings.Contains(*first.Error, "RateLimitError"))
	is.Equal(first.ErrorKind, "usage_limit")
	is.Equal(ReadFile(t, filepath.Join(dir, "calc.go")), calcSource("+"))
	r.NoLeftovers(dir)
}

func TestAiderLoopAuthErrorStops(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	r, dir, _, script, res := aiderLoop(t, aiderSetup{}, nil, aiderRun{Status: 401})
	stoppedOnFatal(t, res, "AuthenticationError")
	is.True(strings.Contains(res.Stderr, "API key")) // the hint
	is.Equal(script.requests(2), 0)                  // no second run
	r.NoLeftovers(dir)
}

func TestAiderLoopContextWindowStops(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	// aider is told the model has a 500-token window, which architect's
	// prompt and aider's own instructions overflow; the server says so too.
	r, dir, _, script, res := aiderLoop(t, aiderSetup{window: 500}, nil, aiderRun{Status: 400})
	stoppedOnFatal(t, res, "token limit")
	is.True(strings.Contains(res.Stderr, "context window")) // the hint
	is.Equal(script.requests(2), 0)
	is.Equal(ReadFile(t, filepath.Join(dir, "calc.go")), calcSource("-")) // untouched
	r.NoLeftovers(dir)
}
