package tui

import (
	"fmt"
	"strings"
	"time"
)

// spinner frames, one per tick.
var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// clock formats a duration for people: 7s, 1m05s, 2h03m.
func clock(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int(d.Round(time.Second) / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh%02dm", s/3600, s%3600/60)
}

// secs formats seconds: 0.4s, 12.3s, 2m05s.
func secs(f float64) string {
	if f < 60 {
		return fmt.Sprintf("%.1fs", f)
	}
	return clock(time.Duration(f * float64(time.Second)))
}

// money formats a cost in USD, with four decimals under a dollar.
func money(f float64) string {
	if f < 1 {
		return fmt.Sprintf("$%.4f", f)
	}
	return fmt.Sprintf("$%.2f", f)
}

// part is a piece of a line that is shown whole or not at all; the most
// important parts are kept when the line is too long.
type part struct {
	text string
	rank int // 0 is kept first
}

// joinFit joins the parts with sep, leaving out the least important ones
// (highest rank) until the line fits w cells; the parts keep their order.
// A line whose most important part alone is too long is cut.
func joinFit(parts []part, sep string, w int) string {
	keep := make([]bool, len(parts))
	for i := range keep {
		keep[i] = parts[i].text != ""
	}
	line := func() string {
		var out []string
		for i, p := range parts {
			if keep[i] {
				out = append(out, p.text)
			}
		}
		return strings.Join(out, sep)
	}
	for width(line()) > w {
		worst := -1
		for i, p := range parts {
			if keep[i] && (worst < 0 || p.rank > parts[worst].rank) {
				worst = i
			}
		}
		kept := 0
		for _, k := range keep {
			if k {
				kept++
			}
		}
		if worst < 0 || kept <= 1 {
			break
		}
		keep[worst] = false
	}
	return cut(line(), w)
}

// firstLine is s up to its first line end.
func firstLine(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		return s[:i]
	}
	return s
}

// divider is the activity line that starts an iteration.
func divider(n int) string { return fmt.Sprintf("── iteration %d ──", n) }

// isIterationLine reports whether one of the loop's log lines is a
// per-iteration progress line, which the view shows in its own way.
func isIterationLine(line string) bool {
	return strings.HasPrefix(line, "architect: iteration ")
}
