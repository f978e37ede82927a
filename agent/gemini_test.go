package agent

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/internal/agentbin"
	"github.com/architect-dev/architect/internal/stubmodel"
	"github.com/architect-dev/architect/proc"
)

func TestGeminiCommandLine(t *testing.T) {
	is := is.New(t)
	is.Equal(geminiArgs("", nil), []string{"--output-format", "stream-json", "--yolo", "--skip-trust"})
	is.Equal(geminiArgs("gemini-2.5-pro", []string{"--include-directories", "../lib"}),
		[]string{"--output-format", "stream-json", "--yolo", "--skip-trust", "-m", "gemini-2.5-pro", "--include-directories", "../lib"})
}

func TestGeminiCheckPrices(t *testing.T) {
	is := is.New(t)
	check := func(c Config) error {
		c.Name = "gemini"
		a, err := New(c)
		is.NoErr(err)
		pc, ok := a.(PriceChecker)
		is.True(ok) // gemini prices from the table
		return pc.CheckPrices()
	}
	is.NoErr(check(Config{Model: "gemini-2.5-pro"}))
	is.NoErr(check(Config{Model: "gem-x", Prices: Prices{"gem-x": {Input: 1}}}))
	err := check(Config{Model: "gem-x"})
	is.True(err != nil)
	is.True(strings.Contains(err.Error(), `"gem-x"`))
	err = check(Config{})
	is.True(err != nil)
	is.True(strings.Contains(err.Error(), "--model"))
}

// replayGemini feeds captured output to the parser as proc would, and
// returns the Outcome and the activity lines.
func replayGemini(t *testing.T, c Config, stdout []byte, res proc.Result, stderr string, now time.Time) (Outcome, []string) {
	t.Helper()
	var acts []string
	s := &geminiStream{dir: "/tmp/TestCaptureGemini3915995299/013", onActivity: func(m string) { acts = append(acts, m) }}
	w := proc.NewLineWriter(geminiMaxLine, s.line)
	_, _ = w.Write(stdout)
	w.Flush()
	a := &gemini{cliAdapter{model: c.Model, prices: c.Prices, now: func() time.Time { return now }}}
	return a.outcome(res, s, stderr), acts
}

// geminiCapture reads a capture: stdout, stderr and exit status.
func geminiCapture(t *testing.T, name string) ([]byte, string, int) {
	t.Helper()
	code, err := strconv.Atoi(strings.TrimSpace(string(tokenTestdata(t, "gemini", name+".exit"))))
	if err != nil {
		t.Fatal(err)
	}
	return tokenTestdata(t, "gemini", name+".jsonl"), string(tokenTestdata(t, "gemini", name+".stderr")), code
}

// TestGeminiCapturedOutput replays output captured from the Gemini CLI
// 0.61.0 run against the stub model server (internal/stubmodel) answering
// as named.
func TestGeminiCapturedOutput(t *testing.T) {
	now := time.Date(2026, 11, 22, 7, 40, 0, 0, time.UTC)
	pro := Price{Input: 1.25, CachedInput: 0.125, Output: 10}
	tests := []struct {
		name string
		want
	}{
		// $1.25 in, $0.125 cached, $10 out per million: 600 × 1.25 = 750;
		// 170 × 0.125 = 21.25; 45 × 10 = 450; 1,221.25 per million = $0.00122125.
		{name: "success",
			want: want{final: "I wrote hello.txt and checked it.\n\n<promise>COMPLETE</promise>", steps: 2, usage: Usage{Input: 600, CachedInput: 170, Output: 45}, cost: 0.00122125}},
		// 250 × 1.25 = 312.5; 22 × 10 = 220; 532.5 per million = $0.0005325.
		{name: "tool-output-mentions-limits",
			want: want{final: "The command printed a quota message; nothing to do about it.", steps: 1, usage: Usage{Input: 250, Output: 22}, cost: 0.0005325}},
		{name: "error-500",
			want: want{kind: ErrOutage, err: "An internal error has occurred"}},
		{name: "error-503-overloaded",
			want: want{kind: ErrOutage, err: "overloaded"}},
		{name: "network-down",
			want: want{kind: ErrOutage, err: "fetch failed"}},
		{name: "error-401",
			want: want{kind: ErrFatal, err: "invalid authentication credentials", hint: "GEMINI_API_KEY"}},
		{name: "error-400-api-key",
			want: want{kind: ErrFatal, err: "API key not valid", hint: "GEMINI_API_KEY"}},
		{name: "error-403",
			want: want{kind: ErrFatal, err: "PERMISSION_DENIED", hint: "GEMINI_API_KEY"}},
		{name: "error-404-model",
			want: want{kind: ErrFatal, err: "is not found", hint: "--model"}},
		{name: "no-api-key",
			want: want{kind: ErrFatal, err: "must specify the GEMINI_API_KEY", hint: "GEMINI_API_KEY"}},
		// A per-day quota resets at midnight Pacific time (07:40 UTC is
		// 23:40 PST the day before).
		{name: "quota-daily",
			want: want{kind: ErrUsageLimit, err: "daily quota", resetAt: time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)}},
		{name: "quota-plain",
			want: want{kind: ErrUsageLimit, err: "Resource has been exhausted"}},
		{name: "quota-retry",
			want: want{kind: ErrUsageLimit, err: "exceeded your current quota", resetAt: now.Add(37 * time.Second)}},
		// A per-minute quota without a RetryInfo: the CLI suggests 60 s.
		{name: "quota-retry-default",
			want: want{kind: ErrUsageLimit, err: "Suggested retry after 60s", resetAt: now.Add(60 * time.Second)}},
		{name: "untrusted-folder",
			want: want{kind: ErrFatal, err: "not running in a trusted directory", hint: "trust"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			stdout, stderr, code := geminiCapture(t, tt.name)
			o, _ := replayGemini(t, Config{Model: "gemini-2.5-pro", Prices: Prices{"gemini-2.5-pro": pro}},
				stdout, proc.Result{ExitCode: code}, proc.Clean([]byte(stderr)), now)
			// costKnown for all: every run reported its tokens.
			w := tt.want
			w.costKnown = true
			w.check(is, o)
			is.True(!strings.Contains(o.Err, "    at ")) // no stack trace
		})
	}
}

func TestGeminiActivity(t *testing.T) {
	is := is.New(t)
	stdout, _, _ := geminiCapture(t, "success")
	_, acts := replayGemini(t, Config{}, stdout, proc.Result{}, "", time.Now())
	is.Equal(acts, []string{
		"write_file: hello.txt",
		"run_shell_command: cat hello.txt",
		"message: I wrote hello.txt and checked it. <promise>COMPLETE</promise>",
	})
}

// TestGeminiThoughts: thinking tokens are billed as output but left out of
// the CLI's output_tokens; they are what total_tokens counts beyond the
// prompt. The line was captured with the stub reporting 7 thought tokens
// per answer.
func TestGeminiThoughts(t *testing.T) {
	is := is.New(t)
	o, _ := replayGemini(t, Config{Model: "gemini-2.5-pro"}, tokenTestdata(t, "gemini", "success-thoughts.jsonl"), proc.Result{}, "", time.Now())
	is.Equal(o.Usage, Usage{Input: 600, CachedInput: 170, Output: 66})
	is.True(o.CostKnown) // built-in price
	// gemini-2.5-pro: $1.25 in, $0.125 cached, $10 out per million: 600 × 1.25 = 750;
	// 170 × 0.125 = 21.25; 66 × 10 = 660; 1,431.25 per million = $0.00143125.
	is.True(costNear(o.Cost, 0.00143125))
}

func TestGeminiSyntheticStreams(t *testing.T) {
	now := time.Date(2026, 11, 22, 7, 40, 0, 0, time.UTC)
	result := func(models string) string {
		return `{"type":"result","status":"success","stats":{"total_tokens":30,"input_tokens":20,"output_tokens":10,"cached":5,"input":15,"tool_calls":0,"models":{` + models + `}}}`
	}
	tests := []struct {
		name   string
		c      Config
		lines  string
		res    proc.Result
		stderr string
		check  func(is *is.I, o Outcome)
	}{
		{name: "each model at its price", c: Config{Prices: Prices{"a": {Input: 1, CachedInput: 1, Output: 1}, "b": {Input: 2, Output: 2}}},
			lines: result(`"a":{"total_tokens":10,"input_tokens":8,"output_tokens":2,"cached":0,"input":8},"b":{"total_tokens":20,"input_tokens":12,"output_tokens":8,"cached":5,"input":7}`),
			check: func(is *is.I, o Outcome) {
				is.Equal(o.Usage, Usage{Input: 15, CachedInput: 5, Output: 10})
				is.True(o.CostKnown)
				// a: 8 in × $1 + 2 out × $1 = 10; b: 7 in × $2 + 5 cached × $0
				// + 8 out × $2 = 30; 40 per million = $0.00004.
				is.True(costNear(o.Cost, 0.00004))
			}},
		{name: "a model without a price: cost unknown", c: Config{Prices: Prices{"a": {Input: 1}}},
			lines: result(`"a":{"total_tokens":10,"input_tokens":8,"output_tokens":2},"b":{"total_tokens":20,"input_tokens":12,"output_tokens":8}`),
			check: func(is *is.I, o Outcome) { is.True(!o.CostKnown) }},
		{name: "no per-model figures: the init model", c: Config{Prices: Prices{"m": {Input: 1}}},
			lines: `{"type":"init","model":"m"}` + "\n" + result(``),
			check: func(is *is.I, o Outcome) { is.True(o.CostKnown); is.True(costNear(o.Cost, 0.000015)) }}, // 15 in × $1 per million
		{name: "a whole message replaces the deltas", lines: `{"type":"message","role":"assistant","content":"a","delta":true}
{"type":"message","role":"assistant","content":"whole"}
{"type":"message","role":"assistant","content":" and more","delta":true}
{"type":"message","role":"user","content":"ignored"}`,
			check: func(is *is.I, o Outcome) { is.Equal(o.FinalMessage, "whole and more") }},
		{name: "killed: no result, no cost", res: proc.Result{ExitCode: -1, TimedOut: true}, lines: `{"type":"init","model":"m"}`,
			check: func(is *is.I, o Outcome) { is.Equal(o.ErrKind, ErrTransient); is.True(!o.CostKnown) }},
		{name: "error event without a result", res: proc.Result{ExitCode: 1},
			lines: `{"type":"error","severity":"warning","message":"Loop detected"}` + "\n" + `{"type":"error","severity":"error","message":"Maximum session turns exceeded"}`,
			check: func(is *is.I, o Outcome) {
				is.Equal(o.ErrKind, ErrTransient)
				is.Equal(o.Err, "gemini: Maximum session turns exceeded")
			}},
		{name: "error result without a message", res: proc.Result{ExitCode: 1}, lines: `{"type":"result","status":"error"}`,
			check: func(is *is.I, o Outcome) {
				is.Equal(o.ErrKind, ErrTransient)
				is.Equal(o.Err, `gemini: the run ended with status "error"`)
			}},
		{name: "silent crash", res: proc.Result{ExitCode: 134},
			check: func(is *is.I, o Outcome) {
				is.Equal(o.ErrKind, ErrTransient)
				is.Equal(o.Err, "gemini exited with status 134 without a result")
			}},
		{name: "config error", res: proc.Result{ExitCode: 52}, stderr: "YOLO mode is enabled.\nInvalid configuration in settings.json",
			check: func(is *is.I, o Outcome) {
				is.Equal(o.ErrKind, ErrFatal)
				is.Equal(o.Err, "gemini: Invalid configuration in settings.json")
			}},
		{name: "not found", res: proc.Result{ExitCode: -1, StartErr: os.ErrNotExist},
			check: func(is *is.I, o Outcome) { is.Equal(o.ErrKind, ErrFatal); is.Equal(o.Hint, geminiInstallHint) }},
		{name: "garbage is ignored", lines: "Loaded cached credentials.\n{\"type\":[]}\n{\n" + result(``),
			check: func(is *is.I, o Outcome) { is.Equal(o.ErrKind, ErrNone) }},
		{name: "no result line is an error", lines: `{"type":"message","role":"assistant","content":"hi","delta":true}`,
			check: func(is *is.I, o Outcome) {
				is.Equal(o.ErrKind, ErrTransient)
				is.Equal(o.Err, "gemini exited with status 0 without a result")
				is.True(!o.CostKnown)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, _ := replayGemini(t, tt.c, []byte(tt.lines), tt.res, tt.stderr, now)
			tt.check(is.New(t), o)
		})
	}
}

func TestGeminiFinalMessageBounded(t *testing.T) {
	is := is.New(t)
	s := &geminiStream{}
	piece, _ := json.Marshal(map[string]any{"type": "message", "role": "assistant", "delta": true, "content": strings.Repeat("é", 100_000)})
	for range 12 {
		s.line(piece)
	}
	s.line([]byte(`{"type":"message","role":"assistant","delta":true,"content":"<promise>COMPLETE</promise>"}`))
	is.True(len(s.text) <= geminiMaxFinal)
	is.True(strings.HasSuffix(string(s.text), "<promise>COMPLETE</promise>"))
	is.True(strings.HasPrefix(string(s.text), "é")) // cut at a character boundary
}

func TestGeminiStatus(t *testing.T) {
	is := is.New(t)
	is.Equal(geminiStatus(173, ""), 429)
	is.Equal(geminiStatus(244, ""), 500)
	is.Equal(geminiStatus(247, ""), 503)
	is.Equal(geminiStatus(145, ""), 401)
	is.Equal(geminiStatus(1, ""), 0)
	is.Equal(geminiStatus(41, ""), 0)
	is.Equal(geminiStatus(1, `[API Error: x (Status: 404)]`), 404)
	is.Equal(geminiStatus(1, `[API Error: {"error":{"code":503,"message":"m"}}]`), 503)
}

func FuzzGeminiStream(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "gemini", "*.jsonl"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, 1)
	}
	f.Add([]byte(`{"type":"result","status":"success","stats":{"total_tokens":-1,"input_tokens":9223372036854775807,"input":-4,"models":{"":{}}}}`), 0)
	f.Add([]byte(`{"type":"tool_use","parameters":"x"}`+"\n"+`{"type":"message","role":"assistant","content":"\u00e9"}`), 173)
	f.Fuzz(func(t *testing.T, data []byte, exit int) {
		s := &geminiStream{dir: "/w", onActivity: func(string) {}}
		w := proc.NewLineWriter(256, s.line)
		_, _ = w.Write(data)
		w.Flush()
		o := (&gemini{cliAdapter{model: "gemini-2.5-pro", now: time.Now}}).outcome(proc.Result{ExitCode: exit}, s, string(data))
		if o.ErrKind == ErrNone && exit != 0 {
			t.Fatalf("exit %d but no error", exit)
		}
		_ = geminiStatus(exit, string(data))
	})
}

// --- against the real CLI ---------------------------------------------

// geminiEnv is an environment that points the Gemini CLI at the stub,
// with a fresh HOME holding the settings the CLI needs headless, and
// nothing of the developer's.
func geminiEnv(t *testing.T, srv *stubmodel.Server) []string {
	t.Helper()
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(stubmodel.GeminiSettings()), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"TMPDIR=" + t.TempDir(), // it writes error reports there
		"GOOGLE_GEMINI_BASE_URL=" + srv.URL,
		"GEMINI_API_KEY=stub-key",
	}
}

func TestGeminiRealCLI(t *testing.T) {
	bin := agentbin.Path(t, "gemini")
	t.Parallel()
	prices := Prices{"gemini-2.5-pro": {Input: 2, CachedInput: 0.5, Output: 8}}

	t.Run("writes a file and finishes", func(t *testing.T) {
		t.Parallel()
		is := is.New(t)
		dir := t.TempDir()
		srv := stubmodel.Gemini(t, stubmodel.Sequence(
			stubmodel.Turn{Text: "Writing the file.", ToolCalls: []stubmodel.ToolCall{{Name: "write_file",
				Args: map[string]any{"file_path": filepath.Join(dir, "hello.txt"), "content": "hello\n"}}},
				Usage: stubmodel.Usage{Input: 1000, CachedInput: 200, Output: 50}},
			stubmodel.Turn{Text: "Wrote hello.txt. <promise>COMPLETE</promise>", Usage: stubmodel.Usage{Input: 300, CachedInput: 1000, Output: 20}},
		))
		o, acts := runTokenAgent(t, Config{Name: "gemini", Bin: bin, Model: "gemini-2.5-pro", Prices: prices},
			Request{Prompt: "-- write hello.txt\n(a prompt that starts like a flag)", Dir: dir, Env: geminiEnv(t, srv)})
		is.Equal(o.Err, "")
		is.Equal(o.ErrKind, ErrNone)
		is.Equal(o.ExitCode, 0)
		is.Equal(o.FinalMessage, "Wrote hello.txt. <promise>COMPLETE</promise>")
		is.Equal(o.Steps, 1)
		is.Equal(o.Usage, Usage{Input: 1300, CachedInput: 1200, Output: 70})
		is.True(o.CostKnown)
		// $2 in, $0.50 cached, $8 out per million: 1,300 × 2 = 2,600;
		// 1,200 × 0.5 = 600; 70 × 8 = 560; 3,760 per million = $0.00376.
		is.True(costNear(o.Cost, 0.00376))
		b, err := os.ReadFile(filepath.Join(dir, "hello.txt"))
		is.NoErr(err)
		is.Equal(string(b), "hello\n")
		is.True(slices.Contains(acts, "write_file: hello.txt"))

		gens := srv.Generations(func(r stubmodel.Request) bool { return strings.Contains(r.Path, ":streamGenerateContent") })
		is.Equal(len(gens), 2)
		is.True(strings.HasPrefix(gens[0].Path, "/v1beta/models/gemini-2.5-pro:")) // --model is passed on
		is.True(bytes.Contains(gens[0].Body, []byte("a prompt that starts like a flag")))
		is.Equal(gens[0].Header.Get("X-Goog-Api-Key"), "stub-key")
		is.True(bytes.Contains(gens[1].Body, []byte(`"functionResponse"`))) // the file was written and answered
	})

	t.Run("a prompt longer than an argument may be", func(t *testing.T) {
		t.Parallel()
		is := is.New(t)
		srv := stubmodel.Gemini(t, stubmodel.Sequence(stubmodel.Turn{Text: "read it all"}))
		prompt := strings.Repeat("lorem ipsum ", 30_000) + "THE END" // 360 KB: over Linux's 128 KiB per argument
		o, _ := runTokenAgent(t, Config{Name: "gemini", Bin: bin, Model: "gemini-2.5-pro"},
			Request{Prompt: prompt, Dir: t.TempDir(), Env: geminiEnv(t, srv)})
		is.Equal(o.Err, "")
		is.Equal(o.FinalMessage, "read it all")
		gens := srv.Generations(func(r stubmodel.Request) bool { return strings.Contains(r.Path, ":streamGenerateContent") })
		is.True(bytes.Contains(gens[0].Body, []byte("lorem ipsum THE END")))
	})

	t.Run("an untrusted workspace is trusted for the run", func(t *testing.T) {
		t.Parallel()
		is := is.New(t)
		dir := t.TempDir()
		srv := stubmodel.Gemini(t, stubmodel.Sequence(
			stubmodel.Turn{ToolCalls: []stubmodel.ToolCall{{Name: "write_file",
				Args: map[string]any{"file_path": filepath.Join(dir, "hello.txt"), "content": "hi\n"}}}},
			stubmodel.Turn{Text: "Done."},
		))
		env := geminiEnv(t, srv)
		home := ""
		for _, e := range env {
			if h, ok := strings.CutPrefix(e, "HOME="); ok {
				home = h
			}
		}
		trusting := strings.Replace(stubmodel.GeminiSettings(), `"folderTrust": {"enabled": false}`, `"folderTrust": {"enabled": true}`, 1)
		is.True(trusting != stubmodel.GeminiSettings())
		is.NoErr(os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(trusting), 0o644))
		o, _ := runTokenAgent(t, Config{Name: "gemini", Bin: bin, Model: "gemini-2.5-pro"}, Request{Prompt: "write hello.txt", Dir: dir, Env: env})
		is.Equal(o.Err, "")
		b, err := os.ReadFile(filepath.Join(dir, "hello.txt"))
		is.NoErr(err)
		is.Equal(string(b), "hi\n") // --yolo held: the tool ran without asking
	})

	t.Run("inactivity ends the run", func(t *testing.T) {
		t.Parallel()
		is := is.New(t)
		release := make(chan struct{})
		srv := stubmodel.Gemini(t, func(int, stubmodel.Request) stubmodel.Turn {
			<-release // no answer while the run lasts
			return stubmodel.Turn{Status: 500}
		})
		t.Cleanup(func() { close(release) }) // before the server's Close, which waits for handlers
		o, _ := runTokenAgent(t, Config{Name: "gemini", Bin: bin, Model: "gemini-2.5-pro"},
			Request{Prompt: "hi", Dir: t.TempDir(), Env: geminiEnv(t, srv), InactivityTimeout: 10 * time.Second})
		is.True(o.Inactive)
		is.True(!o.Canceled)
		is.Equal(o.ErrKind, ErrTransient)
		is.True(strings.Contains(o.Err, "inactivity"))
	})

	errorCases := []struct {
		name   string
		turn   stubmodel.Turn
		kind   ErrorKind
		errHas string
		reset  bool
	}{
		{name: "500", turn: stubmodel.Turn{Status: 500}, kind: ErrOutage, errHas: "internal error"},
		{name: "401", turn: stubmodel.Turn{Status: 401}, kind: ErrFatal, errHas: "UNAUTHENTICATED"},
		{name: "404 model", turn: stubmodel.Turn{Status: 404}, kind: ErrFatal, errHas: "not found"},
		{name: "daily quota", turn: stubmodel.Turn{Status: 429}, kind: ErrUsageLimit, errHas: "daily quota", reset: true}, // midnight Pacific
		{name: "quota with retry", turn: stubmodel.Turn{Status: 429,
			ErrorBody: stubmodel.GeminiQuotaBody("GenerateRequestsPerMinutePerProjectPerModel-FreeTier", "37s")},
			kind: ErrUsageLimit, errHas: "quota", reset: true},
	}
	for _, tt := range errorCases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			is := is.New(t)
			srv := stubmodel.Gemini(t, stubmodel.Sequence(tt.turn))
			start := time.Now()
			o, _ := runTokenAgent(t, Config{Name: "gemini", Bin: bin, Model: "gemini-2.5-pro", Prices: prices},
				Request{Prompt: "hi", Dir: t.TempDir(), Env: geminiEnv(t, srv)})
			is.True(time.Since(start) < 90*time.Second) // the run ends promptly: no retries for minutes
			is.Equal(o.ErrKind, tt.kind)
			isText(is, o.Err, tt.errHas) // error text
			is.True(o.ExitCode != 0)
			is.Equal(!o.ResetAt.IsZero(), tt.reset)
			if tt.reset {
				is.True(o.ResetAt.After(start.Add(30 * time.Second)))
			}
			is.True(o.CostKnown)
			is.Equal(o.Cost, 0.0)
			if tt.kind == ErrFatal {
				is.True(o.Hint != "")
			}
		})
	}
}

func TestGeminiFileOut(t *testing.T) {
	is := is.New(t)
	var got bytes.Buffer
	out, err := newFileOut("architect-test-*", &got, 0)
	is.NoErr(err)
	defer out.remove()
	stop := out.follow(func() { t.Error("no inactivity timeout set") })
	big := strings.Repeat("x", 100_000) + "\n"
	for range 5 {
		_, err := out.file.WriteString(big)
		is.NoErr(err)
	}
	_, err = out.file.WriteString(`{"type":"result"}`) // written just before the end
	is.NoErr(err)
	is.True(!stop())                                                   // not inactive
	is.Equal(got.String(), strings.Repeat(big, 5)+`{"type":"result"}`) // all of it, in order

	name := out.file.Name()
	out.remove()
	_, err = os.Stat(name)
	is.True(os.IsNotExist(err)) // removed

	out, err = newFileOut("architect-test-*", io.Discard, 100*time.Millisecond)
	is.NoErr(err)
	defer out.remove()
	fired := make(chan struct{})
	stop = out.follow(func() { close(fired) })
	select {
	case <-fired:
	case <-time.After(10 * time.Second):
		t.Fatal("the inactivity timeout did not fire")
	}
	is.True(stop())
}

func TestGeminiNotInstalled(t *testing.T) {
	is := is.New(t)
	o, _ := runTokenAgent(t, Config{Name: "gemini", Bin: filepath.Join(t.TempDir(), "gemini")}, Request{Prompt: "hi", Dir: t.TempDir()})
	is.Equal(o.ErrKind, ErrFatal)
	is.Equal(o.Hint, geminiInstallHint)
}

// The Gemini CLI retries a failing request on its own, saying so on
// stderr: each retry is shown as activity.
func TestGeminiRetryIsActivity(t *testing.T) {
	is := is.New(t)
	var acts []string
	s := &geminiStream{onActivity: func(m string) { acts = append(acts, m) }}
	w := proc.NewLineWriter(4096, s.stderrLine)
	_, _ = w.Write(testdata(t, "gemini", "retry-500.stderr"))
	w.Flush()
	is.Equal(acts, []string{"API error 500, retrying (attempt 1)", "API error 500, retrying (attempt 2)"})
}
