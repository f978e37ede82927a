package prompt

import (
	"fmt"
	"strings"
)

// HeadingCandidates heads what the losing candidates of the last round
// showed (CandidateLesson), after the errors of the kept one.
const HeadingCandidates = "## What the Other Candidates Tried"

// CandidateLimit bounds one losing candidate's part of that section, in
// bytes: its diff stat and the first new lines of its failing checks.
const CandidateLimit = 2048

// CandidateLesson is what one losing candidate of the last round showed.
type CandidateLesson struct {
	N        int    // its number in the round
	Agent    string // its agent (and model)
	Why      string // why it was not kept
	DiffStat string // git diff --stat of its change
	// Failing are its failing checks, each with the first lines of its
	// output that the kept candidate's same check did not print.
	Failing []CheckFailure
}

// lessons is the body of the What the Other Candidates Tried section:
// each candidate's part cut to CandidateLimit bytes.
func lessons(ls []CandidateLesson) string {
	if len(ls) == 0 {
		return ""
	}
	parts := []string{"Other attempts at the same iteration ran beside the one kept; they were not kept. " +
		"What they changed and what failed for them may show what not to do, or a route worth another try:"}
	for _, l := range ls {
		parts = append(parts, cutPart(lesson(l), CandidateLimit))
	}
	return strings.Join(parts, "\n\n")
}

// lesson is one candidate's part, uncut.
func lesson(l CandidateLesson) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### Candidate %d (%s): %s\n\n", l.N, inline(oneLine(l.Agent)), oneLine(l.Why))
	if s := strings.TrimSpace(l.DiffStat); s != "" {
		b.WriteString("Its change:\n\n" + fence("", s) + "\n\n")
	} else {
		b.WriteString("It changed nothing.\n\n")
	}
	for _, f := range l.Failing {
		status := oneLine(f.Status)
		if status == "" {
			status = "failed"
		}
		fmt.Fprintf(&b, "`%s` (%s):\n\n", strings.ReplaceAll(oneLine(f.Command), "`", "'"), status)
		out := strings.TrimSpace(f.Output)
		if out == "" {
			out = "(no new output)"
		}
		b.WriteString(fence("", out) + "\n\n")
	}
	return strings.TrimSpace(b.String())
}

// cutPart cuts s to at most n bytes at a line boundary, closing any
// fence left open, and says that it was cut.
func cutPart(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const note = "\n... (cut)"
	head, _ := Truncate(s, n-len(note)-16)
	if i := strings.LastIndexByte(head, '\n'); i > 0 {
		head = head[:i]
	}
	// A fence opened and not closed in what is kept is closed, so that
	// nothing after it reads as its content.
	open := ""
	for l := range strings.Lines(head) {
		t := strings.TrimRight(l, "\n")
		if strings.HasPrefix(t, "```") {
			ticks := t[:longestRun(t, '`')]
			switch {
			case open == "":
				open = ticks
			case t == open:
				open = ""
			}
		}
	}
	if open != "" {
		head += "\n" + open
	}
	return head + note
}

// NewLines is the first lines of out (at most max) that were not in
// before: what a check printed that the other one did not.
func NewLines(out, before string, most int) string {
	seen := map[string]bool{}
	for l := range strings.Lines(before) {
		seen[strings.TrimRight(l, "\r\n")] = true
	}
	var kept []string
	for l := range strings.Lines(out) {
		t := strings.TrimRight(l, "\r\n")
		if seen[t] || strings.TrimSpace(t) == "" {
			continue
		}
		kept = append(kept, t)
		if len(kept) == most {
			break
		}
	}
	return strings.Join(kept, "\n")
}
