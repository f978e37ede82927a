package prompt

import (
	"strings"
	"testing"

	"github.com/matryer/is"
)

// instruction is the line of the prompt that asks for the tag.
const instruction = "To declare completion: only when the task is fully done, print `<promise>COMPLETE</promise>` in your final message. Never print it otherwise, not even to quote these instructions."

func TestHasCompletion(t *testing.T) {
	prompt := "## Task\n\nFix the bug.\n\n## Iteration Instructions\n\n" + instruction + "\n"
	tests := []struct {
		name string
		msg  string
		tag  string
		want bool
	}{
		// Declarations.
		{"promise alone", "<promise>COMPLETE</promise>", "", true},
		{"promise after a summary", "All tests pass.\n\n<promise>COMPLETE</promise>\n", "", true},
		{"promise inside a sentence", "Everything is done: <promise>COMPLETE</promise>", "", true},
		{"spaces inside the tags", "<promise> COMPLETE </promise>", "", true},
		{"tabs and newlines inside the tags", "Done.\n<promise>\n\t COMPLETE\n</promise>\n", "", true},
		{"lower case", "<promise>complete</promise>", "", true},
		{"mixed case tags", "<PROMISE>Complete</Promise>", "", true},
		{"CRLF line ends", "Done.\r\n<promise>\r\nCOMPLETE\r\n</promise>\r\n", "", true},
		{"bare tag line", "Implemented the handler.\nCOMPLETE\n", "", true},
		{"bare tag line with spaces", "  COMPLETE\t", "", true},
		{"custom tag", "<promise>SHIPPED</promise>", "SHIPPED", true},
		{"tag is trimmed", "<promise>SHIPPED</promise>", " SHIPPED ", true},
		{"promise in backticks", "`<promise>COMPLETE</promise>`", "", true},
		{"promise in a fence that is no copy", "```\n<promise>COMPLETE</promise>\n```", "", true},
		{"declaration after a copied instruction", "You asked me to print `<promise>COMPLETE</promise>` in your final message.\nDone.\n<promise>COMPLETE</promise>", "", true},
		{"declaration after a copy fence", "```\n" + instruction + "\n```\n<promise>COMPLETE</promise>", "", true},
		// Words that once made a line an instruction: a declaration is a
		// declaration whatever words surround it.
		{"with print", "I ran go test and printed the results. <promise>COMPLETE</promise>", "", true},
		{"with output", "Output verified, all green: <promise>COMPLETE</promise>", "", true},
		{"with emit", "The handler now emits events.\n<promise>COMPLETE</promise>", "", true},
		{"own sentence with print", "I'll print <promise>COMPLETE</promise> now that the tests pass.", "", true},

		// Not declarations.
		{"empty", "", "", false},
		{"tag in prose", "I will print COMPLETE when done", "", false},
		{"not yet", "The task is not COMPLETE yet.", "", false},
		{"bare line in other case", "complete", "", false},
		{"other tag", "<promise>COMPLETE</promise>", "DONE", false},
		{"bare tag of the default when another is set", "COMPLETE", "DONE", false},
		{"unclosed promise", "<promise>COMPLETE", "", false},
		{"text between tags", "<promise>COMPLETE soon</promise>", "", false},
		{"copied instruction line", instruction, "", false},
		{"copied instruction in a quote", "> " + instruction, "", false},
		{"copied part of the instruction", "print `<promise>COMPLETE</promise>` in your final message", "", false},
		{"copy without the backticks", "Print <promise>COMPLETE</promise> in your final message.", "", false},
		{"copy spread over lines", "print <promise>\nCOMPLETE\n</promise> in your final message", "", false},
		{"copy fence with the promise on its own line", "```\n" + instruction + "\n<promise>COMPLETE</promise>\nCOMPLETE\n```", "", false},
		{"unclosed copy fence", "~~~\n" + instruction + "\n<promise>COMPLETE</promise>", "", false},
		{"copy fence closed by a longer fence", "````\n" + instruction + "\n```\nCOMPLETE\n````", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			is.Equal(HasCompletion(tt.msg, tt.tag, prompt), tt.want)
		})
	}
}

// What counts as a copy is judged against the prompt given, not by the
// words of the line: without the instruction in the prompt, the same line
// is the agent's own.
func TestHasCompletionComparesWithThePrompt(t *testing.T) {
	is := is.New(t)
	line := "print `<promise>COMPLETE</promise>` in your final message"
	is.True(!HasCompletion(line, "", instruction))
	is.True(HasCompletion(line, "", "## Task\n\nFix the bug.\n"))
	// A task that asks for the tag in its own words is a line of the prompt too.
	task := "When everything works, say <promise>COMPLETE</promise> and stop."
	is.True(!HasCompletion("When everything works, say <promise>COMPLETE</promise> and stop.", "", task))
	is.True(HasCompletion("Everything works. <promise>COMPLETE</promise>", "", task))
}

// A tag made of a common word still declares.
func TestHasCompletionWordTag(t *testing.T) {
	is := is.New(t)
	is.True(HasCompletion("<promise>print</promise>", "print", ""))
	is.True(HasCompletion("output", "output", ""))
}

// The Detector gives the same answer however the message is cut into
// writes, and finds a declaration anywhere in a message far larger than it
// holds: at the start, in the middle, at the end, and in a line longer
// than its line buffer.
func TestDetectorStreams(t *testing.T) {
	filler := strings.Repeat("go test ./... ok\n", 40_000) // 680 KB
	long := strings.Repeat("x", 3*detectLine+123)
	decl := "<promise>COMPLETE</promise>"
	tests := []struct {
		name string
		msg  string
		want bool
	}{
		{"at the start", decl + "\n" + filler, true},
		{"in the middle", filler + "done\n" + decl + "\n" + filler, true},
		{"at the end", filler + decl, true},
		{"inside a long line", long + decl + long + "\n", true},
		{"across a segment cut", strings.Repeat("y", detectLine-10) + decl + "\n", true},
		{"none", filler + long, false},
		{"copy after much output", filler + instruction + "\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			is.Equal(HasCompletion(tt.msg, "", instruction), tt.want)
			for _, size := range []int{1, 7, 4096} {
				if size == 1 && len(tt.msg) > 1<<20 {
					continue
				}
				d := NewDetector("", instruction)
				for rest := tt.msg; rest != ""; {
					n := min(size, len(rest))
					d.Write([]byte(rest[:n]))
					rest = rest[n:]
				}
				is.Equal(d.Found(), tt.want) // written in pieces
			}
		})
	}
}

// The prompt architect builds never declares completion, however the agent
// copies it.
func TestBuildDoesNotDeclareCompletion(t *testing.T) {
	is := is.New(t)
	for _, tag := range []string{"", "DONE", "done"} {
		p := Build(Input{Task: "Say when done.", Iteration: 2, MaxIterations: 3, CompletionTag: tag, Checks: []string{"true"}})
		is.True(!HasCompletion(p, tag, p))
		is.True(!HasCompletion("```\n"+p+"```\n", tag, p))
		body, _ := section(p, HeadingIteration)
		is.True(!HasCompletion("Understood. The instructions were:\n"+body, tag, p))
	}
}

func BenchmarkDetector(b *testing.B) {
	chunk := []byte(strings.Repeat("ok  \tgithub.com/x/y\t0.012s <tag> print output\n", 1000))
	b.SetBytes(int64(len(chunk)))
	d := NewDetector("", instruction)
	for b.Loop() {
		d.Write(chunk)
	}
}
