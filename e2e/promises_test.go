//go:build unix

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/internal/stubmodel"
)

// The promises of issue 12 that need a real agent CLI: errors classified
// as what they are, with the real Claude Code against the stub model.

// An API outage (HTTP 500 on every request) is a run of failed agent runs,
// not idleness: the loop ends on the circuit breaker, with the last error
// in stop_detail. (Before, iterations that changed nothing because the API
// was down counted as idle, and the run ended as "idle".)
func TestClaudeOutageEndsOnTheCircuitBreaker(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	r, dir, _, _, res := claudeLoopWith(t, nil,
		[]string{"--max-iterations", "8", "--max-consecutive-errors", "3", "--idle-threshold", "2", "--backoff-cap", "0.1s"},
		nil, claudeRun{Status: 500})
	lr := ParseLoopResult(t, res)
	is.Equal(res.ExitCode, 1)
	is.Equal(lr.StopReason, "circuit_breaker")
	is.Equal(lr.TotalIterations, 3)
	is.True(strings.Contains(lr.StopDetail, "3 agent runs failed in a row"))
	is.True(strings.Contains(lr.StopDetail, "500")) // the last error
	for _, it := range lr.Iterations {
		is.Equal(it.ErrorKind, "outage")
	}
	r.NoLeftovers(dir)
}

// Claude Code retries a failing request on its own (api_retry events):
// each retry is shown as the agent's activity, so a run stuck retrying is
// seen to be.
func TestClaudeRetriesAreActivity(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	r, dir, _, _, res := claudeLoopWith(t, []string{"CLAUDE_CODE_MAX_RETRIES=3"}, nil,
		func(n int, _ stubmodel.Request) *stubmodel.Turn {
			if n < 2 {
				return &stubmodel.Turn{Status: 529} // overloaded: Claude Code retries it
			}
			return nil
		},
		claudeRun{File: "calc.go", Content: rightFix, Final: "Fixed. <promise>COMPLETE</promise>"})
	lr := ParseLoopResult(t, res)
	if !lr.Success {
		t.Fatalf("no success: %s\n%s", lr.StopReason, res.Stderr)
	}
	data, err := os.ReadFile(filepath.Join(dir, ".architect", "events.jsonl"))
	is.NoErr(err)
	var retries []string
	for _, line := range strings.Split(string(data), "\n") {
		var ev struct{ Type, Text string }
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == "agent_activity" && strings.Contains(ev.Text, "retrying") {
			retries = append(retries, ev.Text)
		}
	}
	if len(retries) == 0 {
		t.Fatalf("no retry in the activity; events:\n%s", data)
	}
	is.True(strings.Contains(retries[len(retries)-1], "API error 529 (overloaded)"))
	r.NoLeftovers(dir)
}

// A rate limit (HTTP 429) is a usage limit for Claude as for every agent:
// waited out, not retried at once, and the waits are bounded: with
// --max-usage-wait 30s the 60 s wait is refused at once.
func TestClaudeRateLimitIsAUsageLimit(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	r, dir, _, script, res := claudeLoopWith(t, nil, []string{"--max-usage-wait", "30s"}, nil, claudeRun{Status: 429})
	lr := ParseLoopResult(t, res)
	is.Equal(res.ExitCode, 1)
	is.Equal(lr.StopReason, "usage_limit")
	is.True(strings.Contains(lr.StopDetail, "max_usage_wait (30s"))
	is.Equal(lr.TotalIterations, 0) // refused before any work: no iteration
	script.mu.Lock()
	is.Equal(script.next, 1) // not run again at once
	script.mu.Unlock()
	r.NoLeftovers(dir)
}
