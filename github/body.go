package github

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/textcut"
)

// Title is a pull request's title from a task: its first non-empty line,
// cut to 72 characters.
func Title(task string) string {
	for _, line := range strings.Split(task, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			if len([]rune(line)) > 72 {
				return string([]rune(line)[:71]) + "…"
			}
			return line
		}
	}
	return "architect: changes"
}

// BodyInfo is what a pull request's body says besides the result.
type BodyInfo struct {
	Issue     int    // the issue worked on; 0 for none
	RunURL    string // the Actions run; "" off a runner
	DiffStat  string // the change's `git diff --stat`
	Receipt   Receipt
	Workspace string // where the receipt is on the runner
}

// Body is the pull request's body for the run res.
func Body(res *runlog.Result, b BodyInfo) string {
	var s strings.Builder
	s.WriteString("<!-- architect: this pull request is written by architect; a rerun rewrites this body -->\n")
	s.WriteString("## " + Outcome(res) + "\n\n")
	if b.Issue > 0 {
		if res.Success {
			fmt.Fprintf(&s, "Closes #%d.\n\n", b.Issue)
		} else {
			fmt.Fprintf(&s, "For #%d (draft: the checks did not all pass).\n\n", b.Issue)
		}
	}
	fmt.Fprintf(&s, "- **Iterations:** %d\n- **Cost:** %s\n- **Stop:** `%s`", res.TotalIterations, CostText(CostOf(res)), res.StopReason)
	if res.StopDetail != "" {
		s.WriteString(": " + oneLine(res.StopDetail))
	}
	s.WriteString("\n")
	if b.Receipt.Head != "" {
		fmt.Fprintf(&s, "- **Verified on:** `%s` (from `%s`; diff sha256 `%s`)\n", short(b.Receipt.Head), short(b.Receipt.Base), short(b.Receipt.DiffSHA256))
	}
	if b.RunURL != "" {
		fmt.Fprintf(&s, "- **Run:** %s · **Report artifact** (report, transcripts, receipt.json): %s#artifacts\n", b.RunURL, b.RunURL)
	}
	s.WriteString("\n### Checks (last iteration)\n\n")
	if len(b.Receipt.Checks) == 0 {
		s.WriteString("No check ran: nothing here was verified.\n")
	} else {
		s.WriteString("| Check | Result | Time |\n|---|---|---|\n")
		for _, c := range b.Receipt.Checks {
			mark := "✅ passed"
			switch {
			case c.TimedOut:
				mark = "⏱️ timed out"
			case !c.Passed:
				mark = "❌ exit " + strconv.Itoa(c.Exit)
			}
			fmt.Fprintf(&s, "| %s | %s | %.1fs |\n", code(c.Command), mark, c.Duration)
		}
	}
	if stat := strings.Trim(b.DiffStat, "\n"); strings.TrimSpace(stat) != "" {
		stat, cut := textcut.Head(stat, 4000)
		s.WriteString("\n### Change\n\n```text\n" + strings.ReplaceAll(stat, "```", "'''") + "\n```\n")
		if cut > 0 {
			fmt.Fprintf(&s, "(%d more bytes of the summary cut)\n", cut)
		}
	}
	receipt := b.Receipt.Indented()
	fence := "```"
	for strings.Contains(string(receipt), fence) {
		fence += "`"
	}
	s.WriteString("\n<details><summary>Run receipt</summary>\n\n" + fence + "json\n")
	s.Write(receipt)
	s.WriteString(fence + "\n\n</details>\n\n")
	s.WriteString(b.Receipt.Hidden() + "\n")
	return s.String()
}

// Outcome is the result in a few words, with its mark.
func Outcome(res *runlog.Result) string {
	switch {
	case res.Success && res.NoChecks:
		return "⚠️ architect: done, with no checks (nothing verified)"
	case res.Success:
		return "✅ architect: every check passed"
	}
	return "❌ architect: no success (" + res.StopReason + ")"
}

// CostText is a cost with its provenance: "$0.2500 (reported)".
func CostText(c ReceiptCost) string {
	if c.USD != nil {
		return fmt.Sprintf("$%.4f (%s)", *c.USD, c.Provenance)
	}
	if c.KnownUSD > 0 {
		return fmt.Sprintf("unknown (at least $%.4f reported)", c.KnownUSD)
	}
	return "unknown"
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if h, cut := textcut.Head(s, 300); cut > 0 {
		return h + "…"
	}
	return s
}

// code is s as a Markdown code span inside a table cell.
func code(s string) string {
	s = strings.ReplaceAll(oneLine(s), "|", `\|`)
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	return fence + " " + s + " " + fence
}
