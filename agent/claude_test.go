package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/internal/agentbin"
	"github.com/architect-dev/architect/internal/stubmodel"
	"github.com/architect-dev/architect/proc"
	"github.com/architect-dev/architect/prompt"
)

func TestClaudeCommandLine(t *testing.T) {
	is := is.New(t)
	is.Equal(claudeArgs("", nil), []string{"-p", "--output-format", "stream-json", "--verbose", "--dangerously-skip-permissions"})
	is.Equal(claudeArgs("sonnet", []string{"--append-system-prompt", "be brief"}),
		[]string{"-p", "--output-format", "stream-json", "--verbose", "--dangerously-skip-permissions",
			"--model", "sonnet", "--append-system-prompt", "be brief"})
}

// replayClaude feeds a captured output to the parser as proc would, and returns
// the Outcome and the activity lines.
func replayClaude(t *testing.T, stdout []byte, res proc.Result, stderr string, now time.Time) (Outcome, []string) {
	t.Helper()
	var acts []string
	s := &claudeStream{dir: "/tmp/TestExploreClaude3856457629/001", onActivity: func(m string) { acts = append(acts, m) }}
	w := proc.NewLineWriter(claudeMaxLine, s.line)
	_, _ = w.Write(stdout)
	w.Flush()
	a := &claude{cliAdapter{now: func() time.Time { return now }}}
	return a.outcome(res, s, stderr), acts
}

func claudeTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "claude", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestClaudeCapturedOutput replays output captured from Claude Code 2.1.197
// run against the stub model server (see the real-CLI tests below).
func TestClaudeCapturedOutput(t *testing.T) {
	now := time.Date(2026, 11, 22, 7, 40, 0, 0, time.UTC)
	tests := []struct {
		file   string
		stderr string
		exit   int
		want
	}{
		{file: "success.jsonl",
			want: want{final: "Done. <promise>COMPLETE</promise>", steps: 2, usage: Usage{Input: 300, CachedInput: 110, Output: 30}, cost: 0.002305, costKnown: true}},
		{file: "tool-output-mentions-limits.jsonl",
			want: want{final: "The tests print scary text but pass.", steps: 2, usage: Usage{Input: 300, CachedInput: 100, Output: 30}, cost: 0.0023, costKnown: true}},
		{file: "error-500.jsonl", exit: 1,
			want: want{kind: ErrOutage, steps: 1, costKnown: true, err: "API Error: 500"}},
		{file: "error-529-overloaded.jsonl", exit: 1,
			want: want{kind: ErrOutage, steps: 1, costKnown: true, err: "529 Overloaded"}},
		{file: "error-429-api-key.jsonl", exit: 1,
			want: want{kind: ErrUsageLimit, steps: 1, costKnown: true, err: "rate limit"}},
		{file: "error-connection-refused.jsonl", exit: 1,
			want: want{kind: ErrOutage, steps: 1, costKnown: true, err: "Unable to connect"}},
		{file: "error-401.jsonl", exit: 1,
			want: want{kind: ErrFatal, steps: 1, costKnown: true, err: "Invalid API key", hint: "ANTHROPIC_API_KEY"}},
		{file: "error-403.jsonl", exit: 1,
			want: want{kind: ErrFatal, steps: 1, costKnown: true, err: "403", hint: "permission"}},
		{file: "error-404-model.jsonl", exit: 1,
			want: want{kind: ErrFatal, steps: 1, costKnown: true, err: "claude-nope", hint: "--model"}},
		{file: "error-not-logged-in.jsonl", exit: 1,
			want: want{kind: ErrFatal, steps: 1, costKnown: true, err: "Not logged in", hint: "/login"}},
		{file: "usage-limit.jsonl", exit: 1,
			want: want{kind: ErrUsageLimit, steps: 1, costKnown: true, err: "hit your session limit", resetAt: time.Unix(1795338261, 0)}},
		// The rate_limit_event's resetsAt (to the second) wins over the
		// text's "resets 6:19am (UTC)" (to the minute).
		{file: "usage-limit-soon.jsonl", exit: 1,
			want: want{kind: ErrUsageLimit, steps: 1, costKnown: true, err: "resets 6:19am (UTC)", resetAt: time.Unix(1795501162, 0)}},
		{file: "error-billing.jsonl", exit: 1,
			want: want{kind: ErrFatal, steps: 1, costKnown: true, err: "Credit balance is too low", hint: "no credit left"}},
		{file: "root-refusal.stdout", stderr: string(claudeTestdata(t, "root-refusal.stderr")), exit: 1,
			want: want{kind: ErrFatal, costKnown: true, err: "root/sudo", hint: "IS_SANDBOX=1"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			is := is.New(t)
			o, _ := replayClaude(t, claudeTestdata(t, tt.file), proc.Result{ExitCode: tt.exit}, tt.stderr, now)
			tt.want.check(is, o)
			is.Equal(o.ResetWithin, time.Duration(0)) // resetsAt is exact
		})
	}
}

func TestClaudeActivity(t *testing.T) {
	is := is.New(t)
	_, acts := replayClaude(t, claudeTestdata(t, "success.jsonl"), proc.Result{}, "", time.Now())
	is.Equal(acts, []string{
		"session started, model claude-opus-4-8[1m]",
		"Write hello.txt",
		"Done. <promise>COMPLETE</promise>",
		"done after 2 turns, $0.0023",
	})
	_, acts = replayClaude(t, claudeTestdata(t, "usage-limit.jsonl"), proc.Result{ExitCode: 1}, "", time.Now())
	is.True(slices.ContainsFunc(acts, func(s string) bool { return strings.HasPrefix(s, "usage limit reached (five_hour), resets 2026-11-2") }))
	is.True(slices.Contains(acts, "error: You've hit your session limit · resets 9:04am (UTC)"))
	_, acts = replayClaude(t, claudeTestdata(t, "tool-output-mentions-limits.jsonl"), proc.Result{}, "", time.Now())
	is.Equal(acts[2], `Bash echo "You've hit your limit · resets 5pm (Europe/Paris)"; echo 'API Error: 429 rate limit exceeded'; echo '{"type":"rat…`)
}

func TestClaudeParseLimit(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatalf("no time zone data: %v", err)
	}
	bogota, err := time.LoadLocation("America/Bogota")
	if err != nil {
		t.Fatalf("no time zone data: %v", err)
	}
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, paris)
	tests := []struct {
		text    string
		limited bool
		reset   time.Time
	}{
		{"You've hit your limit · resets 5pm (Europe/Paris)", true, time.Date(2026, 11, 22, 17, 0, 0, 0, paris)},
		{"You've hit your limit · resets 9am (Europe/Paris)", true, time.Date(2026, 11, 23, 9, 0, 0, 0, paris)},
		{"You've hit your session limit · resets 9:04am (UTC)", true, time.Date(2026, 11, 22, 9, 4, 0, 0, time.UTC)},
		{"You've hit your session limit · resets 8:59am (UTC)", true, time.Date(2026, 11, 23, 8, 59, 0, 0, time.UTC)},
		{"You've hit your weekly limit · resets Nov 28, 5pm (UTC)", true, time.Date(2026, 11, 28, 17, 0, 0, 0, time.UTC)},
		{"You've hit your Opus limit · resets Jan 3, 2027, 5:30pm (Europe/Paris) · /upgrade", true, time.Date(2027, 1, 3, 17, 30, 0, 0, paris)},
		{"You’ve hit your limit · resets 5pm (Mars/Olympus_Mons)", true, time.Time{}},
		{"You've hit your limit", true, time.Time{}},
		{"You've reached your Fable 5 limit.", true, time.Time{}},
		// Older wordings.
		{"Claude usage limit reached. Your limit will reset at 3pm (America/Bogota).", true, time.Date(2026, 11, 22, 15, 0, 0, 0, bogota)},
		{"Claude AI usage limit reached|1750708800", true, time.Unix(1750708800, 0)},
		{"API Error: Request rejected (429) · This request would exceed your account's rate limit.", false, time.Time{}},
		{"Done: fixed the rate limit test", false, time.Time{}},
	}
	for _, tt := range tests {
		is := is.NewRelaxed(t)
		limited, reset := claudeParseLimit(tt.text, now)
		is.Equal(limited, tt.limited) // limited?
		if !reset.At.Equal(tt.reset) {
			t.Errorf("%q: reset %v, want %v", tt.text, reset.At, tt.reset)
		}
		// A clock time is known to the minute; a Unix time exactly.
		want := time.Duration(0)
		if !tt.reset.IsZero() && !strings.Contains(tt.text, "|") {
			want = time.Minute
		}
		if reset.Within != want {
			t.Errorf("%q: within %v, want %v", tt.text, reset.Within, want)
		}
	}
}

// claudeJSONLine marshals one stream-json line.
func claudeJSONLine(t *testing.T, v map[string]any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

func TestClaudeSyntheticStreams(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatalf("no time zone data: %v", err)
	}
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, paris)
	text := func(id, s string) string {
		return claudeJSONLine(t, map[string]any{"type": "assistant", "parent_tool_use_id": nil, "message": map[string]any{
			"id": id, "model": "claude-sonnet-4-5", "content": []any{map[string]any{"type": "text", "text": s}},
			"usage": map[string]any{"input_tokens": 10, "cache_read_input_tokens": 5, "cache_creation_input_tokens": 2, "output_tokens": 1}}})
	}
	limitMsg := claudeJSONLine(t, map[string]any{"type": "assistant", "error": "rate_limit", "message": map[string]any{
		"id": "x", "model": "<synthetic>", "content": []any{map[string]any{"type": "text", "text": "You've hit your limit · resets 5pm (Europe/Paris)"}}}})
	errResult := func(s string) string {
		return claudeJSONLine(t, map[string]any{"type": "result", "subtype": "success", "is_error": true, "api_error_status": 429,
			"num_turns": 1, "result": s, "total_cost_usd": 0})
	}
	rejected := func(resetsAt int64) string {
		info := map[string]any{"status": "rejected", "rateLimitType": "five_hour"}
		if resetsAt != 0 {
			info["resetsAt"] = resetsAt
		}
		return claudeJSONLine(t, map[string]any{"type": "rate_limit_event", "rate_limit_info": info})
	}
	paris5pm := time.Date(2026, 11, 22, 17, 0, 0, 0, paris)

	t.Run("limit from the text when the event has no time", func(t *testing.T) {
		is := is.New(t)
		o, _ := replayClaude(t, []byte(rejected(0)+limitMsg+errResult("You've hit your limit · resets 5pm (Europe/Paris)")), proc.Result{ExitCode: 1}, "", now)
		is.Equal(o.ErrKind, ErrUsageLimit)
		is.True(o.ResetAt.Equal(paris5pm))
	})
	t.Run("limit from the text alone", func(t *testing.T) {
		is := is.New(t)
		o, _ := replayClaude(t, []byte(limitMsg+errResult("You've hit your limit · resets 5pm (Europe/Paris)")), proc.Result{ExitCode: 1}, "", now)
		is.Equal(o.ErrKind, ErrUsageLimit)
		is.True(o.ResetAt.Equal(paris5pm))
	})
	t.Run("the event's time wins", func(t *testing.T) {
		is := is.New(t)
		o, _ := replayClaude(t, []byte(rejected(1795338261)+limitMsg+errResult("You've hit your limit · resets 5pm (Europe/Paris)")), proc.Result{ExitCode: 1}, "", now)
		is.Equal(o.ErrKind, ErrUsageLimit)
		is.True(o.ResetAt.Equal(time.Unix(1795338261, 0)))
	})
	t.Run("a rejection the run got past is no error", func(t *testing.T) {
		is := is.New(t)
		ok := claudeJSONLine(t, map[string]any{"type": "result", "subtype": "success", "is_error": false, "num_turns": 1, "result": "fine", "total_cost_usd": 0.5})
		o, _ := replayClaude(t, []byte(rejected(1795338261)+text("m1", "fine")+ok), proc.Result{}, "", now)
		is.Equal(o.ErrKind, ErrNone)
		is.Equal(o.FinalMessage, "fine")
	})
	t.Run("the agent's own words are not an error", func(t *testing.T) {
		is := is.New(t)
		s := "You've hit your limit · resets 5pm (Europe/Paris) was in the test output; fixed"
		ok := claudeJSONLine(t, map[string]any{"type": "result", "subtype": "success", "is_error": false, "num_turns": 1, "result": s, "total_cost_usd": 0.5})
		o, _ := replayClaude(t, []byte(text("m1", s)+ok), proc.Result{}, "", now)
		is.Equal(o.ErrKind, ErrNone)
		is.Equal(o.FinalMessage, s)
	})
	t.Run("crash without a result", func(t *testing.T) {
		is := is.New(t)
		o, _ := replayClaude(t, []byte(text("m1", "a")+text("m1", "b")+text("m2", "c")), proc.Result{ExitCode: -1, Signalled: "SIGSEGV"}, "panic: boom\n", now)
		is.Equal(o.ErrKind, ErrTransient)
		is.True(strings.Contains(o.Err, "panic: boom"))
		is.Equal(o.FinalMessage, "")
		is.Equal(o.Steps, 2)
		is.Equal(o.Usage, Usage{Input: 24, CachedInput: 10, Output: 2}) // counted once per message
		is.True(o.CostKnown)                                            // from the price table
		// claude-sonnet-4-5: 24 in × $3 = 72; 10 cached × $0.30 = 3; 2 out × $15
		// = 30; 105 per million = $0.000105.
		is.True(math.Abs(o.Cost-0.000105) < 1e-12)
	})
	t.Run("crash without a result, model without a price", func(t *testing.T) {
		is := is.New(t)
		msg := claudeJSONLine(t, map[string]any{"type": "assistant", "message": map[string]any{"id": "m1", "model": "no-such-model",
			"content": []any{map[string]any{"type": "text", "text": "hm"}}, "usage": map[string]any{"input_tokens": 10}}})
		o, _ := replayClaude(t, []byte(msg), proc.Result{ExitCode: 1}, "", now)
		is.Equal(o.ErrKind, ErrTransient)
		is.Equal(o.Err, "claude exited with status 1 without a result")
		is.True(!o.CostKnown)
	})
	t.Run("max turns", func(t *testing.T) {
		is := is.New(t)
		r := claudeJSONLine(t, map[string]any{"type": "result", "subtype": "error_max_turns", "is_error": true, "num_turns": 3, "total_cost_usd": 0.1,
			"usage": map[string]any{"input_tokens": 1, "output_tokens": 1}})
		o, _ := replayClaude(t, []byte(text("m1", "working")+r), proc.Result{ExitCode: 1}, "", now)
		is.Equal(o.ErrKind, ErrTransient)
		is.Equal(o.Err, "claude: run ended with error_max_turns")
		is.Equal(o.Steps, 3)
		is.True(o.CostKnown)
	})
	t.Run("timeout", func(t *testing.T) {
		is := is.New(t)
		o, _ := replayClaude(t, []byte(text("m1", "working")), proc.Result{ExitCode: -1, TimedOut: true, Duration: time.Minute}, "", now)
		is.Equal(o.ErrKind, ErrTransient)
		is.True(o.TimedOut)
		is.Equal(o.Steps, 1)
	})
}

// A result line longer than the line limit is cut: what came before the
// cut is read, and the final message falls back to the last text.
func TestClaudeTruncatedResult(t *testing.T) {
	is := is.New(t)
	long := strings.Repeat("x", 2000) + " <promise>COMPLETE</promise>"
	out := claudeJSONLine(t, map[string]any{"type": "assistant", "message": map[string]any{"id": "m1", "model": "m",
		"content": []any{map[string]any{"type": "text", "text": long}}}})
	out += `{"type":"result","subtype":"success","is_error":false,"num_turns":4,"result":"` + long + `","total_cost_usd":0.25}` + "\n"
	s := &claudeStream{}
	w := proc.NewLineWriter(len(out)/2, s.line) // the assistant line fits, the result line does not
	_, _ = w.Write([]byte(out))
	w.Flush()
	o := (&claude{cliAdapter{now: time.Now}}).outcome(proc.Result{}, s, "")
	is.Equal(o.ErrKind, ErrNone)
	is.Equal(o.FinalMessage, long)
	is.Equal(o.Steps, 4)
}

// TestClaudeLongResult: a result line longer than the line limit still
// gives the cost, the usage and the end of the final message (where the
// completion tag is), from the line's tail; whatever characters the text
// holds and wherever the tail starts.
func TestClaudeLongResult(t *testing.T) {
	is := is.New(t)
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b", " ", "\n", "\"", "\\", "\\x", "é", "😀", "\u00e9", "\t", "<", ">", "&", "\x01"}
	for round := range 200 {
		var text strings.Builder
		for range 3000 + rng.IntN(3000) {
			text.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		text.WriteString(" <promise>COMPLETE</promise>")
		quoted, err := json.Marshal(text.String())
		is.NoErr(err)
		// Claude Code's order: the kind of result first, the figures last.
		line := `{"type":"result","subtype":"success","is_error":false,"num_turns":3,"result":` + string(quoted) +
			`,"stop_reason":"end_turn","session_id":"s","total_cost_usd":0.5,` +
			`"usage":{"input_tokens":100,"cache_read_input_tokens":10,"output_tokens":20000},"uuid":"u"}` + "\n"
		s := &claudeStream{}
		w := proc.NewLineWriter(1000, s.line) // the head: the line's first 1000 bytes
		w.KeepTail(1500+rng.IntN(500), s.longLine)
		for p := []byte(line); len(p) > 0; {
			n := min(len(p), 1+rng.IntN(700))
			_, _ = w.Write(p[:n])
			p = p[n:]
		}
		w.Flush()
		o := (&claude{cliAdapter{now: time.Now}}).outcome(proc.Result{}, s, "")
		is.Equal(o.ErrKind, ErrNone)
		is.True(o.CostKnown)
		is.Equal(o.Cost, 0.5)
		is.Equal(o.Usage, Usage{Input: 100, CachedInput: 10, Output: 20000})
		is.Equal(o.Steps, 3)
		if !strings.HasSuffix(text.String(), o.FinalMessage) || len(o.FinalMessage) < 200 {
			t.Fatalf("round %d: final message (%d bytes) %q… is not the end of the text", round, len(o.FinalMessage), o.FinalMessage[:min(80, len(o.FinalMessage))])
		}
		is.True(prompt.HasCompletion(o.FinalMessage, "COMPLETE", ""))
	}
}

func FuzzClaudeStream(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "claude", "*.jsonl"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, 0)
	}
	f.Add([]byte(`{"type":"result","result":7,"usage":[]}`+"\n"+`{"type":"assistant","message":{"content":"s"}}`), 1)
	f.Add([]byte(`{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":-99999999999999}}`), 1)
	f.Fuzz(func(t *testing.T, data []byte, exit int) {
		s := &claudeStream{dir: "/w", onActivity: func(string) {}}
		w := proc.NewLineWriter(256, s.line)
		w.KeepTail(300, s.longLine) // lines past 256 bytes take the long-line path
		_, _ = w.Write(data)
		w.Flush()
		o := (&claude{cliAdapter{now: time.Now}}).outcome(proc.Result{ExitCode: exit}, s, string(data))
		if o.ErrKind == ErrNone && exit != 0 {
			t.Fatalf("exit %d but no error", exit)
		}
		_, _ = claudeParseLimit(string(data), time.Now())
	})
}

// --- against the real CLI ---------------------------------------------

// claudeEnv is an environment that points Claude Code at the stub, with a
// fresh HOME and config dir and nothing of the developer's.
func claudeEnv(t *testing.T, url string, auth ...string) []string {
	t.Helper()
	home := t.TempDir()
	if len(auth) == 0 {
		auth = []string{"ANTHROPIC_API_KEY=sk-ant-stub"}
	}
	return append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"CLAUDE_CONFIG_DIR=" + filepath.Join(home, ".claude"),
		"TMPDIR=" + t.TempDir(),
		"ANTHROPIC_BASE_URL=" + url,
		"IS_SANDBOX=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_ERROR_REPORTING=1",
		"CLAUDE_CODE_MAX_RETRIES=0", // it retries a 529 for minutes, whatever x-should-retry says
	}, auth...)
}

func runClaude(t *testing.T, c Config, req Request) (Outcome, []string) {
	t.Helper()
	c.Name = "claude"
	a, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var acts []string
	req.OnActivity = func(s string) { mu.Lock(); acts = append(acts, s); mu.Unlock() }
	if req.Timeout == 0 {
		req.Timeout = 2 * time.Minute
	}
	req.Grace = 2 * time.Second
	o := a.Run(context.Background(), req)
	mu.Lock()
	defer mu.Unlock()
	return o, slices.Clone(acts)
}

func TestClaudeRealCLI(t *testing.T) {
	bin := agentbin.Path(t, "claude")
	t.Parallel()

	t.Run("writes a file and finishes", func(t *testing.T) {
		t.Parallel()
		is := is.New(t)
		dir := t.TempDir()
		srv := stubmodel.Anthropic(t, stubmodel.Sequence(
			stubmodel.Turn{Text: "Writing the file.", ToolCalls: []stubmodel.ToolCall{{Name: "Write",
				Args: map[string]any{"file_path": filepath.Join(dir, "hello.txt"), "content": "hello\n"}}},
				Usage: stubmodel.Usage{Input: 1000, CachedInput: 200, Output: 50}},
			stubmodel.Turn{Text: "Wrote hello.txt. <promise>COMPLETE</promise>", Usage: stubmodel.Usage{Input: 1100, CachedInput: 300, Output: 20}},
		))
		o, acts := runClaude(t, Config{Bin: bin, Model: "claude-sonnet-4-5"},
			Request{Prompt: "-- write hello.txt\n(a prompt that starts like a flag)", Dir: dir, Env: claudeEnv(t, srv.URL)})
		is.Equal(o.Err, "")
		is.Equal(o.ErrKind, ErrNone)
		is.Equal(o.ExitCode, 0)
		is.Equal(o.FinalMessage, "Wrote hello.txt. <promise>COMPLETE</promise>")
		is.Equal(o.Steps, 2)
		is.Equal(o.Usage, Usage{Input: 2100, CachedInput: 500, Output: 70})
		is.True(o.CostKnown)
		// claude-sonnet-4-5: $3 input, $0.30 cache read, $15 output per million.
		is.True(o.Cost > 0.0075-1e-9 && o.Cost < 0.0075+1e-9)
		b, err := os.ReadFile(filepath.Join(dir, "hello.txt"))
		is.NoErr(err)
		is.Equal(string(b), "hello\n")
		is.True(slices.Contains(acts, "Write hello.txt"))

		gens := srv.Generations(func(r stubmodel.Request) bool { return r.Method == http.MethodPost })
		is.True(len(gens) >= 2)
		var body struct {
			Model string `json:"model"`
		}
		is.NoErr(json.Unmarshal(gens[0].Body, &body))
		is.Equal(body.Model, "claude-sonnet-4-5") // --model is passed on
		is.True(bytes.Contains(gens[0].Body, []byte("a prompt that starts like a flag")))
		is.Equal(gens[0].Header.Get("x-api-key"), "sk-ant-stub")
	})

	t.Run("a large final message arrives whole", func(t *testing.T) {
		// Through a pipe, Claude Code lost the end of such an output when
		// it exited (as the Gemini CLI did, see fileOut): the result line,
		// with the cost and the completion tag, was cut.
		t.Parallel()
		is := is.New(t)
		var text strings.Builder
		for i := range 30000 {
			fmt.Fprintf(&text, "line %05d of a long answer, to fill the pipe many times over\n", i)
		}
		text.WriteString("<promise>COMPLETE</promise>")
		srv := stubmodel.Anthropic(t, stubmodel.Sequence(stubmodel.Turn{Text: text.String(), Usage: stubmodel.Usage{Input: 1000, Output: 400000}}))
		o, _ := runClaude(t, Config{Bin: bin, Model: "claude-sonnet-4-5"}, Request{Prompt: "talk at length", Dir: t.TempDir(), Env: claudeEnv(t, srv.URL)})
		is.Equal(o.Err, "")
		is.Equal(o.ExitCode, 0)
		is.True(o.CostKnown)
		is.Equal(o.Usage, Usage{Input: 1000, Output: 400000})
		is.True(strings.HasSuffix(o.FinalMessage, "line 29999 of a long answer, to fill the pipe many times over\n<promise>COMPLETE</promise>"))
	})

	errorCases := []struct {
		name    string
		turn    stubmodel.Turn
		auth    []string
		kind    ErrorKind
		errHas  string
		resetAt time.Time
	}{
		{name: "500", turn: stubmodel.Turn{Status: 500}, kind: ErrOutage, errHas: "500"},
		{name: "529", turn: stubmodel.Turn{Status: 529}, kind: ErrOutage, errHas: "Overloaded"},
		{name: "401", turn: stubmodel.Turn{Status: 401}, kind: ErrFatal, errHas: "Invalid API key"},
		{name: "404 model", turn: stubmodel.Turn{Status: 404}, kind: ErrFatal, errHas: "model"},
		{name: "usage limit", turn: stubmodel.Turn{Status: 429, Header: stubmodel.AnthropicUsageLimitHeader(time.Unix(1795338261, 0))},
			auth: []string{"CLAUDE_CODE_OAUTH_TOKEN=sk-ant-oat01-stub"}, kind: ErrUsageLimit, errHas: "hit your", resetAt: time.Unix(1795338261, 0)},
	}
	for _, tt := range errorCases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			is := is.New(t)
			srv := stubmodel.Anthropic(t, stubmodel.Sequence(tt.turn))
			o, _ := runClaude(t, Config{Bin: bin}, Request{Prompt: "hi", Dir: t.TempDir(), Env: claudeEnv(t, srv.URL, tt.auth...)})
			is.Equal(o.ErrKind, tt.kind)
			isText(is, o.Err, tt.errHas) // error text
			is.True(o.ExitCode != 0)
			is.True(o.ResetAt.Equal(tt.resetAt))
			if tt.kind == ErrFatal {
				is.True(o.Hint != "")
			}
		})
	}

	t.Run("root without IS_SANDBOX", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("not root")
		}
		t.Parallel()
		is := is.New(t)
		srv := stubmodel.Anthropic(t, stubmodel.Sequence(stubmodel.Turn{Text: "hi"}))
		env := slices.DeleteFunc(claudeEnv(t, srv.URL), func(e string) bool { return strings.HasPrefix(e, "IS_SANDBOX=") })
		o, _ := runClaude(t, Config{Bin: bin}, Request{Prompt: "hi", Dir: t.TempDir(), Env: env})
		is.Equal(o.ErrKind, ErrFatal)
		is.Equal(o.Hint, "running as root: set IS_SANDBOX=1 if this is a sandbox")
	})

	t.Run("inactivity ends the run", func(t *testing.T) {
		t.Parallel()
		is := is.New(t)
		release := make(chan struct{})
		srv := stubmodel.Anthropic(t, func(int, stubmodel.Request) stubmodel.Turn {
			<-release // no answer while the run lasts
			return stubmodel.Turn{Status: 500}
		})
		t.Cleanup(func() { close(release) }) // before the server's Close, which waits for handlers
		o, _ := runClaude(t, Config{Bin: bin}, Request{Prompt: "hi", Dir: t.TempDir(), Env: claudeEnv(t, srv.URL),
			InactivityTimeout: 8 * time.Second})
		is.True(o.Inactive)
		is.Equal(o.ErrKind, ErrTransient)
	})
}

func TestClaudeNotInstalled(t *testing.T) {
	is := is.New(t)
	o, _ := runClaude(t, Config{Bin: filepath.Join(t.TempDir(), "no-claude")}, Request{Prompt: "hi", Dir: t.TempDir()})
	is.Equal(o.ErrKind, ErrFatal)
	is.Equal(o.Hint, claudeInstallHint)
	is.True(o.ExitCode != 0)

	o, _ = runClaude(t, Config{Bin: "definitely-not-claude-xyz"}, Request{Prompt: "hi", Dir: t.TempDir()})
	is.Equal(o.ErrKind, ErrFatal)
}
