package prompt

import (
	"strings"
	"testing"

	"github.com/matryer/is"
)

func TestFindQuestion(t *testing.T) {
	in := Input{Task: "t", Iteration: 1, MaxIterations: 3, Questions: true}
	p := Build(in)
	cases := []struct{ msg, want string }{
		{"I need to know.\n<question>Which database: PostgreSQL or SQLite?</question>", "Which database: PostgreSQL or SQLite?"},
		{"<QUESTION>\n  multi\n  line\n</QUESTION>", "multi\n  line"},
		{"<question>first</question> then <question>second</question>", "second"},
		{"no question here", ""},
		{"<question>   </question>", ""},
		{"quoting: print it between <question> and </question> in your final message", ""}, // a copy of the prompt
		{"<question>unclosed", ""},
	}
	for _, c := range cases {
		is.New(t).Equal(FindQuestion(c.msg, p), c.want)
	}
}

func TestAnswerSection(t *testing.T) {
	is := is.New(t)
	p := Build(Input{Task: "t", Iteration: 2, Question: "Which database?", Answer: "PostgreSQL"})
	is.True(strings.Contains(p, HeadingAnswer+"\n\nThe previous iteration asked"))
	is.True(strings.Contains(p, "```text\nWhich database?\n```"))
	is.True(strings.Contains(p, "Their answer, which comes before the progress file and earlier plans:\n\n```text\nPostgreSQL\n```"))
	is.True(strings.Index(p, HeadingAnswer) < strings.Index(p, HeadingIteration))
	none := Build(Input{Task: "t", Iteration: 2, Question: "Which database?", NoAnswer: true})
	is.True(strings.Contains(none, "No answer came in time."))
	is.True(!strings.Contains(Build(Input{Task: "t", Iteration: 2}), HeadingAnswer))
	// The instructions say how to ask only when questions are on.
	is.True(strings.Contains(Build(Input{Task: "t", Questions: true}), QuestionFile))
	is.True(!strings.Contains(Build(Input{Task: "t"}), QuestionFile))
}
