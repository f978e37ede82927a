package agent

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/proc"
)

// fakeAgent is an executable written by a test that stands for an agent
// CLI: it records its arguments, what its stdin is and what came on it,
// prints the given stdout and stderr and exits with the given code.
type fakeAgent struct {
	dir string // where it keeps its records
	bin string // the executable
}

// newFakeAgent writes the fake. When history is not "", the fake copies it
// to the file named after --llm-history-file, as aider writes its LLM
// history there.
func newFakeAgent(t *testing.T, stdout, stderr []byte, exit int, history string) *fakeAgent {
	t.Helper()
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	out := write("out", stdout)
	errf := write("err", stderr)
	script := "#!/bin/sh\n" +
		`for a in "$@"; do printf '%s\0' "$a"; done > '` + dir + `/argv'` + "\n" +
		`readlink /proc/$$/fd/0 > '` + dir + `/stdin-path'` + "\n" +
		`cat > '` + dir + `/stdin'` + "\n"
	if history != "" {
		script += `prev=; for a in "$@"; do [ "$prev" = --llm-history-file ] && cp '` + history + `' "$a"; prev=$a; done` + "\n"
	}
	script += "cat '" + out + "'\ncat '" + errf + "' >&2\nexit " + strconv.Itoa(exit) + "\n"
	bin := filepath.Join(dir, "fake-agent")
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return &fakeAgent{dir: dir, bin: bin}
}

// argv returns the arguments the fake was given.
func (f *fakeAgent) argv(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(f.dir, "argv"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
}

// stdin returns what the fake's stdin was (a path such as /dev/null, or
// pipe:[…]) and what it read from it.
func (f *fakeAgent) stdin(t *testing.T) (path, data string) {
	t.Helper()
	p, err := os.ReadFile(filepath.Join(f.dir, "stdin-path"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := os.ReadFile(filepath.Join(f.dir, "stdin"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(p)), string(d)
}

// fakeRequest is a Request for a run of a fake agent in a fresh workspace.
func fakeRequest(t *testing.T, prompt string, acts *[]string) Request {
	t.Helper()
	dir := t.TempDir()
	return Request{
		Prompt:     prompt,
		Dir:        dir,
		Iteration:  3,
		Env:        append(os.Environ(), "HOME="+t.TempDir()),
		Timeout:    time.Minute,
		OnActivity: func(s string) { *acts = append(*acts, s) },
	}
}

func testdata(t *testing.T, agent, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", agent, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// near reports whether a and b are equal to within a millionth of a dollar.
func near(a, b float64) bool { return a-b < 1e-6 && b-a < 1e-6 }

func TestOpencodeCommandLine(t *testing.T) {
	is := is.New(t)
	is.Equal(opencodeArgs("", 1, nil), []string{"run", "--format", "json", "--auto",
		"--title", "architect iteration 1", "--print-logs", "--log-level", "ERROR"})
	is.Equal(opencodeArgs("anthropic/claude-sonnet-4-5", 7, []string{"--agent", "build"}), []string{"run", "--format", "json", "--auto",
		"--title", "architect iteration 7", "--print-logs", "--log-level", "ERROR",
		"--model", "anthropic/claude-sonnet-4-5", "--agent", "build"})

	a, err := New(Config{Name: "opencode"})
	is.NoErr(err)
	is.Equal(a.Name(), "opencode")
	is.Equal(a.(*opencode).bin, "opencode")
	a, err = New(Config{Name: "opencode", Bin: "/opt/oc", Model: "openai/gpt-5"})
	is.NoErr(err)
	is.Equal(a.(*opencode).bin, "/opt/oc")
	is.Equal(a.(*opencode).model, "openai/gpt-5")
	_, ok := a.(PriceChecker)
	is.True(!ok) // opencode prices its runs itself
}

// replayOpencode feeds captured output to the parser as proc would.
func replayOpencode(t *testing.T, a *opencode, stdout, stderr []byte, res proc.Result) (Outcome, []string) {
	t.Helper()
	var acts []string
	s := &opencodeStream{dir: "/tmp/oc/ws", onActivity: func(m string) { acts = append(acts, m) }}
	logs := &opencodeLog{}
	w := proc.NewLineWriter(opencodeMaxLine, s.line)
	_, _ = w.Write(stdout)
	w.Flush()
	lw := proc.NewLineWriter(4096, logs.line)
	_, _ = lw.Write(stderr)
	lw.Flush()
	return a.outcome(res, s, logs, proc.Clean(stderr)), acts
}

func TestOpencodeCapturedOutput(t *testing.T) {
	now := time.Date(2026, 11, 22, 7, 40, 0, 0, time.UTC)
	tests := []struct {
		file, stderr string
		exit         int
		want
	}{
		{file: "success.jsonl",
			want: want{final: "Created hello.txt. <promise>COMPLETE</promise>", steps: 2, usage: Usage{Input: 2401, CachedInput: 1600, Output: 81}, cost: 0.008898, costKnown: true}},
		{file: "tool-output-mentions-limits.jsonl",
			want: want{final: "Created hello.txt. <promise>COMPLETE</promise>", steps: 2, usage: Usage{Input: 2401, CachedInput: 1600, Output: 81}, cost: 0.008898, costKnown: true}},
		{file: "permission-rejected.jsonl",
			want: want{final: "I'll create the file.", steps: 1, usage: Usage{Input: 1201, CachedInput: 800, Output: 41}, cost: 0.004458, costKnown: true}},
		{file: "error-401.jsonl", stderr: "error-401.stderr", exit: 1,
			want: want{kind: ErrFatal, costKnown: true, err: "invalid x-api-key (HTTP 401)", hint: "credentials"}},
		{file: "error-429.jsonl", exit: 1,
			want: want{kind: ErrUsageLimit, costKnown: true, err: "rate limit", resetAt: now.Add(30 * time.Second)}}, // retry-after: 30
		{file: "error-bad-model.jsonl", stderr: "error-bad-model.stderr", exit: 1,
			want: want{kind: ErrFatal, costKnown: true, err: "ProviderModelNotFoundError: Model not found: anthropic/claude-nope-9", hint: "--model"}},
		{file: "error-usage-limit.jsonl", exit: 1,
			want: want{kind: ErrUsageLimit, costKnown: true, err: "usage limit", resetAt: time.Unix(1795345200, 0)}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			is := is.New(t)
			var stderr []byte
			if tt.stderr != "" {
				stderr = testdata(t, "opencode", tt.stderr)
			}
			a := &opencode{cliAdapter{now: func() time.Time { return now }}}
			o, _ := replayOpencode(t, a, testdata(t, "opencode", tt.file), stderr, proc.Result{ExitCode: tt.exit})
			tt.want.check(is, o)
		})
	}
}

func TestOpencodeActivity(t *testing.T) {
	is := is.New(t)
	_, acts := replayOpencode(t, &opencode{cliAdapter{now: time.Now}}, testdata(t, "opencode", "success.jsonl"), nil, proc.Result{})
	is.Equal(acts, []string{"I'll create the file.", "write hello.txt", "Created hello.txt. <promise>COMPLETE</promise>"})
	_, acts = replayOpencode(t, &opencode{cliAdapter{now: time.Now}}, testdata(t, "opencode", "permission-rejected.jsonl"), nil, proc.Result{})
	is.Equal(acts[1], "write /tmp/oc/outside.txt (failed)")
}

func TestOpencodeUnknownFlag(t *testing.T) {
	is := is.New(t)
	o, _ := replayOpencode(t, &opencode{cliAdapter{now: time.Now}}, nil, testdata(t, "opencode", "unknown-flag.stderr"), proc.Result{ExitCode: 1})
	is.Equal(o.ErrKind, ErrFatal)
	is.True(strings.Contains(o.Hint, "1.18"))
}

func TestOpencodeCost(t *testing.T) {
	is := is.New(t)
	free := `{"type":"step_start","part":{"type":"step-start"}}
{"type":"text","part":{"type":"text","text":"done"}}
{"type":"step_finish","part":{"type":"step-finish","cost":0,"tokens":{"input":1000000,"output":1000000,"reasoning":0,"cache":{"read":0,"write":0}}}}
`
	// opencode says $0 for tokens it has no price for: without a price of
	// architect's, that cost is unknown, never a $0 a budget would trust.
	o, _ := replayOpencode(t, &opencode{cliAdapter{model: "ollama/qwen3", now: time.Now}}, []byte(free), nil, proc.Result{})
	is.True(!o.CostKnown)
	o, _ = replayOpencode(t, &opencode{cliAdapter{now: time.Now}}, []byte(free), nil, proc.Result{})
	is.True(!o.CostKnown) // no --model: no price to look up
	a := &opencode{cliAdapter{model: "ollama/qwen3", prices: Prices{"qwen3": {Input: 1, Output: 2}}, now: time.Now}}
	o, _ = replayOpencode(t, a, []byte(free), nil, proc.Result{})
	is.True(o.CostKnown)
	is.True(near(o.Cost, 3))
	// The built-in price counts too (a subscription's tokens at list price:
	// a budget overestimated rather than ignored); a price of 0 says free.
	a = &opencode{cliAdapter{model: "github-copilot/claude-sonnet-4.5", now: time.Now}}
	o, _ = replayOpencode(t, a, []byte(free), nil, proc.Result{})
	is.True(o.CostKnown)
	is.True(near(o.Cost, 18))
	a = &opencode{cliAdapter{model: "github-copilot/claude-sonnet-4.5", prices: Prices{"claude-sonnet-4.5": {}}, now: time.Now}}
	o, _ = replayOpencode(t, a, []byte(free), nil, proc.Result{})
	is.True(o.CostKnown)
	is.Equal(o.Cost, 0.0)

	// Killed in the middle of a step: what it spent there is unknown.
	open := `{"type":"step_start","part":{"type":"step-start"}}` + "\n"
	o, _ = replayOpencode(t, &opencode{cliAdapter{now: time.Now}}, []byte(open), nil, proc.Result{ExitCode: -1, TimedOut: true})
	is.True(!o.CostKnown)
	is.Equal(o.ErrKind, ErrTransient)
}

func TestOpencodeFakeExecutable(t *testing.T) {
	is := is.New(t)
	f := newFakeAgent(t, testdata(t, "opencode", "success.jsonl"), nil, 0, "")
	a, err := New(Config{Name: "opencode", Bin: f.bin, Model: "anthropic/claude-sonnet-4-5", Args: []string{"--variant", "high"}})
	is.NoErr(err)
	var acts []string
	prompt := "Line one with \"quotes\" and spaces\nline two\n"
	o := a.Run(context.Background(), fakeRequest(t, prompt, &acts))
	is.Equal(o.ErrKind, ErrNone)
	is.Equal(o.ExitCode, 0)
	is.Equal(o.FinalMessage, "Created hello.txt. <promise>COMPLETE</promise>")
	is.Equal(o.Steps, 2)
	is.True(o.CostKnown)
	is.True(near(o.Cost, 0.008898))
	is.Equal(f.argv(t), []string{"run", "--format", "json", "--auto", "--title", "architect iteration 3",
		"--print-logs", "--log-level", "ERROR", "--model", "anthropic/claude-sonnet-4-5", "--variant", "high"})
	path, data := f.stdin(t)
	is.True(strings.HasPrefix(path, "pipe:")) // the prompt goes on stdin
	is.Equal(data, prompt)
	is.Equal(len(acts), 3)

	// An error event and exit 1.
	f = newFakeAgent(t, testdata(t, "opencode", "error-bad-model.jsonl"), testdata(t, "opencode", "error-bad-model.stderr"), 1, "")
	a, _ = New(Config{Name: "opencode", Bin: f.bin})
	o = a.Run(context.Background(), fakeRequest(t, "x", &acts))
	is.Equal(o.ExitCode, 1)
	is.Equal(o.ErrKind, ErrFatal)
	is.True(strings.Contains(o.Err, "ProviderModelNotFoundError"))

	// Not installed.
	a, _ = New(Config{Name: "opencode", Bin: filepath.Join(t.TempDir(), "missing")})
	o = a.Run(context.Background(), fakeRequest(t, "x", &acts))
	is.Equal(o.ErrKind, ErrFatal)
	is.True(strings.Contains(o.Hint, "opencode-ai"))
}

func TestOpencodeBoundedMemory(t *testing.T) {
	is := is.New(t)
	// A tool output longer than the line limit is cut, then ignored.
	long := `{"type":"tool_use","part":{"type":"tool","tool":"read","state":{"status":"completed","output":"` +
		strings.Repeat("x", opencodeMaxLine) + `"}}}` + "\n"
	o, acts := replayOpencode(t, &opencode{cliAdapter{now: time.Now}}, []byte(long+string(testdata(t, "opencode", "success.jsonl"))), nil, proc.Result{})
	is.Equal(o.Steps, 2)
	is.Equal(len(acts), 3)
}

func FuzzOpencodeParser(f *testing.F) {
	for _, name := range []string{"success.jsonl", "error-401.jsonl", "error-bad-model.jsonl", "error-usage-limit.jsonl", "permission-rejected.jsonl"} {
		b, err := os.ReadFile(filepath.Join("testdata", "opencode", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, []byte("level=ERROR ref=err_1 error=\"x\""), 1)
	}
	f.Add([]byte(`{"type":"error","error":{"name":"UnknownError","data":{"ref":"err_1"}}}`), []byte(`level=ERROR ref=err_1 error="ProviderModelNotFoundError: \"x\"\\"`), 1)
	f.Fuzz(func(t *testing.T, stdout, stderr []byte, exit int) {
		s := &opencodeStream{onActivity: func(string) {}}
		logs := &opencodeLog{}
		w := proc.NewLineWriter(4096, s.line)
		_, _ = w.Write(stdout)
		w.Flush()
		for _, l := range bytes.Split(stderr, []byte("\n")) {
			logs.line(l)
		}
		a := &opencode{cliAdapter{now: time.Now, model: "m", prices: Prices{"m": {Input: 1}}}}
		_ = a.outcome(proc.Result{ExitCode: exit % 256}, s, logs, string(stderr))
	})
}
