package agent

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/proc"
)

func TestAiderCommandLine(t *testing.T) {
	is := is.New(t)
	base := []string{"--message-file", "/p.md", "--yes-always", "--no-auto-commits", "--no-dirty-commits", "--no-gitignore",
		"--no-pretty", "--no-stream", "--no-check-update", "--no-show-release-notes",
		"--no-analytics", "--no-show-model-warnings", "--no-detect-urls", "--llm-history-file", "/t/llm-history.txt",
		"--chat-history-file", "/t/chat-history.md", "--input-history-file", "/t/input-history"}
	is.Equal(aiderArgs("/p.md", "/t", "", nil), base)
	is.Equal(aiderArgs("/p.md", "/t", "sonnet", []string{"--edit-format", "diff"}),
		append(append([]string(nil), base...), "--model", "sonnet", "--edit-format", "diff"))
	a, err := New(Config{Name: "aider"})
	is.NoErr(err)
	is.Equal(a.Name(), "aider")
	is.Equal(a.(*aider).bin, "aider")
	_, ok := a.(PriceChecker)
	is.True(!ok) // aider prices its runs itself
}

func replayAider(t *testing.T, a *aider, stdout []byte, history string, res proc.Result, stderr string) (Outcome, []string) {
	t.Helper()
	var acts []string
	s := &aiderStream{onActivity: func(m string) { acts = append(acts, m) }}
	w := proc.NewLineWriter(aiderMaxLine, s.line)
	_, _ = w.Write(stdout)
	w.Flush()
	s.end()
	var h aiderHistory
	if history != "" {
		h = readAiderHistory(filepath.Join("testdata", "aider", history))
	}
	return a.outcome(res, s, h, stderr), acts
}

func TestAiderOutput(t *testing.T) {
	now := time.Date(2026, 11, 22, 7, 40, 0, 0, time.UTC)
	tests := []struct {
		file, history, stderrFile string
		model                     string
		exit                      int
		want
	}{
		{file: "success.stdout", history: "success.history",
			want: want{final: "I fixed the lint error. <promise>COMPLETE</promise>", steps: 2, usage: Usage{Input: 9700, CachedInput: 4500, Output: 213}, cost: 0.03, costKnown: true}},
		{file: "tool-output-mentions-limits.stdout",
			want: want{steps: 1, usage: Usage{Input: 12000, CachedInput: 1200000, Output: 310}, cost: 0.31, costKnown: true}},
		{file: "no-cost.stdout",
			want: want{steps: 1, usage: Usage{Input: 2100, Output: 95}}},
		// gpt-5: $1.25 in, $10 out per million: 2,100 × 1.25 = 2,625;
		// 95 × 10 = 950; 3,575 per million = $0.003575.
		{file: "no-cost.stdout", model: "gpt-5",
			want: want{steps: 1, usage: Usage{Input: 2100, Output: 95}, costKnown: true, cost: 0.003575}},
		{file: "wrapped.stdout",
			want: want{steps: 1, usage: Usage{Input: 216000, Output: 1400}, cost: 0.79, costKnown: true}},
		{file: "error-auth.stdout",
			want: want{kind: ErrFatal, costKnown: true, err: "AuthenticationError: AnthropicException", hint: "API key"}},
		{file: "error-rate-limit.stdout",
			want: want{kind: ErrUsageLimit, steps: 1, usage: Usage{Input: 114000, Output: 92}, cost: 0.34, costKnown: true, err: "rate limited you"}},
		{file: "error-rate-limit-recovered.stdout",
			want: want{steps: 1, usage: Usage{Input: 915000, Output: 94}, cost: 2.75, costKnown: true}},
		{file: "error-model.stdout",
			want: want{kind: ErrFatal, costKnown: true, err: "not_found_error", hint: "--model"}},
		{file: "error-no-provider.stdout",
			want: want{kind: ErrFatal, costKnown: true, err: "LLM Provider NOT provided", hint: "--model"}},
		{file: "error-overloaded.stdout",
			want: want{kind: ErrOutage, costKnown: true, err: "overloaded"}},
		// Captured from aider 0.86.2 against a local server (SOURCE.md).
		{file: "real-success.stdout", history: "real-success.history",
			want: want{final: "calc.go\n```go\n// Package calc does arithmetic.\npackage calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n```\nDone. <promise>COMPLETE</promise>", steps: 1, usage: Usage{Input: 1200, Output: 56}, cost: 0.0029, costKnown: true}},
		{file: "real-auth.stdout",
			want: want{kind: ErrFatal, costKnown: true, err: "AuthenticationError: OpenAIException - Incorrect API key", hint: "API key"}},
		{file: "real-rate-limit.stdout",
			want: want{kind: ErrUsageLimit, costKnown: true, err: "RateLimitError"}},
		{file: "real-context-window.stdout",
			want: want{kind: ErrFatal, steps: 1, usage: Usage{Input: 605}, cost: 0.0012, costKnown: true, err: "token limit (Input tokens: ~619 of 500 -- possibly exhausted context window!", hint: "context window"}},
		{file: "real-output-limit.stdout",
			want: want{kind: ErrTransient, err: "token limit (Input tokens: ~1,814 of 8,192; Output tokens: ~1,205 of 2,048", costKnown: true}},
		{stderrFile: "unknown-argument.stderr", exit: 2,
			want: want{kind: ErrFatal, costKnown: true, err: "unrecognized arguments", hint: "--agent-arg"}},
	}
	for _, tt := range tests {
		t.Run(tt.file+tt.stderrFile+tt.model, func(t *testing.T) {
			is := is.New(t)
			var stdout []byte
			var stderr string
			if tt.file != "" {
				stdout = testdata(t, "aider", tt.file)
			}
			if tt.stderrFile != "" {
				stderr = string(testdata(t, "aider", tt.stderrFile))
			}
			a := &aider{cliAdapter{model: tt.model, now: func() time.Time { return now }}}
			o, _ := replayAider(t, a, stdout, tt.history, proc.Result{ExitCode: tt.exit}, stderr)
			tt.want.check(is, o)
		})
	}
}

func TestAiderActivity(t *testing.T) {
	is := is.New(t)
	_, acts := replayAider(t, &aider{cliAdapter{now: time.Now}}, testdata(t, "aider", "success.stdout"), "", proc.Result{}, "")
	is.Equal(acts, []string{
		"tokens: 4.6k sent, 173 received, $0.02 so far",
		"edited hello.py",
		"tokens: 5.1k sent, 40 received, $0.03 so far",
		"edited hello.py",
	})
}

func TestAiderTokens(t *testing.T) {
	is := is.NewRelaxed(t)
	for in, want := range map[string]int64{"245": 245, "1,234": 1234, "3.1k": 3100, "12k": 12000, "1.2M": 1200000, "": 0, "x": 0, "1e999k": 0} {
		is.Equal(aiderTokens(in), want) // aiderTokens
	}
}

func TestAiderHistoryBounded(t *testing.T) {
	is := is.New(t)
	p := filepath.Join(t.TempDir(), "h")
	var b bytes.Buffer
	b.WriteString("TO LLM 2026-11-22T07:30:00\nUSER " + strings.Repeat("y", 3*aiderMaxLine) + "\n")
	b.WriteString("LLM RESPONSE 2026-11-22T07:30:05\n")
	for range 40 {
		b.WriteString("ASSISTANT " + strings.Repeat("z", aiderMaxLine-100) + "\n")
	}
	is.NoErr(os.WriteFile(p, b.Bytes(), 0o600))
	h := readAiderHistory(p)
	is.Equal(h.responses, 1)
	is.True(len(h.last) <= aiderMaxFinal)
	is.True(len(h.last) > aiderMaxFinal/2)
}

func TestAiderFakeExecutable(t *testing.T) {
	is := is.New(t)
	history, err := filepath.Abs(filepath.Join("testdata", "aider", "success.history"))
	is.NoErr(err)
	f := newFakeAgent(t, testdata(t, "aider", "success.stdout"), nil, 0, history)
	a, err := New(Config{Name: "aider", Bin: f.bin, Model: "anthropic/claude-sonnet-4-5", Args: []string{"--map-tokens", "2048"}})
	is.NoErr(err)
	var acts []string
	req := fakeRequest(t, "Create hello.py.\n", &acts)
	req.PromptFile = filepath.Join(t.TempDir(), "iteration-3.md")
	is.NoErr(os.WriteFile(req.PromptFile, []byte(req.Prompt), 0o600))
	o := a.Run(context.Background(), req)
	is.Equal(o.ErrKind, ErrNone)
	is.Equal(o.FinalMessage, "I fixed the lint error. <promise>COMPLETE</promise>")
	is.Equal(o.Steps, 2)
	is.True(o.CostKnown)
	is.True(near(o.Cost, 0.03))
	argv := f.argv(t)
	is.Equal(len(argv), 23)
	hist := argv[14]
	tmp := filepath.Dir(hist)
	is.True(strings.HasPrefix(hist, os.TempDir())) // the histories go to a temporary folder
	is.Equal(argv, []string{"--message-file", req.PromptFile, "--yes-always", "--no-auto-commits", "--no-dirty-commits", "--no-gitignore",
		"--no-pretty", "--no-stream", "--no-check-update", "--no-show-release-notes",
		"--no-analytics", "--no-show-model-warnings", "--no-detect-urls", "--llm-history-file", hist,
		"--chat-history-file", filepath.Join(tmp, "chat-history.md"), "--input-history-file", filepath.Join(tmp, "input-history"),
		"--model", "anthropic/claude-sonnet-4-5", "--map-tokens", "2048"})
	_, err = os.Stat(hist)
	is.True(os.IsNotExist(err)) // and is removed afterwards
	path, data := f.stdin(t)
	is.Equal(path, "/dev/null") // the prompt goes in the message file, stdin is /dev/null
	is.Equal(data, "")

	// Without a prompt file, architect writes one.
	f = newFakeAgent(t, testdata(t, "aider", "error-auth.stdout"), nil, 0, "")
	a, _ = New(Config{Name: "aider", Bin: f.bin})
	o = a.Run(context.Background(), fakeRequest(t, "x", &acts))
	is.Equal(o.ExitCode, 0)
	is.Equal(o.ErrKind, ErrFatal) // aider exits 0 after an API error
	is.True(strings.HasSuffix(f.argv(t)[1], "prompt.md"))
}

func FuzzAiderParser(f *testing.F) {
	for _, name := range []string{"success.stdout", "error-rate-limit.stdout", "wrapped.stdout", "success.history"} {
		b, err := os.ReadFile(filepath.Join("testdata", "aider", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, 0)
	}
	f.Add([]byte("Tokens: 1k sent, 2k received.\nCost: $1.00 message, $2.00 session.\nTokens: 9e9999k sent, 1 received.\n"), 0)
	f.Fuzz(func(t *testing.T, stdout []byte, exit int) {
		s := &aiderStream{onActivity: func(string) {}}
		w := proc.NewLineWriter(4096, s.line)
		_, _ = w.Write(stdout)
		w.Flush()
		s.end()
		p := filepath.Join(t.TempDir(), "h")
		if err := os.WriteFile(p, stdout, 0o600); err != nil {
			t.Fatal(err)
		}
		h := readAiderHistory(p)
		a := &aider{cliAdapter{now: time.Now, model: "gpt-5"}}
		_ = a.outcome(proc.Result{ExitCode: exit % 256}, s, h, string(stdout))
	})
}

// TestAiderTagsCacheRemoved: aider writes its repository map's cache into
// the workspace whatever its flags say; the one a run made is removed after
// it, one that was there before is kept.
func TestAiderTagsCacheRemoved(t *testing.T) {
	is := is.New(t)
	bin := filepath.Join(t.TempDir(), "aider")
	is.NoErr(os.WriteFile(bin, []byte("#!/bin/sh\nmkdir -p .aider.tags.cache.v4 .aider.tags.cache.v3 && echo x > .aider.tags.cache.v4/cache.db && echo ok > made.txt\n"), 0o755))
	var acts []string
	req := fakeRequest(t, "x", &acts)
	is.NoErr(os.Mkdir(filepath.Join(req.Dir, ".aider.tags.cache.v3"), 0o755)) // the user's
	a, err := New(Config{Name: "aider", Bin: bin})
	is.NoErr(err)
	o := a.Run(context.Background(), req)
	is.Equal(o.ErrKind, ErrNone)
	_, err = os.Stat(filepath.Join(req.Dir, "made.txt"))
	is.NoErr(err) // the run's work stays
	_, err = os.Stat(filepath.Join(req.Dir, ".aider.tags.cache.v4"))
	is.True(os.IsNotExist(err)) // the cache it made is gone
	_, err = os.Stat(filepath.Join(req.Dir, ".aider.tags.cache.v3"))
	is.NoErr(err) // the one that was there is kept
}
