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

func TestAmpCommandLine(t *testing.T) {
	is := is.New(t)
	is.Equal(ampArgs("", nil), []string{"--execute", "--stream-json", "--dangerously-allow-all"})
	is.Equal(ampArgs("rush", []string{"--no-ide"}), []string{"--execute", "--stream-json", "--dangerously-allow-all", "--mode", "rush", "--no-ide"})
	a, err := New(Config{Name: "amp"})
	is.NoErr(err)
	is.Equal(a.Name(), "amp")
	is.Equal(a.(*amp).bin, "amp")

	pc, ok := a.(PriceChecker)
	is.True(ok)
	is.True(pc.CheckPrices() != nil) // no price for Amp's tokens
	a, _ = New(Config{Name: "amp", Prices: Prices{"amp": {Input: 3, CachedInput: 0.3, Output: 15}}})
	is.NoErr(a.(PriceChecker).CheckPrices())
}

func replayAmp(t *testing.T, a *amp, stdout []byte, res proc.Result, stderr string) (Outcome, []string) {
	t.Helper()
	var acts []string
	s := newAmpStream("/work/repo", func(m string) { acts = append(acts, m) })
	w := proc.NewLineWriter(claudeMaxLine, s.line)
	_, _ = w.Write(stdout)
	w.Flush()
	return a.outcome(res, s, stderr), acts
}

func TestAmpOutput(t *testing.T) {
	now := time.Date(2026, 11, 22, 7, 40, 0, 0, time.UTC)
	priced := Prices{"amp": {Input: 5, CachedInput: 0.5, Output: 25}}
	tests := []struct {
		file, stdoutFile, stderrFile string
		prices                       Prices
		exit                         int
		want
	}{
		{file: "success.jsonl",
			want: want{final: "Created hello.txt. <promise>COMPLETE</promise>", steps: 2, usage: Usage{Input: 17833, CachedInput: 42096, Output: 50}}},
		// Worked by hand from the prices (USD per million tokens):
		// 17,833 × $5 = $89,165; 42,096 × $0.50 = $21,048; 50 × $25 = $1,250;
		// $111,463 per million = $0.111463.
		{file: "success.jsonl", prices: priced,
			want: want{final: "Created hello.txt. <promise>COMPLETE</promise>", steps: 2, usage: Usage{Input: 17833, CachedInput: 42096, Output: 50}, costKnown: true, cost: 0.111463}},
		{file: "tool-output-mentions-limits.jsonl",
			want: want{final: "The tests print scary text but pass.", steps: 2, usage: Usage{Input: 2100, Output: 30}}},
		{file: "error-out-of-credits.jsonl", exit: 1,
			want: want{kind: ErrUsageLimit, costKnown: true, err: "Out of free credits", hint: "credits"}},
		{file: "error-server.jsonl", exit: 1,
			want: want{kind: ErrOutage, steps: 1, usage: Usage{Input: 500, Output: 5}, err: "overloaded_error"}},
		{stdoutFile: "no-api-key.stdout", stderrFile: "no-api-key.stderr", exit: 1,
			want: want{kind: ErrFatal, costKnown: true, err: "Login failed", hint: "AMP_API_KEY"}},
		{stderrFile: "connection-refused.stderr", exit: 1,
			want: want{kind: ErrOutage, costKnown: true, err: "Couldn't connect to the Amp server"}},
		{stderrFile: "unknown-option.stderr", exit: 1,
			want: want{kind: ErrFatal, costKnown: true, err: "unknown option '--bogus-flag'", hint: "--agent-arg"}},
	}
	for _, tt := range tests {
		t.Run(tt.file+tt.stdoutFile+tt.stderrFile, func(t *testing.T) {
			is := is.New(t)
			var stdout []byte
			var stderr string
			switch {
			case tt.file != "":
				stdout = testdata(t, "amp", tt.file)
			case tt.stdoutFile != "":
				stdout = testdata(t, "amp", tt.stdoutFile)
			}
			if tt.stderrFile != "" {
				stderr = string(testdata(t, "amp", tt.stderrFile))
			}
			a := &amp{cliAdapter{prices: tt.prices, now: func() time.Time { return now }}}
			o, _ := replayAmp(t, a, stdout, proc.Result{ExitCode: tt.exit}, stderr)
			tt.want.check(is, o)
		})
	}
}

func TestAmpCostFromStream(t *testing.T) {
	is := is.New(t)
	// When Amp names the model, or reports a cost, they are used.
	withModel := `{"type":"assistant","message":{"id":"m1","model":"claude-sonnet-4-5","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":1000,"output_tokens":100}}}
{"type":"assistant","message":{"id":"m1","model":"claude-sonnet-4-5","content":[{"type":"tool_use","name":"Bash","input":{"cmd":"ls"}}],"usage":{"input_tokens":1000,"output_tokens":100}}}
{"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":"hi"}
`
	o, _ := replayAmp(t, &amp{cliAdapter{now: time.Now}}, []byte(withModel), proc.Result{}, "")
	is.Equal(o.Usage, Usage{Input: 1000, Output: 100}) // one message over two lines, counted once
	is.True(o.CostKnown)
	// claude-sonnet-4-5 in the built-in table: $3 in, $15 out per million:
	// 1,000 × $3 = $3,000; 100 × $15 = $1,500; $4,500 per million = $0.0045.
	is.True(near(o.Cost, 0.0045))
	withCost := strings.Replace(withModel, `"result":"hi"`, `"result":"hi","total_cost_usd":0.5`, 1)
	o, _ = replayAmp(t, &amp{cliAdapter{now: time.Now}}, []byte(withCost), proc.Result{}, "")
	is.True(o.CostKnown)
	is.Equal(o.Cost, 0.5)
}

func TestAmpActivity(t *testing.T) {
	is := is.New(t)
	_, acts := replayAmp(t, &amp{cliAdapter{now: time.Now}}, testdata(t, "amp", "success.jsonl"), proc.Result{}, "")
	is.Equal(acts, []string{"create_file hello.txt", "I'll create the file.", "Created hello.txt. <promise>COMPLETE</promise>", "done after 2 turns"})
}

func TestAmpFakeExecutable(t *testing.T) {
	is := is.New(t)
	f := newFakeAgent(t, testdata(t, "amp", "success.jsonl"), nil, 0, "")
	a, err := New(Config{Name: "amp", Bin: f.bin, Model: "smart", Args: []string{"--no-ide"},
		Prices: Prices{"amp": {Input: 5, CachedInput: 0.5, Output: 25}}})
	is.NoErr(err)
	var acts []string
	o := a.Run(context.Background(), fakeRequest(t, "Create hello.txt.\n", &acts))
	is.Equal(o.ErrKind, ErrNone)
	is.Equal(o.FinalMessage, "Created hello.txt. <promise>COMPLETE</promise>")
	is.Equal(o.Steps, 2)
	is.True(o.CostKnown)
	is.Equal(f.argv(t), []string{"--execute", "--stream-json", "--dangerously-allow-all", "--mode", "smart", "--no-ide"})
	path, data := f.stdin(t)
	is.True(strings.HasPrefix(path, "pipe:"))
	is.Equal(data, "Create hello.txt.\n")
	is.Equal(len(acts), 4)

	f = newFakeAgent(t, testdata(t, "amp", "no-api-key.stdout"), testdata(t, "amp", "no-api-key.stderr"), 1, "")
	a, _ = New(Config{Name: "amp", Bin: f.bin})
	o = a.Run(context.Background(), fakeRequest(t, "x", &acts))
	is.Equal(o.ExitCode, 1)
	is.Equal(o.ErrKind, ErrFatal)
	is.True(strings.Contains(o.Hint, "AMP_API_KEY"))
}

func FuzzAmpParser(f *testing.F) {
	for _, name := range []string{"success.jsonl", "error-out-of-credits.jsonl", "error-server.jsonl", "no-api-key.stdout"} {
		b, err := os.ReadFile(filepath.Join("testdata", "amp", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, "", 1)
	}
	f.Fuzz(func(t *testing.T, stdout []byte, stderr string, exit int) {
		s := newAmpStream("/w", func(string) {})
		w := proc.NewLineWriter(4096, s.line)
		_, _ = w.Write(stdout)
		w.Flush()
		a := &amp{cliAdapter{now: time.Now, prices: Prices{"amp": {Input: 1}}}}
		_ = a.outcome(proc.Result{ExitCode: exit % 256}, s, stderr)
	})
}
