package loop

import (
	"fmt"
	"strings"

	"github.com/architect-dev/architect/prompt"
	"github.com/architect-dev/architect/runlog"
)

// interruptWords say why an iteration was interrupted, in the progress file.
var interruptWords = map[string]string{
	runlog.InterruptMaxTime: "the run's time limit (--max-time) was reached",
	runlog.InterruptSignal:  "the run was stopped (SIGINT, SIGTERM or architect cancel)",
	runlog.InterruptMaxCost: "the agent's spending reached the budget (--max-cost)",
	runlog.InterruptKilled:  "architect was killed",
	runlog.InterruptNote:    "the person running the loop asked for a new iteration with their note (architect say --now)",
}

// maxProgressLine bounds each line of a check's error in the progress file.
const maxProgressLine = 200

// progressEntry renders one iteration in the seed's progress format.
func progressEntry(it runlog.Iteration) string {
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
		fmt.Fprintf(&b, "- Note from the person running this loop: %s\n", firstLine(n))
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
		fmt.Fprintf(&b, "- Agent error: %s\n", firstLine(*it.Error))
	}
	if len(it.ProtectedRestored) > 0 {
		fmt.Fprintf(&b, "- Protected files changed (restored): %s\n", listPaths(it.ProtectedRestored))
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
	if it.Interrupted != "" {
		fmt.Fprintf(&b, "- Interrupted: %s\n", interruptWords[it.Interrupted])
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
			fmt.Fprintf(&b, "  - [PASS] %s\n", r.Name)
			continue
		}
		// The first line of the output says what failed to start with
		// ("--- FAIL: TestAdd"), the last how it ended: for a Python
		// traceback the first is only "Traceback (most recent call
		// last):", the last the exception that tells what went wrong.
		detail := r.Status()
		first, last := firstLine(r.Output), lastLine(r.Output)
		if first != "" {
			detail += ": " + first
		}
		if last != "" && last != first {
			detail += " … " + last
		}
		fmt.Fprintf(&b, "  - [FAIL] %s — %s\n", r.Name, detail)
	}
	b.WriteString("\n")
	return b.String()
}

// agentText names the agent an iteration ran on: "codex (gpt-5.5)".
func agentText(it runlog.Iteration) string {
	if it.Model == "" {
		return it.Agent
	}
	return it.Agent + " (" + it.Model + ")"
}

// appendFile appends text to the file at path (runlog.AppendFile).
func appendFile(path, text string) error { return runlog.AppendFile(path, []byte(text)) }

// firstLine returns the first non-blank line of s, bounded.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return clip(l, maxProgressLine)
		}
	}
	return ""
}

// lastLine returns the last non-blank line of s, bounded.
func lastLine(s string) string {
	lines := strings.Split(s, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return clip(l, maxProgressLine)
		}
	}
	return ""
}

// clip cuts s to at most n bytes at a rune boundary, marking the cut.
func clip(s string, n int) string {
	if head, rest := prompt.Truncate(s, n); rest > 0 {
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
