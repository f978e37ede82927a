package ghactions

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/architect-dev/architect/runlog"
	"github.com/matryer/is"
)

func TestEscape(t *testing.T) {
	is := is.New(t)
	is.Equal(EscapeData("50% done\r\nnext: a,b"), "50%25 done%0D%0Anext: a,b")
	is.Equal(EscapeProperty("50% done\r\nnext: a,b"), "50%25 done%0D%0Anext%3A a%2Cb")
	is.Equal(Command("error", map[string]string{"title": "go test: ./...", "file": "a.go", "line": "3", "col": ""}, "bad\nthing"),
		"::error file=a.go,line=3,title=go test%3A ./...::bad%0Athing")
	is.Equal(Command("endgroup", nil, ""), "::endgroup::")
}

func TestMasks(t *testing.T) {
	is := is.New(t)
	got := Masks([]string{
		"GITHUB_TOKEN=ghs_abcdef", "OPENAI_API_KEY=sk-123456", "HOME=/root", "DB_PASSWORD=p%ss\nword2",
		"KEY_COUNT=1", "client_secret=hunter22", "ANOTHER_TOKEN=ghs_abcdef",
	})
	is.Equal(got, []string{
		"::add-mask::ghs_abcdef", "::add-mask::sk-123456", "::add-mask::p%25ss%0Aword2",
		"::add-mask::p%25ss", "::add-mask::word2", "::add-mask::hunter22",
	})
}

func TestParse(t *testing.T) {
	tests := []struct {
		name, output string
		want         []Annotation
	}{
		{"go build", "# example.com/x\n./main.go:5:2: undefined: foo\n", []Annotation{{"./main.go", 5, 2, "undefined: foo"}}},
		{"go test", "--- FAIL: TestAdd (0.00s)\n    add_test.go:12: got 3, want 4\nFAIL\n", []Annotation{{"add_test.go", 12, 0, "got 3, want 4"}}},
		{"go vet", "vet: pkg/a.go:7:9: unreachable code", nil},
		{"tsc", "src/index.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.\n",
			[]Annotation{{"src/index.ts", 3, 7, "error TS2322: Type 'string' is not assignable to type 'number'."}}},
		{"tsc pretty", "src/index.ts:3:7 - error TS2322: Type mismatch.\n", []Annotation{{"src/index.ts", 3, 7, "error TS2322: Type mismatch."}}},
		{"python traceback", "Traceback (most recent call last):\n  File \"app/main.py\", line 4, in <module>\n    f()\n  File \"app/util.py\", line 9, in f\n    raise ValueError('no')\nValueError: no\n",
			[]Annotation{{"app/util.py", 9, 0, "ValueError: no"}}},
		{"pytest", "    def test_add():\n>       assert add(1, 2) == 4\nE       assert 3 == 4\n\ntests/test_add.py:5: AssertionError\n",
			[]Annotation{{"tests/test_add.py", 5, 0, "AssertionError"}}},
		{"mypy", "app/main.py:10: error: Incompatible types  [assignment]\nFound 1 error in 1 file\n", []Annotation{{"app/main.py", 10, 0, "error: Incompatible types  [assignment]"}}},
		{"rustc", "error[E0308]: mismatched types\n --> src/main.rs:4:18\n  |\n4 |     let x: i32 = \"a\";\n", []Annotation{{"src/main.rs", 4, 18, "error[E0308]: mismatched types"}}},
		{"rust panic", "thread 'tests::it_works' panicked at src/lib.rs:10:9:\nassertion `left == right` failed\n", []Annotation{{"src/lib.rs", 10, 9, "panicked: assertion `left == right` failed"}}},
		{"rust old panic", "thread 'main' panicked at 'boom', src/main.rs:2:5\n", []Annotation{{"src/main.rs", 2, 5, "panicked: boom"}}},
		{"crlf and duplicates", "a.go:1:1: x\r\na.go:1:1: x\r\n", []Annotation{{"a.go", 1, 1, "x"}}},
		{"not locations", "https://example.com:443: refused\n12:30:45: started\nversion 1.2.3:4: odd\nok  \texample.com/x\t0.01s\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			is.Equal(Parse(tt.output), tt.want)
		})
	}
}

func TestParseCaps(t *testing.T) {
	is := is.New(t)
	var b strings.Builder
	for i := 1; i <= 50; i++ {
		b.WriteString("a.go:" + strings.Repeat("1", i%5+1) + ":" + "1: e" + string(rune('a'+i%26)) + "\n")
	}
	is.True(len(Parse(b.String())) <= MaxPerCheck)
}

func TestResolve(t *testing.T) {
	is := is.New(t)
	root := t.TempDir()
	is.NoErr(os.MkdirAll(filepath.Join(root, "pkg", "add"), 0o755))
	is.NoErr(os.WriteFile(filepath.Join(root, "pkg", "add", "add_test.go"), nil, 0o644))
	is.NoErr(os.WriteFile(filepath.Join(root, "main.go"), nil, 0o644))
	got := Resolve(root, []Annotation{
		{File: "add_test.go", Line: 3, Message: "m"},
		{File: filepath.Join(root, "main.go"), Line: 1, Message: "m"},
		{File: "./main.go", Line: 2, Message: "m"},
		{File: "/usr/lib/python3/x.py", Line: 4, Message: "m"},
		{File: "../outside.go", Line: 5, Message: "m"},
	})
	is.Equal(got, []Annotation{
		{File: "pkg/add/add_test.go", Line: 3, Message: "m"},
		{File: "main.go", Line: 1, Message: "m"},
		{File: "main.go", Line: 2, Message: "m"},
		{Message: "/usr/lib/python3/x.py:4: m"},
		{Message: "../outside.go:5: m"},
	})
}

func f64(v float64) *float64 { return &v }

func TestSummaryAndReporter(t *testing.T) {
	is := is.New(t)
	res := &runlog.Result{
		TotalIterations: 2, TotalCost: f64(0.25), TotalCostKnown: true, KnownCost: 0.25, TotalDuration: 3.5,
		StopReason: runlog.StopMaxIterations, Branch: "architect/ralph-loop", Workspace: t.TempDir(),
		Iterations: []runlog.Iteration{
			{Iteration: 1, Cost: f64(0.1), Duration: 1, CheckResults: []runlog.CheckResult{{Name: "go test | x", Passed: false}}},
			{Iteration: 2, Cost: f64(0.15), Duration: 2.5, CheckResults: []runlog.CheckResult{{Name: "go test | x", Output: "x_test.go:3: want 1\n"}}},
		},
	}
	md := Summary(res, " a.go | 2 +-\n 1 file changed\n")
	is.True(strings.Contains(md, "## ❌ architect: no success"))
	is.True(strings.Contains(md, "Stopped on `max_iterations` after 2 iterations"))
	is.True(strings.Contains(md, "| 2 | ❌ 0/1 (failing: `go test \\| x`) | no | $0.1500 | 2.5s |"))
	is.True(strings.Contains(md, "```text\n a.go | 2 +-\n 1 file changed\n```"))

	var buf bytes.Buffer
	r := &Reporter{W: &buf}
	r.Event(runlog.Event{Type: runlog.EventIterationStarted, Iteration: 1, MaxIterations: 2})
	r.Event(runlog.Event{Type: runlog.EventIterationFinished, Iteration: 1})
	r.Event(runlog.Event{Type: runlog.EventIterationStarted, Iteration: 2, MaxIterations: 2})
	r.Finish(res)
	is.Equal(buf.String(), "::group::iteration 1/2\n::endgroup::\n::group::iteration 2/2\n::endgroup::\n"+
		"::error title=check failed%3A go test | x::x_test.go:3: want 1\n")
}

func TestFormatOutputs(t *testing.T) {
	is := is.New(t)
	text := FormatOutputs([]Output{{"success", "true"}, {"result-json", "{\n  \"a\": 1\n}"}})
	lines := strings.Split(text, "\n")
	is.True(strings.HasPrefix(lines[0], "success<<ghadelimiter_"))
	is.Equal(lines[1], "true")
	is.Equal(lines[2], strings.TrimPrefix(lines[0], "success<<"))
	is.True(strings.HasPrefix(lines[3], "result-json<<ghadelimiter_"))
	is.True(lines[0] != lines[3]) // a fresh delimiter each time
	is.Equal(strings.Join(lines[4:7], "\n"), "{\n  \"a\": 1\n}")
}

// FuzzAnnotations: whatever a check prints, parsing does not panic and
// every annotation renders as one well-formed workflow command line.
func FuzzAnnotations(f *testing.F) {
	f.Add("./main.go:5:2: undefined: foo\n")
	f.Add("src/a.ts(3,7): error TS1: x\n")
	f.Add("error[E0308]: m\n --> src/main.rs:4:18\n")
	f.Add("Traceback (most recent call last):\n  File \"a.py\", line 4, in f\nValueError: %0A::\n")
	f.Fuzz(func(t *testing.T, output string) {
		for _, a := range Parse(output) {
			if a.Line <= 0 || a.File == "" {
				t.Fatalf("bad annotation %+v", a)
			}
			cmd := a.ErrorCommand("check failed: " + output)
			if strings.ContainsAny(cmd, "\r\n") {
				t.Fatalf("command spans lines: %q", cmd)
			}
			if !strings.HasPrefix(cmd, "::error ") || strings.Count(cmd, "::") < 2 {
				t.Fatalf("malformed command %q", cmd)
			}
		}
	})
}

// The last look is in the summary: a failed one in its iteration's row
// and, with its reason and its time, under the table.
func TestSummaryFinalCheck(t *testing.T) {
	is := is.New(t)
	fc := &runlog.FinalCheck{Mode: "clean", Status: runlog.FinalFailed, Reason: "in a clean checkout of the final tree, sh check.sh (exit status 1) failed",
		CheckoutDuration: 0.25, ChecksDuration: 1.5, Environment: []string{"node_modules"}}
	res := &runlog.Result{
		TotalIterations: 1, TotalDuration: 3, StopReason: runlog.StopMaxIterations, FinalCheck: fc,
		Iterations: []runlog.Iteration{{Iteration: 1, Duration: 3, AllChecksPassed: true, CompletionTagFound: true, FinalCheck: fc,
			CheckResults: []runlog.CheckResult{{Name: "sh check.sh", Passed: true}}}},
	}
	md := Summary(res, "")
	is.True(strings.Contains(md, "| 1 | ✅ 1/1 | yes, ❌ last look failed | unknown | 3.0s |"))
	is.True(strings.Contains(md, "**Last look:** ❌ failed: in a clean checkout of the final tree, sh check.sh (exit status 1) failed (checkout 0.2s, checks 1.5s; node_modules brought in as at the start)"))

	fc.Status, fc.Reason = runlog.FinalPassed, ""
	res.Success, res.StopReason = true, runlog.StopSuccess
	md = Summary(res, "")
	is.True(strings.Contains(md, "**Last look:** ✅ passed in a clean checkout of the final tree (checkout 0.2s, checks 1.5s; node_modules brought in as at the start)"))
	is.True(strings.Contains(md, "| 1 | ✅ 1/1 | yes |"))
}

// A diff stat holding a fence of its own (a file named with backquotes) is
// put in a longer fence, so that it cannot end the summary's block.
func TestSummaryFenceLongerThanTheStat(t *testing.T) {
	is := is.New(t)
	md := Summary(&runlog.Result{Success: true, TotalIterations: 1}, " ```x``` | 1 +\n")
	is.True(strings.Contains(md, "````text\n ```x``` | 1 +\n````\n"))
	is.True(strings.Contains(Summary(&runlog.Result{}, ""), "### Changes\n\nNo changes.\n"))
}
