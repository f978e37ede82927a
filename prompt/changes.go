package prompt

import (
	"fmt"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// lineLimit bounds each line outputChanges shows.
const lineLimit = 200

// outputChanges tells which lines of a check's output are new since the
// previous iteration and which went away: a summary line, then a diff fence
// of "+ line" / "- line" bounded to limit bytes (each line to lineLimit).
// It compares whole lines (go-diff's line mode), so a line counts as changed
// when any byte of it did.
func outputChanges(prev, cur string, limit int) string {
	dmp := diffmatchpatch.New()
	a, b, lines := dmp.DiffLinesToChars(withNewline(prev), withNewline(cur))
	diffs := dmp.DiffCharsToLines(dmp.DiffMain(a, b, false), lines)

	// Changed lines in diff order; new ones get the budget first, since they
	// are what the agent has to fix.
	var changed []string
	for _, d := range diffs {
		sign := "+ "
		switch d.Type {
		case diffmatchpatch.DiffInsert:
		case diffmatchpatch.DiffDelete:
			sign = "- "
		default:
			continue
		}
		for l := range strings.Lines(d.Text) {
			text := strings.TrimRight(l, "\r\n")
			if head, cut := Truncate(text, lineLimit); cut > 0 {
				text = head + " ..."
			}
			changed = append(changed, sign+text+"\n")
		}
	}
	added, gone, size := 0, 0, 0
	show := make([]bool, len(changed))
	for _, sign := range []string{"+ ", "- "} {
		for i, l := range changed {
			if !strings.HasPrefix(l, sign) {
				continue
			}
			if sign == "+ " {
				added++
			} else {
				gone++
			}
			if size+len(l) <= limit {
				show[i], size = true, size+len(l)
			}
		}
	}
	var body strings.Builder
	left := 0
	for i, l := range changed {
		if show[i] {
			body.WriteString(l)
		} else {
			left++
		}
	}
	if added+gone == 0 {
		return "Output unchanged since the previous iteration: no progress on this check."
	}
	s := fmt.Sprintf("%d %s new, %d %s gone since the previous iteration:\n\n%s",
		added, plural(added, "line"), gone, plural(gone, "line"), fence("diff", body.String()))
	if left > 0 {
		s += fmt.Sprintf("\n... (%d more changed %s not shown)", left, plural(left, "line"))
	}
	return s
}

// withNewline ends s with a newline, so that a last line without one still
// compares equal to the same line followed by more output, and every line
// of the diff ends with one.
func withNewline(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

// plural is noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}
