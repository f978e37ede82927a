package runlog

import (
	"fmt"
	"slices"
	"strings"

	"github.com/architect-dev/architect/textcut"
)

// The progress file (ProgressFile) tells the next agent and the person what
// each iteration did, one entry an iteration, in Markdown. The loop appends
// an iteration's entry once its record is written, and writes the file
// again from the records when it is not as the loop left it.

// MaxLine bounds a line the records take from a longer text: each line of
// a check's error in the progress file, an agent_activity event's text.
const MaxLine = 200

// interruptWords say why an iteration was interrupted, in the progress file.
var interruptWords = map[string]string{
	InterruptMaxTime: "the run's time limit (--max-time) was reached",
	InterruptSignal:  "the run was stopped (SIGINT, SIGTERM or architect cancel)",
	InterruptMaxCost: "the agent's spending reached the budget (--max-cost)",
	InterruptKilled:  "architect was killed",
	InterruptNote:    "the person running the loop asked for a new iteration with their note (architect say --now)",
}

// ProgressEntry renders one iteration as the progress file shows it.
func ProgressEntry(it Iteration) string {
	var b strings.Builder
	verdict := "FAIL"
	if it.CompletionSignal != "" { // set on the iteration that ended the run in success
		verdict = "PASS"
	}
	fmt.Fprintf(&b, "## Iteration %d — %s\n", it.Iteration, verdict)
	if it.Agent != "" {
		fmt.Fprintf(&b, "- Agent: %s\n", agentText(it))
	}
	for _, n := range it.Notes {
		fmt.Fprintf(&b, "- Note from the person running this loop: %s\n", FirstLine(n))
	}
	fmt.Fprintf(&b, "- Steps: %d\n", it.StepsTaken)
	if it.Cost != nil {
		fmt.Fprintf(&b, "- Cost: $%.4f\n", *it.Cost)
	} else {
		b.WriteString("- Cost: unknown\n")
	}
	fmt.Fprintf(&b, "- Duration: %.1fs\n", it.Duration)
	fmt.Fprintf(&b, "- Completion tag: %s\n", yesNo(it.CompletionTagFound))
	if it.Error != nil && it.Interrupted == "" {
		fmt.Fprintf(&b, "- Agent error: %s\n", FirstLine(*it.Error))
	}
	if len(it.ProtectedRestored) > 0 {
		fmt.Fprintf(&b, "- Protected files changed (restored): %s\n", ListPaths(it.ProtectedRestored))
	}
	for _, c := range it.JudgeChanged {
		if c.Kept {
			fmt.Fprintf(&b, "- Warning: %s (kept: --judge warn)\n", c.Text())
		} else {
			fmt.Fprintf(&b, "- Failed: %s (undone)\n", c.Text())
		}
	}
	if t := it.TestsRemoved; t != nil {
		b.WriteString(testsProgress(t))
	}
	writeChecks(&b, it)
	b.WriteString("\n")
	return b.String()
}

// writeChecks writes what the progress file says of an iteration's checks.
func writeChecks(b *strings.Builder, it Iteration) {
	if it.Interrupted != "" {
		fmt.Fprintf(b, "- Interrupted: %s\n", interruptWords[it.Interrupted])
	}
	switch {
	case it.Interrupted != "":
		b.WriteString("- Checks: not run (the iteration was interrupted)\n")
	case len(it.CheckResults) == 0:
		b.WriteString("- Checks: none run\n")
	default:
		b.WriteString("- Checks:\n")
	}
	for _, r := range it.CheckResults {
		if r.Passed {
			fmt.Fprintf(b, "  - [PASS] %s\n", r.Name)
			continue
		}
		// The first line of the output says what failed to start with
		// ("--- FAIL: TestAdd"), the last how it ended: for a Python
		// traceback the first is only "Traceback (most recent call
		// last):", the last the exception that tells what went wrong.
		detail := r.Status()
		first, last := FirstLine(r.Output), LastLine(r.Output)
		if first != "" {
			detail += ": " + first
		}
		if last != "" && last != first {
			detail += " … " + last
		}
		fmt.Fprintf(b, "  - [FAIL] %s — %s\n", r.Name, detail)
	}
}

// testsProgress is what the progress file says of the tests removed.
func testsProgress(t *TestsRemoved) string {
	var b strings.Builder
	if len(t.Files) > 0 {
		fmt.Fprintf(&b, "- Test files gone since the start: %s\n", ListPaths(t.Files))
	}
	if t.Count > 0 {
		what := "Tests removed since the start"
		if t.Failed {
			what += " (the iteration fails)"
		}
		fmt.Fprintf(&b, "- %s: %s\n", what, ListPaths(t.List()))
	}
	return b.String()
}

// List is every test t names: the tests gone, those not run, and how many
// more there are than the lists keep.
func (t *TestsRemoved) List() []string {
	l := slices.Concat(t.Tests, t.NotRun)
	if len(l) < t.Count {
		l = append(l, fmt.Sprintf("%d more", t.Count-len(l)))
	}
	return l
}

// agentText names the agent an iteration ran on: "codex (gpt-5.5)".
func agentText(it Iteration) string {
	if it.Model == "" {
		return it.Agent
	}
	return it.Agent + " (" + it.Model + ")"
}

// ListPaths joins paths, bounded: the first ten, and how many more.
func ListPaths(ps []string) string {
	const show = 10
	s := strings.Join(ps[:min(len(ps), show)], ", ")
	if len(ps) > show {
		s += fmt.Sprintf(" and %d more", len(ps)-show)
	}
	return Clip(s, 1000)
}

// FirstLine returns the first non-blank line of s, bounded at MaxLine.
func FirstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return Clip(l, MaxLine)
		}
	}
	return ""
}

// LastLine returns the last non-blank line of s, bounded at MaxLine.
func LastLine(s string) string {
	lines := strings.Split(s, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return Clip(l, MaxLine)
		}
	}
	return ""
}

// Clip cuts s to at most n bytes at a character's boundary, marking the
// cut with "…".
func Clip(s string, n int) string {
	if head, rest := textcut.Head(s, n); rest > 0 {
		return head + "…"
	}
	return s
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
