//go:build unix

package e2e

import (
	"fmt"
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

// Issue 25, through the real binary with the real agent CLIs against the
// stub model: a usage limit is waited for exactly, to the reset time the
// CLI gave; with a fallback, the next iteration runs on another agent; an
// outage is retried, then falls back; an authentication error stops at
// once; `architect say` from a second process reaches the next prompt.

// limiter answers every generation request with a usage limit until its
// reset time, 3 s after the first request, and lets the script answer
// after it.
type limiter struct {
	mu      sync.Mutex
	reset   time.Time
	refused int
	firstOK time.Time // the first request answered after the reset
}

// turn is the limit's answer for the request made at now, or nil once the
// reset time has passed. answer makes the CLI's usage-limit response.
func (l *limiter) turn(answer func(reset, now time.Time) stubmodel.Turn) *stubmodel.Turn {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if l.reset.IsZero() {
		l.reset = now.Add(3 * time.Second)
	}
	if now.Before(l.reset) {
		l.refused++
		t := answer(l.reset, now)
		return &t
	}
	if l.firstOK.IsZero() {
		l.firstOK = now
	}
	return nil
}

func (l *limiter) wrap(answer func(reset, now time.Time) stubmodel.Turn) func(stubmodel.Responder) stubmodel.Responder {
	return func(next stubmodel.Responder) stubmodel.Responder {
		return func(n int, req stubmodel.Request) stubmodel.Turn {
			if t := l.turn(answer); t != nil {
				return *t
			}
			return next(n, req)
		}
	}
}

// waitedForTheReset checks that the loop waited for the usage limit to
// the reset time the CLI gave (once, when the CLI gave it to the second),
// went on no earlier than the reset, succeeded, and waited between lo and
// hi seconds in all.
func waitedForTheReset(t *testing.T, res Result, l *limiter, once bool, lo, hi float64) LoopResult {
	t.Helper()
	is := is.New(t)
	lr := ParseLoopResult(t, res)
	if !lr.Success {
		t.Fatalf("no success: %s: %s\n%s", lr.StopReason, lr.StopDetail, res.Stderr)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	// One refusal and one wait (given a reset time to the second): the
	// loop came back once, after the reset, not in between (waits of a
	// second each, summing to the same 3 s, would meet the limit again and
	// again).
	if once && (l.refused != 1 || lr.UsageLimitWaits != 1) {
		t.Fatalf("refused %d time(s), %d usage-limit wait(s): want one of each (one wait to the reset)\n%s", l.refused, lr.UsageLimitWaits, res.Stderr)
	}
	is.True(!l.firstOK.Before(l.reset)) // it went on once the limit had lifted, not before
	is.True(l.refused >= 1)
	is.Equal(len(lr.Waits), lr.UsageLimitWaits)
	for _, w := range lr.Waits {
		is.True(w.Exact) // to the reset time the CLI gave, not a guess
	}
	if lr.UsageLimitWaited < lo || lr.UsageLimitWaited > hi {
		t.Fatalf("waited %.1fs for the usage limit, want %.0f-%.0fs\n%s", lr.UsageLimitWaited, lo, hi, res.Stderr)
	}
	is.Equal(lr.TotalIterations, 1) // a refusal is no iteration
	t.Logf("refused %d time(s); waited %.2fs in %d wait(s); went on %s after the reset", l.refused, lr.UsageLimitWaited, lr.UsageLimitWaits, l.firstOK.Sub(l.reset).Round(10*time.Millisecond))
	return lr
}

// Claude Code (a subscription: its 429 carries the unified limit headers,
// read only with an OAuth token) says when its limit resets, to the
// second: the loop waits until then, about 3 s, and goes on.
func TestClaudeUsageLimitWaitsExactly(t *testing.T) {
	t.Parallel()
	l := &limiter{}
	before := func(int, stubmodel.Request) *stubmodel.Turn {
		return l.turn(func(reset, _ time.Time) stubmodel.Turn {
			return stubmodel.Turn{Status: 429, Header: stubmodel.AnthropicUsageLimitHeader(reset)}
		})
	}
	r, dir, _, _, res := claudeLoopWith(t, []string{"ANTHROPIC_API_KEY=", "CLAUDE_CODE_OAUTH_TOKEN=sk-ant-oat01-stub"}, nil, before,
		claudeRun{File: "calc.go", Content: rightFix, Final: "Fixed. <promise>COMPLETE</promise>"})
	// resetsAt is in whole seconds; the CLI takes a moment to exit: the wait
	// is the rest of the 3 s, plus a margin of about a second.
	waitedForTheReset(t, res, l, true, 1, 5.5)
	is.New(t).True(strings.Contains(res.Stderr, "the reset time the agent gave"))
	r.NoLeftovers(dir)
}

// Codex prints the reset time to the minute ("try again at 6:19 AM"): the
// loop looks again every few seconds within that minute, and goes on
// shortly after the limit lifts, not at the minute's end.
func TestCodexUsageLimitWaitsForTheReset(t *testing.T) {
	t.Parallel()
	l := &limiter{}
	r, dir, _, _, res := codexLoopWith(t, nil, l.wrap(func(reset, _ time.Time) stubmodel.Turn {
		return stubmodel.Turn{Status: 429, ErrorBody: stubmodel.OpenAIUsageLimitBody(reset.Unix())}
	}), tokenRun{Call: codexPatch("-", "+"), Final: "Fixed. <promise>COMPLETE</promise>"})
	waitedForTheReset(t, res, l, false, 1, 12)
	l.mu.Lock()
	late := l.firstOK.Sub(l.reset)
	l.mu.Unlock()
	if late > 8*time.Second {
		t.Fatalf("went on %s after the limit lifted", late)
	}
	r.NoLeftovers(dir)
}

// The Gemini CLI says "Suggested retry after 3s": the loop waits those 3 s
// (plus a margin) from when the CLI said it, and goes on.
func TestGeminiUsageLimitWaitsExactly(t *testing.T) {
	t.Parallel()
	l := &limiter{}
	r, dir, _, _, res := geminiLoopWith(t, nil, l.wrap(func(reset, now time.Time) stubmodel.Turn {
		delay := fmt.Sprintf("%ds", int(math.Ceil(reset.Sub(now).Seconds())))
		return stubmodel.Turn{Status: 429, ErrorBody: stubmodel.GeminiQuotaBody("GenerateRequestsPerMinutePerProjectPerModel-FreeTier", delay)}
	}), func(dir string) []tokenRun {
		return []tokenRun{{Call: geminiWrite(dir, "+"), Final: "Fixed. <promise>COMPLETE</promise>"}}
	})
	waitedForTheReset(t, res, l, true, 3.5, 6)
	r.NoLeftovers(dir)
}

// claudeThenCodex runs a loop whose agent is Claude Code (a subscription)
// with Codex to fall back on (found on PATH), each against its stub;
// claude answers the requests before(n, req) answers, else as its runs
// script them.
func claudeThenCodex(t *testing.T, extra []string, before func(n int, req stubmodel.Request) *stubmodel.Turn, claudeRuns []claudeRun, codexRuns ...tokenRun) (*Run, string, *tokenScript, *stubmodel.Server, Result) {
	t.Helper()
	bin := agentbin.Path(t, "claude")
	codexBin := agentbin.Path(t, "codex")
	r := NewRun(t)
	dir := Fixture(t, "failing-go-test")
	script := &claudeScript{runs: claudeRuns}
	anthropic := stubmodel.Anthropic(t, func(n int, req stubmodel.Request) stubmodel.Turn {
		if before != nil {
			if turn := before(n, req); turn != nil {
				return *turn
			}
		}
		return script.respond(n, req)
	})
	codex := &tokenScript{runs: codexRuns, toolOutputs: codexToolOutputs}
	openai := stubmodel.OpenAI(t, codex.respond)
	r.Env = withEnv(append(r.Env, claudeStubEnv(r, anthropic)...), "ANTHROPIC_API_KEY=", "CLAUDE_CODE_OAUTH_TOKEN=sk-ant-oat01-stub")
	r.Env = withEnv(append(r.Env, codexStubEnv(t, r, openai)...), "PATH="+filepath.Dir(codexBin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	args := append([]string{"loop", "make go test pass",
		"--agent", "claude", "--agent-bin", bin, "--model", "claude-sonnet-4-5", "--fallback", "codex:gpt-5.5",
		"--check", "go test ./...", "--max-iterations", "4", "--backoff-cap", "0.1s", "--json", "-C", dir}, extra...)
	return r, dir, codex, openai, r.Architect(dir, 5*time.Minute, args...)
}

// Claude Code works an iteration, then hits its usage limit (its reset an
// hour away): the next iteration runs on Codex, with the same prompt, and
// the run succeeds there. Both costs are counted, each per agent, and the
// switch is in the result and in the report.
func TestFallbackFromClaudeToCodex(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	var mu sync.Mutex
	starts := 0
	before := func(_ int, req stubmodel.Request) *stubmodel.Turn {
		mu.Lock()
		defer mu.Unlock()
		if toolResults(req.Body) == 0 {
			if starts++; starts >= 2 {
				return &stubmodel.Turn{Status: 429, Header: stubmodel.AnthropicUsageLimitHeader(time.Now().Add(time.Hour))}
			}
		}
		return nil
	}
	r, dir, codex, openai, res := claudeThenCodex(t, nil, before,
		[]claudeRun{{File: "calc.go", Content: wrongFix, Final: "I changed Add; it should work now."}},
		tokenRun{Call: codexPatch("*", "+"), Final: "Add adds now. <promise>COMPLETE</promise>"})
	lr := ParseLoopResult(t, res)
	if !lr.Success {
		t.Fatalf("no success: %s: %s\n%s", lr.StopReason, lr.StopDetail, res.Stderr)
	}
	is.Equal(lr.TotalIterations, 2)
	is.Equal(lr.Iterations[0].Agent, "claude")
	is.Equal(lr.Iterations[0].Model, "claude-sonnet-4-5")
	is.Equal(lr.Iterations[1].Agent, "codex")
	is.Equal(lr.Iterations[1].Model, "gpt-5.5")
	is.Equal(ReadFile(t, filepath.Join(dir, "calc.go")), calcSource("+"))
	is.Equal(codex.started(), 1)
	// The same prompt: iteration 2's, with iteration 1's failing check.
	is.True(strings.Contains(codex.runStarts(openai)[0], "Add(2, 3) = 6, want 5"))

	// Both costs, each counted, and per agent.
	c1, c2 := lr.Iterations[0].Cost, lr.Iterations[1].Cost
	is.True(c1 != nil && *c1 > 0)
	is.True(c2 != nil && *c2 > 0)
	is.True(lr.TotalCostKnown)
	is.True(math.Abs(lr.TotalCost-(*c1+*c2)) < 1e-12)
	is.Equal(len(lr.Agents), 2)
	is.Equal(lr.Agents[0].Agent, "claude")
	is.True(math.Abs(*lr.Agents[0].Cost-*c1) < 1e-12)
	is.Equal(lr.Agents[1].Agent, "codex")
	is.True(math.Abs(*lr.Agents[1].Cost-*c2) < 1e-12)

	// The switch: in the result, on stderr, in the report.
	is.Equal(len(lr.Switches), 1)
	is.Equal(lr.Switches[0].From, "claude:claude-sonnet-4-5")
	is.Equal(lr.Switches[0].To, "codex:gpt-5.5")
	is.Equal(lr.Switches[0].Reason, "usage_limit")
	is.Equal(lr.Switches[0].Iteration, 2)
	is.True(strings.Contains(res.Stderr, "switching agents: iteration 2 runs on codex:gpt-5.5 instead of claude:claude-sonnet-4-5"))
	is.True(strings.Contains(res.Stderr, "architect: by agent: claude:claude-sonnet-4-5 1 iteration"))
	rep := r.Architect(dir, time.Minute, "report", "-C", dir)
	is.Equal(rep.ExitCode, 0)
	page := ReadFile(t, filepath.Join(dir, ".architect", "report.html"))
	is.True(strings.Contains(page, "claude:claude-sonnet-4-5 → codex:gpt-5.5 (usage_limit"))
	is.True(strings.Contains(page, "codex (gpt-5.5): 1 iteration"))
	r.NoLeftovers(dir)
}

// An outage (HTTP 500 on every request to Claude) is retried
// (--outage-retries 1), then the next iteration runs on Codex.
func TestOutageFallsBackToCodex(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	r, dir, _, _, res := claudeThenCodex(t, []string{"--outage-retries", "1"}, nil, []claudeRun{{Status: 500}},
		tokenRun{Call: codexPatch("-", "+"), Final: "Fixed. <promise>COMPLETE</promise>"})
	lr := ParseLoopResult(t, res)
	if !lr.Success {
		t.Fatalf("no success: %s: %s\n%s", lr.StopReason, lr.StopDetail, res.Stderr)
	}
	is.Equal(lr.TotalIterations, 3)
	for _, it := range lr.Iterations[:2] {
		is.Equal(it.Agent, "claude")
		is.Equal(it.ErrorKind, "outage")
	}
	is.Equal(lr.Iterations[2].Agent, "codex")
	is.Equal(lr.Switches[0].Reason, "outage")
	is.True(strings.Contains(res.Stderr, "retrying in 100ms (attempt 1/5)"))
	is.True(strings.Contains(res.Stderr, "claude:claude-sonnet-4-5 failed with an outage 2 times in a row"))
	r.NoLeftovers(dir)
}

// An authentication error stops at once, in Claude Code's words, with a
// hint: a fault to fix, not a reason to fall back.
func TestAuthErrorStopsDespiteTheFallback(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	r, dir, codex, _, res := claudeThenCodex(t, nil, nil, []claudeRun{{Status: 401}},
		tokenRun{Call: codexPatch("-", "+"), Final: "Fixed. <promise>COMPLETE</promise>"})
	lr := ParseLoopResult(t, res)
	is.Equal(res.ExitCode, 1)
	is.Equal(lr.StopReason, "agent_error")
	is.Equal(lr.TotalIterations, 1)
	is.Equal(codex.started(), 0) // not tried
	is.True(lr.StopHint != "")
	is.True(strings.Contains(res.Stderr, "stopped on agent_error: claude: "))
	is.True(strings.Contains(res.Stderr, "architect: hint: "+lr.StopHint))
	r.NoLeftovers(dir)
}

// `architect say` from a second process, while iteration 1's Claude Code
// runs, reaches iteration 2's prompt, in its own section.
func TestSayReachesClaudesNextPrompt(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	bin := agentbin.Path(t, "claude")
	r := NewRun(t)
	dir := Fixture(t, "failing-go-test")
	started, proceed := make(chan struct{}), make(chan struct{})
	var once sync.Once
	script := &claudeScript{runs: []claudeRun{
		{File: "calc.go", Content: wrongFix, Final: "I changed Add; it should work now."},
		{File: "calc.go", Content: rightFix, Final: "Add adds now. <promise>COMPLETE</promise>"},
	}}
	srv := stubmodel.Anthropic(t, func(n int, req stubmodel.Request) stubmodel.Turn {
		if n == 0 {
			once.Do(func() { close(started) })
			<-proceed // iteration 1 is running while the person speaks
		}
		return script.respond(n, req)
	})
	t.Cleanup(func() {
		select {
		case <-proceed:
		default:
			close(proceed)
		}
	})
	r.Env = append(r.Env, claudeStubEnv(r, srv)...)
	run := r.Start(dir, 5*time.Minute, "loop", "make go test pass", "--agent", "claude", "--agent-bin", bin,
		"--model", "claude-sonnet-4-5", "--check", "go test ./...", "--max-iterations", "4", "--json", "-C", dir)
	select {
	case <-started:
	case <-time.After(2 * time.Minute):
		t.Fatal("iteration 1 did not start")
	}
	said := r.Architect(t.TempDir(), time.Minute, "say", "-C", dir, "Add must add: look at the operator, not the test")
	is.Equal(said.ExitCode, 0)
	is.True(strings.Contains(said.Stdout, "the next iteration's prompt carries it"))
	close(proceed)
	res := run.Wait()
	lr := ParseLoopResult(t, res)
	if !lr.Success {
		t.Fatalf("no success: %s\n%s", lr.StopReason, res.Stderr)
	}
	is.Equal(lr.TotalIterations, 2)
	starts := script.runStarts(srv)
	is.Equal(len(starts), 2)
	is.True(!strings.Contains(string(starts[0].Body), "look at the operator"))
	is.True(strings.Contains(string(starts[1].Body), "Notes from the Person Running This Loop"))
	is.True(strings.Contains(string(starts[1].Body), "Add must add: look at the operator, not the test"))
	is.Equal(lr.Iterations[1].Notes, []string{"Add must add: look at the operator, not the test"})
	r.NoLeftovers(dir)
}
