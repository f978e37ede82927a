package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
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
	"github.com/architect-dev/architect/internal/testutil"
	"github.com/architect-dev/architect/proc"
)

func TestCodexCommandLine(t *testing.T) {
	is := is.New(t)
	is.Equal(codexArgs("", nil), []string{"exec", "--json", "--dangerously-bypass-approvals-and-sandbox", "--skip-git-repo-check", "-"})
	is.Equal(codexArgs("gpt-5.5", []string{"-c", `model_reasoning_effort="high"`}),
		[]string{"exec", "--json", "--dangerously-bypass-approvals-and-sandbox", "--skip-git-repo-check",
			"-m", "gpt-5.5", "-c", `model_reasoning_effort="high"`, "-"})
}

func TestCodexCheckPrices(t *testing.T) {
	is := is.New(t)
	check := func(c Config) error {
		c.Name = "codex"
		a, err := New(c)
		is.NoErr(err)
		pc, ok := a.(PriceChecker)
		is.True(ok) // codex prices from the table
		return pc.CheckPrices()
	}
	is.NoErr(check(Config{Model: "gpt-5.5"}))                                      // built in
	is.NoErr(check(Config{Model: "my-gpt", Prices: Prices{"my-gpt": {Input: 1}}})) // user price
	err := check(Config{Model: "my-gpt"})
	is.True(err != nil)
	is.True(strings.Contains(err.Error(), `"my-gpt"`))
	is.True(strings.Contains(err.Error(), "prices:"))
	err = check(Config{})
	is.True(err != nil)
	is.True(strings.Contains(err.Error(), "--model"))
}

// replayCodex feeds captured output to the parser as proc would, and
// returns the Outcome and the activity lines.
func replayCodex(t *testing.T, c Config, stdout []byte, res proc.Result, stderr string, now time.Time) (Outcome, []string) {
	t.Helper()
	var acts []string
	s := &codexStream{dir: "/tmp/TestCaptureCodex3802464534/017", onActivity: func(m string) { acts = append(acts, m) }}
	w := proc.NewLineWriter(codexMaxLine, s.line)
	_, _ = w.Write(stdout)
	w.Flush()
	a := &codex{cliAdapter{model: c.Model, prices: c.Prices, now: func() time.Time { return now }}}
	return a.outcome(res, s, stderr, time.UTC), acts
}

func tokenTestdata(t *testing.T, elem ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(append([]string{"testdata"}, elem...)...))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func costNear(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

// TestCodexCapturedOutput replays output captured from Codex 0.169.0 run
// against the stub model server (internal/stubmodel) answering as named.
func TestCodexCapturedOutput(t *testing.T) {
	now := time.Date(2026, 11, 22, 7, 40, 0, 0, time.UTC)
	gpt55 := Price{Input: 5, CachedInput: 0.5, Output: 30}
	tests := []struct {
		file   string
		res    proc.Result
		within time.Duration
		now    time.Time
		want
	}{
		// $5 in, $0.50 cached, $30 out per million: 600 × 5 = 3,000;
		// 170 × 0.5 = 85; 45 × 30 = 1,350; 4,435 per million = $0.004435.
		{file: "success.jsonl",
			want: want{final: "I wrote hello.txt.\n\n<promise>COMPLETE</promise>", steps: 2, usage: Usage{Input: 600, CachedInput: 170, Output: 45}, cost: 0.004435, costKnown: true}},
		// 250 × 5 = 1,250; 22 × 30 = 660; 1,910 per million = $0.00191.
		{file: "tool-output-mentions-limits.jsonl",
			want: want{final: "The test printed a quota message; nothing to do about it.", steps: 1, usage: Usage{Input: 250, Output: 22}, cost: 0.00191, costKnown: true}},
		{file: "error-500.jsonl", res: proc.Result{ExitCode: 1},
			want: want{kind: ErrOutage, err: "high demand", costKnown: true}},
		{file: "error-503-overloaded.jsonl", res: proc.Result{ExitCode: 1},
			want: want{kind: ErrOutage, err: "at capacity", costKnown: true}},
		{file: "error-401.jsonl", res: proc.Result{ExitCode: 1},
			want: want{kind: ErrFatal, err: "401 Unauthorized", hint: "OPENAI_API_KEY", costKnown: true}},
		{file: "error-403.jsonl", res: proc.Result{ExitCode: 1},
			want: want{kind: ErrFatal, err: "403 Forbidden", hint: "codex login", costKnown: true}},
		{file: "error-404-model.jsonl", res: proc.Result{ExitCode: 1},
			want: want{kind: ErrFatal, err: "does not exist", hint: "--model", costKnown: true}},
		{file: "error-400-model.jsonl", res: proc.Result{ExitCode: 1},
			want: want{kind: ErrFatal, err: "not supported", hint: "--model", costKnown: true}},
		{file: "missing-env-key.jsonl", res: proc.Result{ExitCode: 1},
			want: want{kind: ErrFatal, err: "STUB_API_KEY", hint: "environment variable", costKnown: true}},
		{file: "usage-not-included.jsonl", res: proc.Result{ExitCode: 1},
			want: want{kind: ErrFatal, err: "upgrade to Plus", hint: "plan", costKnown: true}},
		// An API account out of credit: billing, which waiting does not fix.
		{file: "quota-exceeded.jsonl", res: proc.Result{ExitCode: 1},
			want: want{kind: ErrFatal, err: "Quota exceeded", hint: "credit", costKnown: true}},
		{file: "rate-limit-429.jsonl", res: proc.Result{ExitCode: 1},
			want: want{kind: ErrUsageLimit, err: "429", costKnown: true}},
		{file: "usage-limit.jsonl", res: proc.Result{ExitCode: 1},
			want: want{kind: ErrUsageLimit, err: "usage limit", costKnown: true}},
		{file: "usage-limit-reset.jsonl", res: proc.Result{ExitCode: 1}, within: time.Minute,
			want: want{kind: ErrUsageLimit, err: "usage limit", costKnown: true, resetAt: time.Date(2030, 3, 17, 17, 46, 0, 0, time.UTC)}}, // resets_at 1900000000, printed in TZ=UTC
		// A reset 3 s ahead, printed to the minute: the limit lifts within it.
		{file: "usage-limit-today.jsonl", res: proc.Result{ExitCode: 1}, now: time.Date(2026, 11, 24, 6, 19, 19, 0, time.UTC), within: time.Minute,
			want: want{kind: ErrUsageLimit, err: "try again at 6:19 AM", costKnown: true, resetAt: time.Date(2026, 11, 24, 6, 19, 0, 0, time.UTC)}},
		{file: "network-down.jsonl", res: proc.Result{ExitCode: -1, TimedOut: true, Duration: 20 * time.Second},
			want: want{kind: ErrTransient, err: "waiting for network"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			is := is.New(t)
			at := now
			if !tt.now.IsZero() {
				at = tt.now
			}
			o, _ := replayCodex(t, Config{Model: "gpt-5.5", Prices: Prices{"gpt-5.5": gpt55}}, tokenTestdata(t, "codex", tt.file), tt.res, "", at)
			tt.want.check(is, o)
		})
	}
}

func TestCodexActivity(t *testing.T) {
	is := is.New(t)
	_, acts := replayCodex(t, Config{}, tokenTestdata(t, "codex", "success.jsonl"), proc.Result{}, "", time.Now())
	is.Equal(acts, []string{
		"patch: add hello.txt",
		"run: cat hello.txt",
		"message: I wrote hello.txt. <promise>COMPLETE</promise>",
	})
	_, acts = replayCodex(t, Config{}, tokenTestdata(t, "codex", "tool-output-mentions-limits.jsonl"), proc.Result{}, "", time.Now())
	is.Equal(len(acts), 3)
	is.True(strings.HasPrefix(acts[1], "exit 3: echo "))
}

func TestCodexSyntheticStreams(t *testing.T) {
	now := time.Date(2026, 11, 22, 7, 40, 0, 0, time.UTC)
	tests := []struct {
		name   string
		lines  string
		res    proc.Result
		stderr string
		check  func(is *is.I, o Outcome)
	}{
		{name: "no model: tokens but no cost", lines: `{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":4,"output_tokens":2}}`,
			check: func(is *is.I, o Outcome) {
				is.Equal(o.Usage, Usage{Input: 6, CachedInput: 4, Output: 2})
				is.True(!o.CostKnown)
			}},
		{name: "several turns add up", lines: `{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":4,"output_tokens":2}}
{"type":"turn.completed","usage":{"input_tokens":5,"cached_input_tokens":9,"output_tokens":-1}}`,
			check: func(is *is.I, o Outcome) { is.Equal(o.Usage, Usage{Input: 6, CachedInput: 9, Output: 2}) }},
		{name: "failed after answers: cost unknown", res: proc.Result{ExitCode: 1}, lines: `{"type":"item.completed","item":{"type":"agent_message","text":"working"}}
{"type":"turn.failed","error":{"message":"stream disconnected before completion: boom"}}`,
			check: func(is *is.I, o Outcome) {
				is.Equal(o.ErrKind, ErrOutage) // the connection to the service broke
				is.True(!o.CostKnown)
				is.Equal(o.FinalMessage, "working")
			}},
		{name: "crash without events", res: proc.Result{ExitCode: 101}, stderr: "thread 'main' panicked at src/main.rs",
			check: func(is *is.I, o Outcome) {
				is.Equal(o.ErrKind, ErrTransient)
				is.True(strings.Contains(o.Err, "panicked"))
			}},
		{name: "crash silently", res: proc.Result{ExitCode: 2},
			check: func(is *is.I, o Outcome) {
				is.Equal(o.ErrKind, ErrTransient)
				is.Equal(o.Err, "codex exited with status 2 without an error message")
			}},
		{name: "reconnect errors of a run that succeeds are not errors", lines: `{"type":"error","message":"Reconnecting... 1/5"}
{"type":"item.completed","item":{"type":"agent_message","text":"done"}}
{"type":"turn.completed","usage":{"input_tokens":1,"output_tokens":1}}`,
			check: func(is *is.I, o Outcome) { is.Equal(o.ErrKind, ErrNone); is.Equal(o.Err, "") }},
		{name: "a cut final message is not replaced by an earlier one", lines: `{"type":"item.completed","item":{"type":"agent_message","text":"<promise>COMPLETE</promise>"}}
{"type":"item.completed","item":{"id":"item_9","type":"agent_message","text":"` + strings.Repeat("x", codexMaxLine) + `"}}`,
			check: func(is *is.I, o Outcome) { is.Equal(o.FinalMessage, "") }},
		{name: "garbage is ignored", lines: "WARNING: something\n{\"type\":7}\n{not json\n[]\n",
			check: func(is *is.I, o Outcome) { is.Equal(o.ErrKind, ErrNone) }},
		{name: "not found", res: proc.Result{ExitCode: -1, StartErr: os.ErrNotExist},
			check: func(is *is.I, o Outcome) { is.Equal(o.ErrKind, ErrFatal); is.Equal(o.Hint, codexInstallHint) }},
		{name: "cancelled", res: proc.Result{ExitCode: -1, Canceled: true}, lines: `{"type":"error","message":"Reconnecting..."}`,
			check: func(is *is.I, o Outcome) { is.Equal(o.ErrKind, ErrNone); is.True(o.Canceled) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, _ := replayCodex(t, Config{}, []byte(tt.lines), tt.res, tt.stderr, now)
			tt.check(is.New(t), o)
		})
	}
}

func TestCodexResetAt(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatalf("no time zone data: %v", err)
	}
	now := time.Date(2026, 11, 22, 14, 0, 0, 0, paris)
	tests := []struct {
		text string
		want time.Time
	}{
		{"You’ve hit your usage limit. Try again at 5:46 PM.", time.Date(2026, 11, 22, 17, 46, 0, 0, paris)},
		{"You’ve hit your usage limit. Try again at 9:05 AM.", time.Date(2026, 11, 23, 9, 5, 0, 0, paris)}, // tomorrow
		{"You’ve hit your usage limit. Try again at 12:30 AM.", time.Date(2026, 11, 23, 0, 30, 0, 0, paris)},
		{"You’ve hit your usage limit. Try again at 12:30 PM.", time.Date(2026, 11, 23, 12, 30, 0, 0, paris)},
		{"… or try again at Mar 17th, 2030 5:46 PM.", time.Date(2030, 3, 17, 17, 46, 0, 0, paris)},
		{"… or try again at Dec 1st, 2026 11:02 AM.", time.Date(2026, 12, 1, 11, 2, 0, 0, paris)},
		{"Rate limit reached. Please try again in 2.5s.", now.Add(2500 * time.Millisecond)},
		// In the user's locale (a report shows "10 de jul. de 2026, 11:52").
		{"You've hit your usage limit. Upgrade to Pro or try again at 10 de jul. de 2026, 11:52.", time.Date(2026, 7, 10, 11, 52, 0, 0, paris)},
		{"… or try again at 3 déc. 2026, 09:15.", time.Date(2026, 12, 3, 9, 15, 0, 0, paris)},
		{"… or try again at 17:46.", time.Date(2026, 11, 22, 17, 46, 0, 0, paris)},
		// Older versions: a delay in several units.
		{"You've hit your usage limit. Upgrade to Pro (…) or try again in 5 days 22 hours 11 minutes.", now.Add(5*24*time.Hour + 22*time.Hour + 11*time.Minute)},
		{"You’ve hit your usage limit. Try again later.", time.Time{}},
		{"try again at 13:61 PM", time.Time{}},
		{"try again at Foo 3rd, 2030 1:00 PM", time.Time{}},
	}
	for _, tt := range tests {
		got := codexResetAt(tt.text, now)
		if !got.At.Equal(tt.want) {
			t.Errorf("codexResetAt(%q) = %v, want %v", tt.text, got.At, tt.want)
		}
		// A clock time is printed to the minute (truncated): the limit lifts
		// within it. A delay is exact.
		within := time.Duration(0)
		if strings.Contains(tt.text, "again at") && !tt.want.IsZero() {
			within = time.Minute
		}
		if got.Within != within {
			t.Errorf("codexResetAt(%q): within %v, want %v", tt.text, got.Within, within)
		}
	}
}

func TestRetryDelay(t *testing.T) {
	is := is.New(t)
	for text, want := range map[string]time.Duration{
		"Suggested retry after 37s.":                  37 * time.Second,
		"Please retry in 37.5s":                       37500 * time.Millisecond,
		"try again in 250ms":                          250 * time.Millisecond,
		"try again in 2 minutes":                      2 * time.Minute,
		"retry after 1h":                              time.Hour,
		"Try again in 30 seconds, or upgrade":         30 * time.Second,
		"or try again in 5 days 22 hours 11 minutes.": 5*24*time.Hour + 22*time.Hour + 11*time.Minute,
		"Please try again in 1h30m.":                  90 * time.Minute,
		"try again in 6m0s":                           6 * time.Minute,
		"try again in 2 hours and 5 minutes":          2*time.Hour + 5*time.Minute,
	} {
		d, ok := retryDelay(text)
		is.True(ok)
		is.Equal(d, want)
	}
	_, ok := retryDelay("try again later")
	is.True(!ok)
}

func TestCodexCommandDisplay(t *testing.T) {
	is := is.New(t)
	is.Equal(codexCommand("/bin/bash -lc 'go test ./...'"), "go test ./...")
	is.Equal(codexCommand(`/bin/bash -lc "echo \"hi\" 'x'"`), `echo "hi" 'x'`)
	is.Equal(codexCommand("ls -la"), "ls -la")
	is.Equal(shortActivity("a\n  b\tc"), "a b c")
	is.Equal(len([]rune(shortActivity(strings.Repeat("é", 500)))), 200)
	is.Equal(relPath("/w", "/w/a/b.go"), "a/b.go")
	is.Equal(relPath("/w", "/x/b.go"), "/x/b.go")
	is.Equal(relPath("/w", "b.go"), "b.go")
}

func TestEnvLocation(t *testing.T) {
	is := is.New(t)
	is.Equal(envLocation([]string{"TZ=UTC"}), time.UTC)
	is.Equal(envLocation([]string{"TZ="}), time.UTC)
	is.Equal(envLocation([]string{"TZ=Not/AZone"}), time.Local)
	is.Equal(envLocation(nil), time.Local)
	if loc := envLocation([]string{"TZ=:Europe/Paris"}); loc != time.Local {
		is.Equal(loc.String(), "Europe/Paris")
	}
}

func FuzzCodexStream(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "codex", "*.jsonl"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, 1)
	}
	f.Add([]byte(`{"type":"turn.completed","usage":{"input_tokens":-5,"cached_input_tokens":9223372036854775807}}`), 0)
	f.Add([]byte(`{"type":"turn.failed","error":{"message":"try again at Feb 31st, 2030 12:00 AM"}}`), 1)
	f.Add([]byte(`{"type":"item.completed","item":{"type":"file_change","changes":[{"path":"../../x"}],"exit_code":null}}`), 0)
	f.Fuzz(func(t *testing.T, data []byte, exit int) {
		s := &codexStream{dir: "/w", onActivity: func(string) {}}
		w := proc.NewLineWriter(256, s.line)
		_, _ = w.Write(data)
		w.Flush()
		o := (&codex{cliAdapter{model: "gpt-5.5", now: time.Now}}).outcome(proc.Result{ExitCode: exit}, s, string(data), time.UTC)
		if o.ErrKind == ErrNone && exit != 0 {
			t.Fatalf("exit %d but no error", exit)
		}
		if o.Usage.Input < 0 || o.Usage.CachedInput < 0 || o.Usage.Output < 0 {
			t.Fatalf("negative usage %+v", o.Usage)
		}
		_ = codexResetAt(string(data), time.Now())
	})
}

// --- against the real CLI ---------------------------------------------

// runTokenAgent runs one iteration of the named adapter and returns the
// Outcome and the activity lines, after checking that no process is left
// in the workspace.
func runTokenAgent(t *testing.T, c Config, req Request) (Outcome, []string) {
	t.Helper()
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
	if pids := testutil.ProcessesIn(req.Dir); len(pids) > 0 {
		t.Errorf("processes left running in %s: %v", req.Dir, pids)
	}
	mu.Lock()
	defer mu.Unlock()
	return o, slices.Clone(acts)
}

// codexEnv is an environment that points Codex at the stub, with a fresh
// HOME and CODEX_HOME and nothing of the developer's.
func codexEnv(t *testing.T, srv *stubmodel.Server, model string) []string {
	t.Helper()
	home := t.TempDir()
	codexHome := filepath.Join(home, ".codex")
	if err := os.MkdirAll(codexHome, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(srv.CodexConfig(model)), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"CODEX_HOME=" + codexHome,
		"TMPDIR=" + t.TempDir(),
		"TZ=UTC",
		"STUB_API_KEY=sk-stub",
	}
}

func TestCodexRealCLI(t *testing.T) {
	bin := agentbin.Path(t, "codex")
	t.Parallel()
	prices := Prices{"gpt-5.5": {Input: 2, CachedInput: 0.5, Output: 8}}

	t.Run("writes a file and finishes", func(t *testing.T) {
		t.Parallel()
		is := is.New(t)
		dir := t.TempDir()
		srv := stubmodel.OpenAI(t, stubmodel.Sequence(
			stubmodel.Turn{ToolCalls: []stubmodel.ToolCall{{Name: "apply_patch",
				Input: "*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch\n"}},
				Usage: stubmodel.Usage{Input: 1000, CachedInput: 200, Output: 50}},
			stubmodel.Turn{ToolCalls: []stubmodel.ToolCall{{Name: "exec_command", Args: map[string]any{"cmd": "echo more >> hello.txt"}}},
				Usage: stubmodel.Usage{Input: 300, CachedInput: 1200, Output: 30}},
			stubmodel.Turn{Text: "Wrote hello.txt. <promise>COMPLETE</promise>", Usage: stubmodel.Usage{Input: 100, CachedInput: 1500, Output: 20}},
		))
		o, acts := runTokenAgent(t, Config{Name: "codex", Bin: bin, Model: "gpt-5.5", Prices: prices},
			Request{Prompt: "-- write hello.txt\n(a prompt that starts like a flag)", Dir: dir, Env: codexEnv(t, srv, "gpt-5.5")})
		is.Equal(o.Err, "")
		is.Equal(o.ErrKind, ErrNone)
		is.Equal(o.ExitCode, 0)
		is.Equal(o.FinalMessage, "Wrote hello.txt. <promise>COMPLETE</promise>")
		is.Equal(o.Steps, 2)
		is.Equal(o.Usage, Usage{Input: 1400, CachedInput: 2900, Output: 100})
		is.True(o.CostKnown)
		// $2 in, $0.50 cached, $8 out per million: 1,400 × 2 = 2,800;
		// 2,900 × 0.5 = 1,450; 100 × 8 = 800; 5,050 per million = $0.00505.
		is.True(costNear(o.Cost, 0.00505))
		b, err := os.ReadFile(filepath.Join(dir, "hello.txt"))
		is.NoErr(err)
		is.Equal(string(b), "hello\nmore\n")
		is.True(slices.Contains(acts, "patch: add hello.txt"))
		is.True(slices.Contains(acts, "run: echo more >> hello.txt"))

		gens := srv.Generations(func(r stubmodel.Request) bool { return strings.HasSuffix(r.Path, "/responses") })
		is.Equal(len(gens), 3)
		var body struct {
			Model string `json:"model"`
		}
		is.NoErr(json.Unmarshal(gens[0].Body, &body))
		is.Equal(body.Model, "gpt-5.5") // --model is passed on
		is.True(bytes.Contains(gens[0].Body, []byte("a prompt that starts like a flag")))
		is.Equal(gens[0].Header.Get("Authorization"), "Bearer sk-stub")
		is.True(bytes.Contains(gens[1].Body, []byte(`"custom_tool_call_output"`))) // the patch was applied and answered
	})

	t.Run("a prompt longer than an argument may be", func(t *testing.T) {
		t.Parallel()
		is := is.New(t)
		srv := stubmodel.OpenAI(t, stubmodel.Sequence(stubmodel.Turn{Text: "read it all"}))
		prompt := strings.Repeat("lorem ipsum ", 30_000) + "THE END" // 360 KB: over Linux's 128 KiB per argument
		o, _ := runTokenAgent(t, Config{Name: "codex", Bin: bin, Model: "gpt-5.5"},
			Request{Prompt: prompt, Dir: t.TempDir(), Env: codexEnv(t, srv, "gpt-5.5")})
		is.Equal(o.Err, "")
		is.Equal(o.FinalMessage, "read it all")
		is.True(bytes.Contains(srv.Requests()[0].Body, []byte("lorem ipsum THE END")))
	})

	errorCases := []struct {
		name    string
		turn    stubmodel.Turn
		kind    ErrorKind
		errHas  string
		resetAt time.Time
	}{
		{name: "500", turn: stubmodel.Turn{Status: 500}, kind: ErrOutage, errHas: "high demand"},
		{name: "401", turn: stubmodel.Turn{Status: 401}, kind: ErrFatal, errHas: "401"},
		{name: "404 model", turn: stubmodel.Turn{Status: 404}, kind: ErrFatal, errHas: "does not exist"},
		{name: "usage limit", turn: stubmodel.Turn{Status: 429, ErrorBody: stubmodel.OpenAIUsageLimitBody(1900000000)},
			kind: ErrUsageLimit, errHas: "usage limit", resetAt: time.Date(2030, 3, 17, 17, 46, 0, 0, time.UTC)},
		{name: "insufficient quota", turn: stubmodel.Turn{Status: 429}, kind: ErrFatal, errHas: "Quota exceeded"}, // billing
	}
	for _, tt := range errorCases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			is := is.New(t)
			srv := stubmodel.OpenAI(t, stubmodel.Sequence(tt.turn))
			start := time.Now()
			o, _ := runTokenAgent(t, Config{Name: "codex", Bin: bin, Model: "gpt-5.5", Prices: prices},
				Request{Prompt: "hi", Dir: t.TempDir(), Env: codexEnv(t, srv, "gpt-5.5")})
			is.True(time.Since(start) < 60*time.Second) // the run ends promptly: no retries for minutes
			is.Equal(o.ErrKind, tt.kind)
			isText(is, o.Err, tt.errHas) // error text
			is.True(o.ExitCode != 0)
			is.True(o.ResetAt.Equal(tt.resetAt))
			is.True(o.CostKnown) // nothing was generated
			is.Equal(o.Cost, 0.0)
			if tt.kind == ErrFatal {
				is.True(o.Hint != "")
			}
		})
	}

	t.Run("inactivity ends the run", func(t *testing.T) {
		t.Parallel()
		is := is.New(t)
		release := make(chan struct{})
		srv := stubmodel.OpenAI(t, func(int, stubmodel.Request) stubmodel.Turn {
			<-release // no answer while the run lasts
			return stubmodel.Turn{Status: 500}
		})
		t.Cleanup(func() { close(release) }) // before the server's Close, which waits for handlers
		o, _ := runTokenAgent(t, Config{Name: "codex", Bin: bin, Model: "gpt-5.5"},
			Request{Prompt: "hi", Dir: t.TempDir(), Env: codexEnv(t, srv, "gpt-5.5"), InactivityTimeout: 5 * time.Second})
		is.True(o.Inactive)
		is.Equal(o.ErrKind, ErrTransient)
	})
}

func TestCodexNotInstalled(t *testing.T) {
	is := is.New(t)
	o, _ := runTokenAgent(t, Config{Name: "codex", Bin: filepath.Join(t.TempDir(), "codex")}, Request{Prompt: "hi", Dir: t.TempDir()})
	is.Equal(o.ErrKind, ErrFatal)
	is.Equal(o.Hint, codexInstallHint)
}
