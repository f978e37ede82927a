//go:build unix

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/internal/agentbin"
	"github.com/architect-dev/architect/internal/stubmodel"
)

// geminiToolOutputs counts the function responses in a
// streamGenerateContent request.
func geminiToolOutputs(body []byte) int {
	var req struct {
		Contents []struct {
			Parts []map[string]json.RawMessage `json:"parts"`
		} `json:"contents"`
	}
	if json.Unmarshal(body, &req) != nil {
		return 0
	}
	n := 0
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if _, ok := p["functionResponse"]; ok {
				n++
			}
		}
	}
	return n
}

// geminiWrite is a write_file call giving calc.go, in dir, Add with op.
func geminiWrite(dir, op string) stubmodel.ToolCall {
	return stubmodel.ToolCall{Name: "write_file", Args: map[string]any{"file_path": filepath.Join(dir, "calc.go"), "content": calcSource(op)}}
}

// geminiLoop runs `architect loop --agent gemini` on a fresh
// failing-go-test fixture against a stub scripted by runs(dir), with the
// built-in price of gemini-2.5-pro.
func geminiLoop(t *testing.T, extra []string, runs func(dir string) []tokenRun) (r *Run, dir string, srv *stubmodel.Server, script *tokenScript, res Result) {
	t.Helper()
	return geminiLoopWith(t, extra, nil, runs)
}

// geminiLoopWith is geminiLoop with the stub's responder wrapped by wrap
// (nil: not).
func geminiLoopWith(t *testing.T, extra []string, wrap func(stubmodel.Responder) stubmodel.Responder, runs func(dir string) []tokenRun) (r *Run, dir string, srv *stubmodel.Server, script *tokenScript, res Result) {
	t.Helper()
	bin := agentbin.Path(t, "gemini")
	r = NewRun(t)
	dir = Fixture(t, "failing-go-test")
	script = &tokenScript{runs: runs(dir), toolOutputs: geminiToolOutputs}
	respond := stubmodel.Responder(script.respond)
	if wrap != nil {
		respond = wrap(respond)
	}
	srv = stubmodel.Gemini(t, respond)
	if err := os.MkdirAll(filepath.Join(r.Home, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.Home, ".gemini", "settings.json"), []byte(stubmodel.GeminiSettings()), 0o644); err != nil {
		t.Fatal(err)
	}
	r.Env = append(r.Env, "GOOGLE_GEMINI_BASE_URL="+srv.URL, "GEMINI_API_KEY=stub-key")
	args := append([]string{"loop", "make go test pass",
		"--agent", "gemini", "--agent-bin", bin, "--model", "gemini-2.5-pro",
		"--check", "go test ./...", "--max-iterations", "4", "--backoff-cap", "1s",
		"--json", "-C", dir}, extra...)
	res = r.Architect(dir, 5*time.Minute, args...)
	return r, dir, srv, script, res
}

func TestGeminiLoopFixesFailingTest(t *testing.T) {
	t.Parallel()
	r, dir, srv, script, res := geminiLoop(t, nil, func(dir string) []tokenRun {
		return []tokenRun{
			{Call: geminiWrite(dir, "*"), Final: "I changed Add; it should work now (key stub-key)."},
			{Call: geminiWrite(dir, "+"), Final: "Add adds now. <promise>COMPLETE</promise>"},
		}
	})
	lr := fixedInTwo(t, res, dir, calcSource("+"), 1, script.runStarts(srv)) // one write per run
	transcriptsKept(t, r, dir, "[tool call write_file]", "stub-key")

	// Costs: tokens × the built-in price of gemini-2.5-pro ($1.25 input,
	// $0.125 cached input, $10 output per million), and they add up.
	want := (tokenRunInput*1.25 + tokenRunCached*0.125 + tokenRunOutput*10) / 1e6
	tokenCosts(t, lr, want)

	r.NoLeftovers(dir)
}

func TestGeminiLoopServerErrorIsRecordedAndLoopGoesOn(t *testing.T) {
	t.Parallel()
	r, dir, _, _, res := geminiLoop(t, nil, func(dir string) []tokenRun {
		return []tokenRun{
			{Status: 500},
			{Call: geminiWrite(dir, "+"), Final: "Fixed. <promise>COMPLETE</promise>"},
		}
	})
	recoveredFromTransient(t, res, dir, "500", calcSource("+"))
	r.NoLeftovers(dir)
}

func TestGeminiLoopAuthErrorStops(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	r, dir, _, script, res := geminiLoop(t, nil, func(string) []tokenRun { return []tokenRun{{Status: 401}} })
	stoppedOnFatal(t, res, "UNAUTHENTICATED")
	is.Equal(script.started(), 1) // no second run
	r.NoLeftovers(dir)
}

func TestGeminiLoopUsageLimit(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	start := time.Now()
	r, dir, _, script, res := geminiLoop(t, []string{"--on-usage-limit", "stop"}, func(string) []tokenRun {
		return []tokenRun{{Status: 429, ErrorBody: stubmodel.GeminiQuotaBody("GenerateRequestsPerMinutePerProjectPerModel-FreeTier", "3600s")}}
	})
	lr := ParseLoopResult(t, res)
	is.True(!lr.Success)
	is.Equal(lr.StopReason, "usage_limit")
	is.True(strings.Contains(lr.StopDetail, "quota")) // the CLI's message
	i := strings.Index(lr.StopDetail, "(resets ")
	is.True(i >= 0) // the reset time, read from "Suggested retry after 3600s"
	reset, err := time.Parse(time.RFC3339, strings.TrimSuffix(lr.StopDetail[i+len("(resets "):], ")"))
	is.NoErr(err)
	is.True(reset.After(start.Add(59*time.Minute)) && reset.Before(time.Now().Add(61*time.Minute)))
	is.Equal(lr.TotalIterations, 0) // a usage limit is not an iteration
	is.Equal(script.started(), 1)
	r.NoLeftovers(dir)
}
