package agent

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// The transcript of each CLI's real stream (captured against the stub
// model, testdata/*/SOURCE.md) has its messages, tool calls with their
// arguments, results and errors, in order.
func TestTranscriptOfRealStreams(t *testing.T) {
	for _, c := range []struct {
		file string
		want []string // in this order
	}{
		{"claude/success.jsonl", []string{"[session]\nmodel claude-opus-4-8", "[tool call Write]\ncontent:\n    hi\nfile_path: /tmp/", "[tool result Write]\nFile created successfully", "[assistant]\nDone. <promise>COMPLETE</promise>", "[result]\nsuccess, 2 turns, cost $0.0023"}},
		{"claude/error-401.jsonl", []string{"[result (error)]"}},
		{"codex/success.jsonl", []string{"[file change]\nadd /tmp/", "[command (exit 0)]\n$ /bin/bash -lc 'cat hello.txt'\nhello world", "[assistant]\nI wrote hello.txt.", "[turn finished]\n770 input tokens (170 cached), 45 output"}},
		{"codex/error-401.jsonl", []string{"[error]\nunexpected status 401 Unauthorized"}},
		{"gemini/success.jsonl", []string{"[session]\nmodel gemini-2.5-pro", "[assistant]\nI'll write the file now.", "[tool call write_file]\ncontent:\n    hello world\nfile_path: ", "[tool result run_shell_command]\nhello world", "[result]\nsuccess"}},
		{"gemini/error-401.jsonl", []string{"[result]\nerror, error: [API Error: "}},
		{"opencode/success.jsonl", []string{"[assistant]\nI'll create the file.", "[tool call write]\ncontent:\n    hello\nfilePath: hello.txt", "[tool result write]\nWrote file successfully.", "[step finished]\nstop, cost $0.0045"}},
		{"opencode/error-401.jsonl", []string{"[error]\nAPIError: invalid x-api-key"}},
		{"amp/success.jsonl", []string{"[tool call create_file]\ncontent:\n    hello\npath: /work/repo/hello.txt", "[tool result create_file]\nSuccessfully created", "[result]\nsuccess, 2 turns"}},
		{"cursor/success.jsonl", []string{"[thinking]\nReading hello.py", "[tool call glob]\nglobPattern: **/hello.py", "[tool call shell]\ncommand: python3 ", "[tool result shell]\nsuccess: {", "[assistant]\nIt prints `hello world`."}},
		{"aider/success.stdout", []string{"[output]\nAider v0.86.1", "I fixed the lint error. <promise>COMPLETE</promise>"}},
	} {
		t.Run(c.file, func(t *testing.T) {
			data, err := os.ReadFile("testdata/" + c.file)
			if err != nil {
				t.Fatal(err)
			}
			got := Transcript(bytes.NewReader(data), nil)
			at := 0
			for _, w := range c.want {
				i := strings.Index(got[at:], w)
				if i < 0 {
					t.Fatalf("%q not found (in order) in:\n%s", w, got)
				}
				at += i + len(w)
			}
		})
	}
}

// Pieces of a cut stream (the head and tail kept on disk), text between
// JSON lines, stderr and long blocks all come out readable and bounded.
func TestTranscriptOfOddOutput(t *testing.T) {
	is := is.New(t)
	out := Transcript(strings.NewReader(`{"type":"assistant","message":{"content":[{"type":"text","text":"first"}]}}
{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"`+strings.Repeat("x", 10000)+`"}}]}}
{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":[{"type":"text","text":"boom"}]}]}}
{"type":"assistant","message":{"content":[{"type":"te
… 12345 bytes cut …
ext"}]}}
plain text between
{"type":"result","is_error":true,"subtype":"error_max_turns","num_turns":3}
`), []byte("warning: something\n"))
	is.True(strings.Contains(out, "[assistant]\nfirst\n"))
	is.True(strings.Contains(out, "[tool call Bash]\ncommand: xxx"))
	is.True(strings.Contains(out, "… (")) // the long argument is cut, and says so
	is.True(strings.Contains(out, "[tool result Bash (error)]\nboom"))
	is.True(!strings.Contains(out, `{"type":"te`)) // the cut line is left out
	is.True(strings.Contains(out, "[output]\n… 12345 bytes cut …\next\"}]}}\nplain text between"))
	is.True(strings.Contains(out, "[result (error)]\nerror_max_turns, 3 turns"))
	is.True(strings.HasSuffix(out, "[stderr]\nwarning: something\n"))
	is.True(len(out) < 6000)
}

// A flood of plain output makes a bounded transcript.
func TestTranscriptOfAFlood(t *testing.T) {
	is := is.New(t)
	out := Transcript(strings.NewReader(strings.Repeat("line of output\n", 100000)), nil)
	is.True(len(out) < 2*blockLimit)
	is.True(strings.Contains(out, "more bytes)"))
}
