package prompt

import (
	"testing"

	"github.com/matryer/is"
)

func TestHasCompletion(t *testing.T) {
	instruction := "To declare completion: only when the task is fully done, print `<promise>COMPLETE</promise>` in your final message."
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
		{"newlines inside the tags", "Done.\n<promise>\n  COMPLETE\n</promise>\n", "", true},
		{"bare tag line", "Implemented the handler.\nCOMPLETE\n", "", true},
		{"bare tag line with spaces", "  COMPLETE\t", "", true},
		{"custom tag", "<promise>SHIPPED</promise>", "SHIPPED", true},
		{"tag is trimmed", "<promise>SHIPPED</promise>", " SHIPPED ", true},
		{"promise in a fence that is not an echo", "```\n<promise>COMPLETE</promise>\n```", "", true},
		{"declaration after an echoed instruction", "You asked me to " + instruction[34:] + "\nDone.\n<promise>COMPLETE</promise>", "", true},
		{"declaration after an echo fence", "```\n" + instruction + "\n```\n<promise>COMPLETE</promise>", "", true},

		// Not declarations.
		{"empty", "", "", false},
		{"tag in prose", "I will print COMPLETE when done", "", false},
		{"not yet", "The task is not COMPLETE yet.", "", false},
		{"wrong case", "<promise>complete</promise>", "", false},
		{"other tag", "<promise>COMPLETE</promise>", "DONE", false},
		{"bare tag of the default when another is set", "COMPLETE", "DONE", false},
		{"unclosed promise", "<promise>COMPLETE", "", false},
		{"text between tags", "<promise>COMPLETE soon</promise>", "", false},
		{"echoed instruction line", instruction, "", false},
		{"echoed instruction in a quote", "> " + instruction, "", false},
		{"paraphrase with print", "I'll print <promise>COMPLETE</promise> once the tests pass.", "", false},
		{"paraphrase with output", "Remember: output <promise>COMPLETE</promise> only when finished.", "", false},
		{"paraphrase with emit, split over lines", "Not done, so I won't emit <promise>\nCOMPLETE\n</promise>", "", false},
		{"echo fence with the promise on its own line", "```\n" + instruction + "\n<promise>COMPLETE</promise>\nCOMPLETE\n```", "", false},
		{"unclosed echo fence", "~~~\n" + instruction + "\n<promise>COMPLETE</promise>", "", false},
		{"echo fence closed by a longer fence", "````\n" + instruction + "\n```\nCOMPLETE\n````", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			is.Equal(HasCompletion(tt.msg, tt.tag), tt.want)
		})
	}
}

func TestIsInstruction(t *testing.T) {
	tests := []struct {
		line string
		want bool
	}{
		{"print `<promise>COMPLETE</promise>` in your final message", true},
		{"Printed <promise>COMPLETE</promise>", true},
		{"OUTPUT: COMPLETE", true},
		{"<promise>COMPLETE</promise>", false},
		{"blueprint <promise>COMPLETE</promise>", false}, // "print" inside a word
		{"print the report", false},                      // no tag
		{"throughput is COMPLETE", false},
	}
	for _, tt := range tests {
		is := is.New(t)
		is.Equal(isInstruction(tt.line, "COMPLETE"), tt.want) // tt.line
	}
}

// A tag made of an instruction word still declares: the tag itself is not
// read as an instruction.
func TestHasCompletionInstructionWordTag(t *testing.T) {
	is := is.New(t)
	is.True(HasCompletion("<promise>print</promise>", "print"))
	is.True(HasCompletion("output", "output"))
	is.True(!HasCompletion("please output <promise>print</promise>", "print"))
}
