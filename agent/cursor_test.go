package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/proc"
)

func TestCursorCommandLine(t *testing.T) {
	is := is.New(t)
	is.Equal(cursorArgs("", nil), []string{"-p", "--output-format", "stream-json", "--force", "--trust"})
	is.Equal(cursorArgs("sonnet-4.5", []string{"--approve-mcps"}),
		[]string{"-p", "--output-format", "stream-json", "--force", "--trust", "--model", "sonnet-4.5", "--approve-mcps"})
	a, err := New(Config{Name: "cursor"})
	is.NoErr(err)
	is.Equal(a.Name(), "cursor")
	is.Equal(a.(*cursor).bin, "cursor-agent")

	pc := a.(PriceChecker)
	is.True(pc.CheckPrices() != nil) // auto has no price
	a, _ = New(Config{Name: "cursor", Model: "composer-2.5"})
	is.True(a.(PriceChecker).CheckPrices() != nil)
	a, _ = New(Config{Name: "cursor", Model: "composer-2.5", Prices: Prices{"composer-2.5": {Input: 1, Output: 2}}})
	is.NoErr(a.(PriceChecker).CheckPrices())
	a, _ = New(Config{Name: "cursor", Model: "claude-4.6-sonnet-medium-thinking"})
	is.NoErr(a.(PriceChecker).CheckPrices())
}

func TestCursorPriceModel(t *testing.T) {
	is := is.NewRelaxed(t)
	for in, want := range map[string]string{
		"sonnet-4.5":                        "claude-sonnet-4-5",
		"sonnet-4.5-thinking":               "claude-sonnet-4-5",
		"opus-4.5":                          "claude-opus-4-5",
		"claude-4.6-sonnet-medium-thinking": "claude-sonnet-4-6",
		"claude-4.6-opus-high-thinking":     "claude-opus-4-6",
		"claude-opus-4-7-xhigh":             "claude-opus-4-7",
		"claude-opus-4-8[context=1m]":       "claude-opus-4-8",
		"claude-4-sonnet":                   "claude-sonnet-4",
		"gpt-5.3-codex-high":                "gpt-5.3-codex",
		"gpt-5.5-extra-high":                "gpt-5.5",
		"gpt-5.3-codex-high-fast":           "gpt-5.3-codex-high-fast", // fast costs more: no price
		"composer-2.5":                      "composer-2.5",
		"auto":                              "auto",
	} {
		is.Equal(cursorPriceModel(in), want) // cursorPriceModel
	}
}

func replayCursor(t *testing.T, a *cursor, stdout []byte, res proc.Result, stderr string) (Outcome, []string) {
	t.Helper()
	var acts []string
	s := &cursorStream{dir: "/private/tmp/cursor-research", onActivity: func(m string) { acts = append(acts, m) }}
	w := proc.NewLineWriter(claudeMaxLine, s.line)
	_, _ = w.Write(stdout)
	w.Flush()
	return a.outcome(res, s, stderr), acts
}

func TestCursorOutput(t *testing.T) {
	now := time.Date(2025, 11, 1, 7, 40, 0, 0, time.Local)
	tests := []struct {
		file, stderrFile string
		model            string
		exit             int
		want
	}{
		// claude-sonnet-4-5: $3 in, $0.30 cached, $15 out per million: 22,446 × 3 = 67,338;
		// 2,432 × 0.3 = 729.6; 44 × 15 = 660; 68,727.6 per million = $0.0687276.
		{file: "success.jsonl", model: "sonnet-4.5",
			want: want{final: "It prints `hello world`. <promise>COMPLETE</promise>", steps: 3, usage: Usage{Input: 22446, CachedInput: 2432, Output: 44}, costKnown: true, cost: 0.0687276}},
		{file: "success.jsonl",
			want: want{final: "It prints `hello world`. <promise>COMPLETE</promise>", steps: 3, usage: Usage{Input: 22446, CachedInput: 2432, Output: 44}}}, // no --model: unknown, not $0
		{file: "success-no-usage.jsonl", model: "sonnet-4.5",
			want: want{final: "It prints `hello world`.", steps: 1}},
		{file: "tool-output-mentions-limits.jsonl",
			want: want{final: "The tests print scary text but pass.", steps: 1, usage: Usage{Input: 1000, Output: 20}}},
		{file: "error-result.jsonl", exit: 1,
			want: want{kind: ErrTransient, err: "denied"}},
		{stderrFile: "not-logged-in.stderr", exit: 1,
			want: want{kind: ErrFatal, err: "Authentication required", hint: "CURSOR_API_KEY"}},
		{stderrFile: "api-key-rejected.stderr", exit: 1,
			want: want{kind: ErrFatal, err: "API key is invalid", hint: "CURSOR_API_KEY"}},
		{stderrFile: "usage-limit.stderr", exit: 1,
			want: want{kind: ErrUsageLimit, err: "usage limit", resetAt: time.Date(2025, 11, 17, 0, 0, 0, 0, time.Local)}},
		{stderrFile: "bad-model.stderr", exit: 1,
			want: want{kind: ErrFatal, err: "Cannot use this model: opus-4.1", hint: "--list-models"}},
		{stderrFile: "workspace-trust.stderr", exit: 0,
			want: want{kind: ErrFatal, err: "Workspace Trust", hint: "--trust"}},
	}
	for _, tt := range tests {
		t.Run(tt.file+tt.stderrFile, func(t *testing.T) {
			is := is.New(t)
			var stdout []byte
			var stderr string
			if tt.file != "" {
				stdout = testdata(t, "cursor", tt.file)
			}
			if tt.stderrFile != "" {
				stderr = proc.Clean(testdata(t, "cursor", tt.stderrFile))
			}
			a := &cursor{cliAdapter{model: tt.model, now: func() time.Time { return now }}}
			o, _ := replayCursor(t, a, stdout, proc.Result{ExitCode: tt.exit}, stderr)
			tt.want.check(is, o)
		})
	}
}

func TestCursorActivity(t *testing.T) {
	is := is.New(t)
	_, acts := replayCursor(t, &cursor{cliAdapter{now: time.Now}}, testdata(t, "cursor", "success.jsonl"), proc.Result{}, "")
	is.Equal(acts, []string{
		"session started, model Claude Sonnet 5 300K High",
		"glob **/hello.py",
		"I'll add the comment.",
		"edit hello.py",
		"shell python3 /private/tmp/cursor-research/hello.py",
		"It prints `hello world`. <promise>COMPLETE</promise>",
		"done after 3 tool calls",
	})
}

func TestCursorFakeExecutable(t *testing.T) {
	is := is.New(t)
	f := newFakeAgent(t, testdata(t, "cursor", "success.jsonl"), nil, 0, "")
	a, err := New(Config{Name: "cursor", Bin: f.bin, Model: "sonnet-4.5", Args: []string{"--approve-mcps"}})
	is.NoErr(err)
	var acts []string
	o := a.Run(context.Background(), fakeRequest(t, "Add a comment.\n", &acts))
	is.Equal(o.ErrKind, ErrNone)
	is.Equal(o.FinalMessage, "It prints `hello world`. <promise>COMPLETE</promise>")
	is.True(o.CostKnown)
	is.Equal(f.argv(t), []string{"-p", "--output-format", "stream-json", "--force", "--trust", "--model", "sonnet-4.5", "--approve-mcps"})
	path, data := f.stdin(t)
	is.True(strings.HasPrefix(path, "pipe:"))
	is.Equal(data, "Add a comment.\n")
	is.Equal(len(acts), 7)

	f = newFakeAgent(t, nil, testdata(t, "cursor", "usage-limit.stderr"), 1, "")
	a, _ = New(Config{Name: "cursor", Bin: f.bin})
	o = a.Run(context.Background(), fakeRequest(t, "x", &acts))
	is.Equal(o.ExitCode, 1)
	is.Equal(o.ErrKind, ErrUsageLimit)
	is.True(!o.CostKnown)
}

func FuzzCursorParser(f *testing.F) {
	for _, name := range []string{"success.jsonl", "success-no-usage.jsonl", "error-result.jsonl", "usage-limit.stderr", "workspace-trust.stderr"} {
		b, err := os.ReadFile(filepath.Join("testdata", "cursor", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, string(b), 1)
	}
	f.Fuzz(func(t *testing.T, stdout []byte, stderr string, exit int) {
		s := &cursorStream{dir: "/w", onActivity: func(string) {}}
		w := proc.NewLineWriter(4096, s.line)
		_, _ = w.Write(stdout)
		w.Flush()
		a := &cursor{cliAdapter{now: time.Now, model: "sonnet-4.5"}}
		_ = a.outcome(proc.Result{ExitCode: exit % 256}, s, stderr)
		_ = cursorPriceModel(stderr)
	})
}
