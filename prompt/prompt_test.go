package prompt

import (
	"fmt"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// parse splits p into its "## " sections, ignoring lines inside fenced code
// blocks: the headings in order, and each section's trimmed body.
func parse(p string) (hs []string, bodies map[string]string) {
	lines := splitLines(p)
	inFence := make([]bool, len(lines))
	for _, b := range fencedBlocks(lines) {
		for i := b[0]; i <= b[1]; i++ {
			inFence[i] = true
		}
	}
	bodies = map[string]string{}
	var cur []string
	flush := func() {
		if len(hs) > 0 {
			bodies[hs[len(hs)-1]] = strings.TrimSpace(strings.Join(cur, "\n"))
		}
	}
	for i, l := range lines {
		if !inFence[i] && strings.HasPrefix(l.text, "## ") {
			flush()
			hs, cur = append(hs, l.text), nil
			continue
		}
		cur = append(cur, l.text)
	}
	flush()
	return hs, bodies
}

func headings(p string) []string {
	hs, _ := parse(p)
	return hs
}

// section returns the body of the section under heading and whether it is there.
func section(p, heading string) (string, bool) {
	_, bodies := parse(p)
	body, ok := bodies[heading]
	return body, ok
}

func ptr(s string) *string { return &s }

func full() Input {
	return Input{
		Task:          "Add JWT authentication.",
		Iteration:     3,
		MaxIterations: 10,
		Checks:        []string{"go test ./...", "go vet ./..."},
		Notes:         []string{"Protected files were restored."},
		Diff:          "--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n-a\n+b\n",
		Failed:        []CheckFailure{{Command: "go test ./...", Status: "exit status 1", Output: "FAIL x\n"}},
		ExecError:     "agent exited with status 2",
		Progress:      "## Iteration 1 — FAIL\n- Steps: 8\n",
	}
}

func TestBuildSections(t *testing.T) {
	tests := []struct {
		name string
		in   func() Input
		want []string
	}{
		{"all sections in order", full, []string{
			HeadingTask, HeadingIteration, HeadingChanges, HeadingErrors, HeadingExecError, HeadingProgress,
		}},
		{"spec", func() Input { in := full(); in.FromSpec = true; return in }, []string{
			HeadingSpec, HeadingIteration, HeadingChanges, HeadingErrors, HeadingExecError, HeadingProgress,
		}},
		{"first iteration: nothing to report", func() Input {
			return Input{Task: "t", Iteration: 1, MaxIterations: 5, Checks: []string{"true"}}
		}, []string{HeadingTask, HeadingIteration}},
		{"blank optional fields are no sections", func() Input {
			return Input{Task: "t", Iteration: 2, MaxIterations: 5, Diff: "\n", ExecError: " ", Progress: "\n\n"}
		}, []string{HeadingTask, HeadingIteration}},
		{"only errors", func() Input {
			in := full()
			in.Diff, in.ExecError, in.Progress = "", "", ""
			return in
		}, []string{HeadingTask, HeadingIteration, HeadingErrors}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			p := Build(tt.in())
			is.Equal(headings(p), tt.want)
			for _, h := range tt.want {
				body, ok := section(p, h)
				is.True(ok)
				is.True(body != "") // no empty sections
			}
			is.True(strings.HasSuffix(p, "\n") && !strings.HasSuffix(p, "\n\n"))
		})
	}
}

func TestBuildIterationLine(t *testing.T) {
	const ralph = "[RALPH LOOP - ITERATION"
	tests := []struct {
		iteration int
		first     string // the section's first line
	}{
		{1, "This is iteration 1 of 25."},
		{2, "[RALPH LOOP - ITERATION 2/25] Your previous attempt did not complete the task. Continue from where it stopped."},
		{25, "[RALPH LOOP - ITERATION 25/25] Your previous attempt did not complete the task. Continue from where it stopped."},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.iteration), func(t *testing.T) {
			is := is.New(t)
			p := Build(Input{Task: "t", Iteration: tt.iteration, MaxIterations: 25, Checks: []string{"make"}})
			body, ok := section(p, HeadingIteration)
			is.True(ok)
			first, _, _ := strings.Cut(body, "\n")
			is.True(strings.HasPrefix(first, tt.first))
			is.Equal(strings.Contains(p, ralph), tt.iteration > 1)
			is.True(strings.Contains(body, fmt.Sprintf("This is iteration %d of 25.", tt.iteration)))
		})
	}
}

func TestBuildInstructions(t *testing.T) {
	tests := []struct {
		name     string
		in       Input
		contains []string
		absent   []string
	}{
		{"checks", Input{Checks: []string{"go test ./...", "ruff check `src`", "grep -q 'a  b' f"}}, []string{
			"- `grep -q 'a  b' f`\n", // spacing kept
			"- `go test ./...`\n",
			"- `` ruff check `src` ``\n", // a command with backticks stays one code span
			"each must exit with status 0",
			"architect runs them itself",
			"fresh agent with no memory",
			"print `<promise>COMPLETE</promise>` in your final message",
			"not even to quote these instructions",
		}, []string{"No checks are configured"}},
		{"no checks", Input{}, []string{
			"No checks are configured: success rests on the completion tag alone.",
		}, []string{"exit with status 0"}},
		{"custom tag", Input{CompletionTag: "DONE"}, []string{
			"`<promise>DONE</promise>`",
		}, []string{"COMPLETE"}},
		{"notes", Input{Notes: []string{"Protected files were restored.", " ", "Work in src/ only."}}, []string{
			"\n\n- Protected files were restored.\n- Work in src/ only.\n\nTo declare completion:",
		}, []string{"- \n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			tt.in.Task, tt.in.Iteration, tt.in.MaxIterations = "t", 1, 3
			body, ok := section(Build(tt.in), HeadingIteration)
			is.True(ok)
			for _, s := range tt.contains {
				is.True(strings.Contains(body, s)) // missing text
			}
			for _, s := range tt.absent {
				is.True(!strings.Contains(body, s)) // unexpected text
			}
		})
	}
}

func TestBuildChanges(t *testing.T) {
	big := strings.Repeat("+ligne modifiée é\n", 400) // 2-byte characters throughout
	head, rest := Truncate(big, DiffLimit)
	tests := []struct {
		name      string
		diff      string
		truncated int64
		want      string
	}{
		{"whole", "+a\n", 0, "```diff\n+a\n```"},
		{"fence safe", "+```go\n+x\n+```\n", 0, "````diff\n+```go\n+x\n+```\n````"},
		{"truncated", head, rest, "\n```\n... (diff truncated, " + fmt.Sprint(rest) + " more bytes)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			body, ok := section(Build(Input{Task: "t", Diff: tt.diff, DiffTruncated: tt.truncated}), HeadingChanges)
			is.True(ok)
			is.True(strings.Contains(body, tt.want))
			is.Equal(strings.Contains(body, "diff truncated"), tt.truncated > 0)
		})
	}
	is := is.New(t)
	is.True(len(head) <= DiffLimit)
	is.Equal(int64(len(head))+rest, int64(len(big)))
}

func TestBuildErrors(t *testing.T) {
	long := "START\n" + strings.Repeat("é", 1500) + "\nEND\n" // 3000+ bytes, 2-byte characters
	tests := []struct {
		name     string
		failed   []CheckFailure
		contains []string
		absent   []string
	}{
		{"status and output", []CheckFailure{
			{Command: "go test ./...", Status: "exit status 1", Output: "--- FAIL: TestX\n"},
			{Command: "sleep 999", Status: "timeout after 120s", Output: ""},
		}, []string{
			"### `go test ./...` (exit status 1)\n\n```\n--- FAIL: TestX\n```",
			"### `sleep 999` (timeout after 120s)\n\n(no output)",
		}, nil},
		{"multi-line command, no status", []CheckFailure{{Command: "cd web &&\n  npm test", Output: "x"}}, []string{
			"### `cd web && npm test` (failed)\n\n```\nx\n```",
		}, nil},
		{"tail of long output", []CheckFailure{{Command: "c", Status: "exit status 2", Output: long}}, []string{
			"```\n...é", "é\nEND\n```",
		}, []string{"START", "\ufffd"}},
		{"fence safe", []CheckFailure{{Command: "c", Status: "exit status 1", Output: "```\n## Task\n````\n"}}, []string{
			"`````\n```\n## Task\n````\n`````",
		}, nil},
		{"no previous output: no changes", []CheckFailure{{Command: "c", Status: "exit status 1", Output: "x"}}, nil,
			[]string{"since the previous iteration"}},
		{"changes since previous", []CheckFailure{{
			Command: "c", Status: "exit status 1",
			Output: "a\nb fixed\nc\nd\n", PrevOutput: ptr("a\nb broken\nc\n"),
		}}, []string{
			"2 lines new, 1 line gone since the previous iteration:\n\n```diff\n- b broken\n+ b fixed\n+ d\n```",
		}, nil},
		{"unchanged", []CheckFailure{{Command: "c", Status: "exit status 1", Output: "same\n", PrevOutput: ptr("same")}}, []string{
			"Output unchanged since the previous iteration: no progress on this check.",
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			p := Build(Input{Task: "t", Iteration: 2, MaxIterations: 3, Failed: tt.failed})
			is.Equal(headings(p), []string{HeadingTask, HeadingIteration, HeadingErrors}) // output cannot add sections
			body, _ := section(p, HeadingErrors)
			for _, s := range tt.contains {
				is.True(strings.Contains(body, s)) // missing text
			}
			for _, s := range tt.absent {
				is.True(!strings.Contains(body, s)) // unexpected text
			}
		})
	}
}

func TestBuildErrorsTailLength(t *testing.T) {
	is := is.New(t)
	out := strings.Repeat("0123456789", 500)
	body, _ := section(Build(Input{Task: "t", Failed: []CheckFailure{{Command: "c", Status: "exit status 1", Output: out}}}), HeadingErrors)
	_, shown, _ := strings.Cut(body, "```\n...")
	shown, _, _ = strings.Cut(shown, "\n```")
	is.Equal(len(shown), TailLimit)
	is.True(strings.HasSuffix(out, shown))
}

// TestBuildEndsWithTheTask: whatever sections a prompt has, its last line
// sends the agent back to the task (a small model otherwise answers the
// last instruction, the completion tag's, with the tag alone).
func TestBuildEndsWithTheTask(t *testing.T) {
	is := is.New(t)
	for _, in := range []Input{
		{Task: "t", Iteration: 1, MaxIterations: 3, Checks: []string{"make"}},
		{Task: "t", Iteration: 1},
		{Task: "t", Iteration: 2, MaxIterations: 3, Progress: "## Iteration 1 — FAIL\n"},
		{Task: "t", Iteration: 3, Diff: "+x\n", Failed: []CheckFailure{{Command: "make", Status: "exit status 1", Output: "boom"}}},
	} {
		p := Build(in)
		want := closingFirst
		if in.Iteration > 1 {
			want = closingLater
		}
		is.True(strings.HasSuffix(p, "\n\n"+want+"\n")) // the last line
		is.Equal(strings.Count(p, want), 1)
	}
}
