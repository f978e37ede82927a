package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/proc"
)

// commandRequest is a request for the command agent in a fresh workspace,
// its result file in a private folder as the loop's is.
func commandRequest(t *testing.T) Request {
	t.Helper()
	dir := t.TempDir()
	state := filepath.Join(dir, ".architect")
	if err := os.Mkdir(state, 0o700); err != nil {
		t.Fatal(err)
	}
	return Request{
		Prompt:        "## Task\n\nfix it\n\nprint `<promise>COMPLETE</promise>` in your final message\n",
		PromptFile:    filepath.Join(state, "prompt.md"),
		ResultFile:    filepath.Join(state, "agent-result.json"),
		Dir:           dir,
		Iteration:     1,
		MaxIterations: 3,
		Timeout:       time.Minute,
		CompletionTag: "COMPLETE",
	}
}

func runCommand(t *testing.T, script string, req Request) Outcome {
	t.Helper()
	a, err := New(Config{Name: "command", Cmd: script})
	if err != nil {
		t.Fatal(err)
	}
	return a.Run(context.Background(), req)
}

// The tag and the done pattern are found anywhere in what a command agent
// printed on stdout, not only in the end that is kept to show; stderr is
// not searched, and a copy of the prompt's instruction does not count.
func TestCommandSearchesAllOfStdout(t *testing.T) {
	is := is.New(t)
	flood := `i=0; while [ $i -lt 2000 ]; do echo "line $i of the build log, nothing to see"; i=$((i+1)); done`
	req := commandRequest(t)
	req.DonePattern = `All (tasks|work) complete`
	o := runCommand(t, `echo 'All work complete. <promise>COMPLETE</promise>'; `+flood, req)
	is.Equal(o.ErrKind, ErrNone)
	is.True(o.Searched != nil)
	is.True(o.Searched.Tag)     // 80 KB before the end
	is.True(o.Searched.Pattern) // likewise
	is.True(len(o.FinalMessage) <= finalTail)
	is.True(!strings.Contains(o.FinalMessage, "COMPLETE")) // not in the end kept

	o = runCommand(t, `echo '<promise>COMPLETE</promise> All work complete' >&2; `+flood, req)
	is.True(!o.Searched.Tag && !o.Searched.Pattern) // stderr is not the final message

	o = runCommand(t, `echo 'print <promise>COMPLETE</promise> in your final message'; `+flood, req)
	is.True(!o.Searched.Tag) // a copy of the prompt's line
}

// A final_message in the result file is the agent's own word for its final
// message: the loop searches it, not stdout.
func TestCommandResultFileFinalMessage(t *testing.T) {
	is := is.New(t)
	req := commandRequest(t)
	o := runCommand(t, `echo '<promise>COMPLETE</promise>'; printf '{"final_message": "not yet", "cost_usd": 0.25, "steps": 4}' > "$ARCHITECT_RESULT_FILE"`, req)
	is.Equal(o.Searched, (*Searched)(nil))
	is.Equal(o.FinalMessage, "not yet")
	is.True(o.CostKnown)
	is.Equal(o.Cost, 0.25)
	is.Equal(o.Steps, 4)
	_, err := os.Stat(req.ResultFile)
	is.NoErr(err) // left for the caller, who removes it once the cost is kept
	o = runCommand(t, `true`, req)
	is.Equal(o.FinalMessage, "") // a new run starts without the last one's file
}

// The result file is made by architect, private, before the agent starts:
// what the agent writes into it stays readable by the owner only.
func TestCommandResultFilePrivate(t *testing.T) {
	is := is.New(t)
	req := commandRequest(t)
	o := runCommand(t, `stat -c %a "$ARCHITECT_RESULT_FILE"; echo '{"cost_usd": 1}' > "$ARCHITECT_RESULT_FILE"; stat -c %a "$ARCHITECT_RESULT_FILE"`, req)
	is.Equal(strings.Fields(o.FinalMessage), []string{"600", "600"})
	is.Equal(o.Cost, 1.0)
}

// The cost a command agent writes to its result file while it runs is
// reported as it appears, so that a run stopped before it ends keeps it.
func TestCommandReportsSpendingWhileRunning(t *testing.T) {
	is := is.New(t)
	req := commandRequest(t)
	var mu sync.Mutex
	var spent []Spend
	seen := make(chan struct{})
	req.OnSpend = func(s Spend) {
		mu.Lock()
		defer mu.Unlock()
		spent = append(spent, s)
		if len(spent) == 2 {
			close(seen)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-seen
		cancel()
	}()
	a, _ := New(Config{Name: "command", Cmd: `printf '{"cost_usd": 0.5}' > "$ARCHITECT_RESULT_FILE"; sleep 1; printf '{"cost_usd": 1.5}' > "$ARCHITECT_RESULT_FILE"; exec sleep 60`})
	o := a.Run(ctx, req)
	is.True(o.Canceled)
	is.True(o.CostKnown)
	is.Equal(o.Cost, 1.5) // read after the run was stopped
	mu.Lock()
	defer mu.Unlock()
	is.Equal(spent, []Spend{{Cost: 0.5, CostKnown: true}, {Cost: 1.5, CostKnown: true}})
}

// Exit status 126 (found but not executable) and 127 (not found) are
// fatal: retrying cannot help.
func TestCommandCannotRunIsFatal(t *testing.T) {
	req := commandRequest(t)
	notExec := filepath.Join(req.Dir, "agent.sh")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\necho hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		script string
		exit   int
	}{{notExec, 126}, {"no-such-agent-command-xyz", 127}} {
		is := is.New(t)
		o := runCommand(t, tt.script, req)
		is.Equal(o.ExitCode, tt.exit)
		is.Equal(o.ErrKind, ErrFatal)
		is.True(strings.Contains(o.Hint, "--agent-cmd"))
	}
}

// Claude Code streams each answer's usage before its result line: the
// spending is reported as it comes, priced at the model's price, then as
// Claude Code's own figure.
func TestClaudeReportsSpendingWhileRunning(t *testing.T) {
	is := is.New(t)
	var spent []Spend
	s := &claudeStream{onSpend: func(x Spend) { spent = append(spent, x) }, prices: Prices{}}
	w := proc.NewLineWriter(claudeMaxLine, s.line)
	_, _ = w.Write(testdata(t, "claude", "success.jsonl"))
	w.Flush()
	is.True(len(spent) >= 2)
	last := spent[len(spent)-1]
	is.True(last.CostKnown)
	is.Equal(last.Cost, 0.002305) // the result line's own figure
	first := spent[0]
	is.Equal(first.Usage, Usage{Input: 100, CachedInput: 50, Output: 1})
	is.True(first.CostKnown)
	// claude-opus-4-8: $5 in, $0.50 cached, $25 out per million: 100 × 5 =
	// 500; 50 × 0.5 = 25; 1 × 25 = 25; 550 per million = $0.00055.
	is.True(near(first.Cost, 0.00055))
}

// Claude Code's api_retry events are shown as activity: a run that keeps
// retrying is seen to.
func TestClaudeRetryIsActivity(t *testing.T) {
	is := is.New(t)
	var acts []string
	s := &claudeStream{onActivity: func(m string) { acts = append(acts, m) }}
	s.line([]byte(`{"type":"system","subtype":"api_retry","attempt":2,"max_retries":10,"retry_delay_ms":1250,"error_status":401,"error":"authentication_failed","session_id":"x"}`))
	s.line([]byte(`{"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,"retry_delay_ms":600,"error_status":null,"error":"unknown"}`))
	is.Equal(acts, []string{
		"API error 401 (authentication_failed), retrying in 1.3s (attempt 2/10)",
		"API error (unknown), retrying in 600ms (attempt 1/10)",
	})
}

// A command agent says why it failed in its result file, and is treated
// as the CLI agents are: a usage limit with its reset time, an outage, a
// fatal error with its hint; an unknown kind is a plain failure.
func TestCommandReportsItsError(t *testing.T) {
	is := is.New(t)
	write := func(json string) string { return `printf '%s' '` + json + `' > "$ARCHITECT_RESULT_FILE"; exit 1` }

	before := time.Now()
	o := runCommand(t, write(`{"error":"429 from the API","error_kind":"usage_limit","retry_after_seconds":3,"cost_usd":0}`), commandRequest(t))
	is.Equal(o.ErrKind, ErrUsageLimit)
	is.Equal(o.Err, "429 from the API")
	is.True(!o.ResetAt.Before(before.Add(3*time.Second)) && o.ResetAt.Before(time.Now().Add(3*time.Second+time.Millisecond)))

	o = runCommand(t, write(`{"error_kind":"usage_limit","reset_at":"2030-01-02T03:04:05Z"}`), commandRequest(t))
	is.Equal(o.ErrKind, ErrUsageLimit)
	is.Equal(o.ResetAt, time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC))

	o = runCommand(t, write(`{"error":"503 Service Unavailable","error_kind":"outage"}`), commandRequest(t))
	is.Equal(o.ErrKind, ErrOutage)

	o = runCommand(t, write(`{"error":"invalid key","error_kind":"fatal","hint":"set MY_KEY"}`), commandRequest(t))
	is.Equal(o.ErrKind, ErrFatal)
	is.Equal(o.Hint, "set MY_KEY")

	o = runCommand(t, write(`{"error":"odd","error_kind":"weird"}`), commandRequest(t))
	is.Equal(o.ErrKind, ErrTransient)
	is.True(strings.Contains(o.Err, `"weird"`))
}
