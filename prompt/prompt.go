// Package prompt writes the prompt each iteration's agent starts from and
// reads the agent's final message for its declaration of completion.
//
// Every iteration of the loop is a brand-new agent process with no memory of
// the ones before it: what it knows about earlier attempts is what Build puts
// in the prompt (the task, how to finish, the accumulated diff, the checks
// that failed and how their output changed, the progress file). HasCompletion
// is the other half of the contract: the loop succeeds only when every check
// passes and the agent printed the completion tag the prompt asked for.
package prompt

import (
	"fmt"
	"strings"
)

// Limits on what a prompt carries, so that its size does not grow with the
// size of the workspace or of a check's output.
const (
	// DiffLimit is how many bytes of the accumulated diff the caller keeps
	// (see Truncate); the rest is only counted.
	DiffLimit = 5000
	// TailLimit is how many bytes of the end of a failed check's output
	// are shown.
	TailLimit = 2000
	// changesLimit bounds the new/gone lines shown per failed check.
	changesLimit = 1000
)

// DefaultTag is the completion tag used when none is configured.
const DefaultTag = "COMPLETE"

// Section headings, in the order Build writes them.
const (
	HeadingTask      = "## Task"
	HeadingSpec      = "## Task Specification"
	HeadingNotes     = "## Notes from the Person Running This Loop"
	HeadingAnswer    = "## Answer to the Question Asked"
	HeadingIteration = "## Iteration Instructions"
	HeadingChanges   = "## Changes from Previous Iterations"
	HeadingErrors    = "## Errors from Previous Iteration"
	HeadingExecError = "## Execution Error"
	HeadingProgress  = "## Accumulated Progress"
)

// The prompt's last line, after the context sections: a model reads what
// comes last as what to do now. Without it the first iteration's prompt
// ends with the completion instruction, and a small model without tools
// (Qwen2.5-Coder 0.5B Instruct, measured in bench/RESULTS.md) answered
// nearly every task with the completion tag alone.
const (
	closingFirst = "Now do the task above."
	closingLater = "Now continue the task above, from the workspace as it is."
)

// ralphLoopLineForm opens the instructions from iteration 2 on; %s is "i/max".
const ralphLoopLineForm = "[RALPH LOOP - ITERATION %s] Your previous attempt did not complete the task. Continue from where it stopped."

// Input is everything one iteration's prompt is built from.
type Input struct {
	Task          string   // the task text, or the contents of the spec file
	FromSpec      bool     // Task came from a spec file
	Iteration     int      // 1-based
	MaxIterations int      // the configured limit
	Checks        []string // the check commands, in order
	CompletionTag string   // "" means DefaultTag
	Notes         []string // extra instruction lines, e.g. "protected files were restored"
	// PersonNotes are what the person running the loop said to it
	// (architect say), oldest first: shown in a section of their own, each
	// fenced as text.
	PersonNotes []string
	// Questions says the agent may ask the person running the loop a
	// question (the instructions say how). Question is the one the last
	// iteration asked; Answer the person's answer, or, with NoAnswer, none
	// came in time.
	Questions bool
	Question  string
	Answer    string
	NoAnswer  bool

	// Diff is the accumulated diff since the loop started, already cut to
	// DiffLimit bytes by the caller (see Truncate); DiffTruncated counts the
	// bytes left out.
	Diff          string
	DiffTruncated int64

	Failed    []CheckFailure // the checks that failed in the previous iteration
	ExecError string         // the previous agent run's error, if any
	Progress  string         // the contents of the progress file

	// Candidates are the losing candidates of the last round, when the
	// run has several and their lessons are on.
	Candidates []CandidateLesson
}

// CheckFailure is one check that failed in the previous iteration.
type CheckFailure struct {
	Command string // the check's shell command
	Status  string // "exit status 1", "timeout after 120s", ...
	Output  string // the captured tail of its combined output
	// PrevOutput is the same check's output in the iteration before, when
	// it failed then too; Build shows which lines are new and which went away.
	PrevOutput *string
}

// Build returns the prompt for one iteration. Sections with nothing to say
// are left out; the rest appear in the order of the Heading constants.
func Build(in Input) string {
	var sections []string
	add := func(heading, body string) {
		if body = strings.TrimSpace(body); body != "" {
			sections = append(sections, heading+"\n\n"+body)
		}
	}
	if in.FromSpec {
		add(HeadingSpec, in.Task)
	} else {
		add(HeadingTask, in.Task)
	}
	add(HeadingNotes, personNotes(in.PersonNotes))
	add(HeadingAnswer, answer(in))
	add(HeadingIteration, instructions(in))
	add(HeadingChanges, changes(in.Diff, in.DiffTruncated))
	add(HeadingErrors, failures(in.Failed))
	add(HeadingCandidates, lessons(in.Candidates))
	if strings.TrimSpace(in.ExecError) != "" {
		add(HeadingExecError, "The previous agent run ended with an error:\n\n"+fence("", in.ExecError))
	}
	if strings.TrimSpace(in.Progress) != "" {
		add(HeadingProgress, "The progress file, as the loop has written it so far:\n\n"+fence("markdown", in.Progress))
	}
	closing := closingFirst
	if in.Iteration > 1 {
		closing = closingLater
	}
	return strings.Join(append(sections, closing), "\n\n") + "\n"
}

// personNotes is the body of the Notes from the Person Running This Loop
// section: each note fenced, so that nothing in it can pass for a heading
// or an instruction of architect's.
func personNotes(notes []string) string {
	var parts []string
	for _, n := range notes {
		if strings.TrimSpace(n) != "" {
			parts = append(parts, fence("text", strings.TrimSpace(n)))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	lead := "The person running this loop wrote this while it ran. Take it into account in this iteration; it comes before the progress file and earlier plans:"
	if len(parts) > 1 {
		lead = "The person running this loop wrote these while it ran, oldest first. Take them into account in this iteration; they come before the progress file and earlier plans:"
	}
	return lead + "\n\n" + strings.Join(parts, "\n\n")
}

// QuestionFile is where, relative to the workspace, an agent writes a
// question for the person running the loop.
const QuestionFile = ".architect/question.md"

// answer is the body of the Answer to the Question Asked section: the
// question and the answer, each fenced as text.
func answer(in Input) string {
	q := strings.TrimSpace(in.Question)
	if q == "" {
		return ""
	}
	s := "The previous iteration asked the person running this loop:\n\n" + fence("text", q) + "\n\n"
	if in.NoAnswer || strings.TrimSpace(in.Answer) == "" {
		return s + "No answer came in time. Decide yourself, choosing what is easiest to change later, and say in your final message what you assumed."
	}
	return s + "Their answer, which comes before the progress file and earlier plans:\n\n" + fence("text", strings.TrimSpace(in.Answer))
}

// instructions is the body of the Iteration Instructions section.
func instructions(in Input) string {
	i := max(in.Iteration, 1)
	label, of := fmt.Sprint(i), ""
	if in.MaxIterations > 0 {
		label += fmt.Sprintf("/%d", in.MaxIterations)
		of = fmt.Sprintf(" of %d", in.MaxIterations)
	}
	tag := strings.TrimSpace(in.CompletionTag)
	if tag == "" {
		tag = DefaultTag
	}

	var b strings.Builder
	if i > 1 {
		fmt.Fprintf(&b, ralphLoopLineForm+"\n\n", label)
	}
	fmt.Fprintf(&b, "This is iteration %d%s. Each iteration is a fresh agent with no memory of the ones before: "+
		"all you have is the files in the workspace, this prompt and the progress file.\n\n", i, of)
	if len(in.Checks) == 0 {
		b.WriteString("No checks are configured: success rests on the completion tag alone.\n\n")
	} else {
		b.WriteString("Your code must pass these checks; each must exit with status 0:\n\n")
		for _, c := range in.Checks {
			b.WriteString("- " + inline(oneLine(c)) + "\n")
		}
		b.WriteString("\narchitect runs them itself after you finish; the loop succeeds only when all of them pass " +
			"and you have declared completion.\n\n")
	}
	wrote := false
	for _, n := range in.Notes {
		if n = strings.TrimSpace(n); n != "" {
			b.WriteString("- " + n + "\n")
			wrote = true
		}
	}
	if wrote {
		b.WriteString("\n")
	}
	if in.Questions {
		b.WriteString("If you cannot go on without a decision only the person running this loop can make, write your question to " +
			inline(QuestionFile) + " (or print it between <question> and </question> in your final message) and end your turn: " +
			"the loop waits for the answer, and the next iteration's prompt carries it. Ask only what you cannot find out or decide yourself.\n\n")
	}
	fmt.Fprintf(&b, "To declare completion: only when the task is fully done, print %s in your final message. "+
		"Never print it otherwise, not even to quote these instructions.\n", inline("<promise>"+tag+"</promise>"))
	return b.String()
}

// changes is the body of the Changes from Previous Iterations section.
func changes(diff string, truncated int64) string {
	if strings.TrimSpace(diff) == "" {
		return ""
	}
	s := "What earlier iterations changed in the workspace:\n\n" + fence("diff", diff)
	if truncated > 0 {
		s += fmt.Sprintf("\n... (diff truncated, %d more bytes)", truncated)
	}
	return s
}

// failures is the body of the Errors from Previous Iteration section.
func failures(failed []CheckFailure) string {
	var parts []string
	for _, f := range failed {
		out, cut := TruncateTail(f.Output, TailLimit)
		if cut > 0 {
			out = "..." + out
		}
		var b strings.Builder
		status := oneLine(f.Status)
		if status == "" {
			status = "failed"
		}
		fmt.Fprintf(&b, "### %s (%s)\n\n", inline(oneLine(f.Command)), status)
		if strings.TrimSpace(out) == "" {
			b.WriteString("(no output)")
		} else {
			b.WriteString(fence("", out))
		}
		if f.PrevOutput != nil {
			b.WriteString("\n\n" + outputChanges(*f.PrevOutput, f.Output, changesLimit))
		}
		parts = append(parts, b.String())
	}
	return strings.Join(parts, "\n\n")
}

// oneLine joins the lines of s with spaces, for headings and list items;
// spacing within a line is kept.
func oneLine(s string) string {
	var parts []string
	for l := range strings.Lines(s) {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, " ")
}
