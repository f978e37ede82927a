package ghactions

import (
	"bytes"
	"fmt"
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

// Short outputs of each shape, read with the format their command selects.
func TestParse(t *testing.T) {
	tests := []struct {
		name, command, output string
		want                  []Annotation
	}{
		{"go build", "go build ./...", "# example.com/x\n./main.go:5:2: undefined: foo\n", []Annotation{{"./main.go", 5, 2, "undefined: foo"}}},
		{"go test", "go test ./...", "--- FAIL: TestAdd (0.00s)\n    add_test.go:12: got 3, want 4\nFAIL\n", []Annotation{{"add_test.go", 12, 0, "got 3, want 4"}}},
		{"go vet prefixed", "go vet ./...", "vet: pkg/a.go:7:9: unreachable code", nil},
		{"tsc", "tsc", "src/index.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.\n",
			[]Annotation{{"src/index.ts", 3, 7, "TS2322: Type 'string' is not assignable to type 'number'."}}},
		{"mypy", "mypy .", "app/main.py:10: error: Incompatible types  [assignment]\nFound 1 error in 1 file\n", []Annotation{{"app/main.py", 10, 0, "Incompatible types  [assignment]"}}},
		{"rustc", "cargo build", "error[E0308]: mismatched types\n --> src/main.rs:4:18\n  |\n4 |     let x: i32 = \"a\";\n", []Annotation{{"src/main.rs", 4, 18, "error[E0308]: mismatched types"}}},
		{"crlf and duplicates", "make", "a.go:1:1: x\r\na.go:1:1: x\r\n", []Annotation{{"a.go", 1, 1, "x"}}},
		{"generic", "make check", "lib/util.rb:12: undefined method\nsrc/a.ts(3,7): boom\n", []Annotation{{"lib/util.rb", 12, 0, "undefined method"}, {"src/a.ts", 3, 7, "boom"}}},
		{"not locations", "make check", "https://example.com:443: refused\n12:30:45: started\nversion 1.2.3:4: odd\nok  \texample.com/x\t0.01s\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			is.Equal(Parse(Detect(tt.command), tt.output), tt.want)
		})
	}
}

// GitHub shows 10 annotations of a type per step: past 9, the rest go
// into the log as inert plain lines and a tenth says how many there were.
// The budget is the step's: two reporters (a batch's tasks) share it.
func TestAnnotationsBoundedPerStep(t *testing.T) {
	is := is.New(t)
	var out strings.Builder
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&out, "a.go:%d:1: e%d\n", i, i)
	}
	out.WriteString("b.go:1:1: ::warning::injected ##[error]old\n")
	res := &runlog.Result{Iterations: []runlog.Iteration{{Iteration: 1, CheckResults: []runlog.CheckResult{{Name: "go vet", Output: out.String()}}}}}
	var buf bytes.Buffer
	b := &Budget{}
	(&Reporter{W: &buf, Budget: b, Prefix: "[one] "}).Annotate(res)
	(&Reporter{W: &buf, Budget: b, Prefix: "[two] "}).Annotate(res)
	b.Close(&buf)
	var errs, plain []string
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		switch {
		case strings.HasPrefix(l, "::error "):
			errs = append(errs, l)
		case strings.HasPrefix(l, "architect: not annotated"):
			plain = append(plain, l)
		default:
			t.Fatalf("unexpected line %q", l)
		}
		is.True(!strings.Contains(strings.TrimPrefix(l, "::error "), "::warning::")) // no second command in a line
		is.True(!strings.Contains(l, "##[error]"))
	}
	is.Equal(len(errs), MaxPerStep)
	is.Equal(len(plain), 2*13-(MaxPerStep-1))
	is.Equal(errs[MaxPerStep-1], "::error title=more failures::17 more errors not annotated: GitHub shows 10 per step; they are in the log, as lines starting \"architect: not annotated\"")
	is.True(strings.Contains(plain[len(plain)-1], "[two] check failed: go vet: b.go:1: : :warning: :injected # #[error]old"))
}

// The last iteration's failing checks are errors; an earlier iteration
// that passed more checks (the best) has its failures as warnings.
func TestAnnotateLastAndBest(t *testing.T) {
	is := is.New(t)
	root := t.TempDir()
	is.NoErr(os.WriteFile(filepath.Join(root, "a.go"), nil, 0o644))
	res := &runlog.Result{Workspace: root, Iterations: []runlog.Iteration{
		{Iteration: 1, CheckResults: []runlog.CheckResult{{Name: "go vet", Output: "a.go:1:1: one\n"}, {Name: "go build", Passed: true}}}, // as good as 2: the later one is the best
		{Iteration: 2, CheckResults: []runlog.CheckResult{{Name: "go vet", Output: "a.go:2:1: two\n"}, {Name: "go build", Passed: true}}},
		{Iteration: 3, CheckResults: []runlog.CheckResult{{Name: "go vet", Output: "a.go:3:1: three\n"}, {Name: "go build", Output: "a.go:4:1: four\n"}}},
		{Iteration: 4, Interrupted: "SIGINT"}, // its checks never ran
	}}
	var buf bytes.Buffer
	(&Reporter{W: &buf}).Annotate(res)
	is.Equal(buf.String(), "::error col=1,file=a.go,line=3,title=check failed%3A go vet::three\n"+
		"::error col=1,file=a.go,line=4,title=check failed%3A go build::four\n"+
		"::warning col=1,file=a.go,line=2,title=check failed in iteration 2 (the best%2C 1/2 passed)%3A go vet::two\n")

	buf.Reset()
	res.Success = true
	(&Reporter{W: &buf}).Annotate(res)
	is.Equal(buf.String(), "") // a run that succeeded has nothing to annotate
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
		for _, a := range Parse(FormatNames(), output) {
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
