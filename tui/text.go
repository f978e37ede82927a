package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Text on screen is measured in terminal cells with x/ansi's wcwidth
// method, the one the renderer and terminal multiplexers such as tmux use
// (the renderer is kept on it: see program.go). Text from outside (the
// agent, the checks, the task) is first made safe with clean.

// clean makes one line of outside text safe to draw: escape sequences are
// removed (an agent's colours or cursor moves must not reach the screen),
// tabs become spaces, other control characters and the invisible joiners
// and selectors on which width methods disagree (U+200D, U+FE0E, U+FE0F,
// skin-tone modifiers) are dropped, and line ends become spaces.
func clean(s string) string {
	if plainASCII(s) {
		return s
	}
	s = ansi.Strip(s)
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == '\t':
			b.WriteString("    ")
		case r == '\n' || r == '\r':
			b.WriteByte(' ')
		case r == 0x200d || r == 0xfe0e || r == 0xfe0f || r >= 0x1f3fb && r <= 0x1f3ff:
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// plainASCII reports whether s is printable ASCII only (the common case,
// which needs no work).
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// cleanLines splits outside text into clean lines.
func cleanLines(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = clean(l)
	}
	return lines
}

// width is the number of cells s takes (escape sequences take none).
func width(s string) int { return ansi.StringWidthWc(s) }

// cut shortens s to at most w cells, ending a shortened line with "…".
func cut(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if width(s) <= w {
		return s
	}
	return ansi.TruncateWc(s, w, "…")
}

// fit makes s exactly w cells wide: cut, or padded with spaces.
func fit(s string, w int) string {
	s = cut(s, w)
	if n := width(s); n < w {
		s += strings.Repeat(" ", w-n)
	}
	return s
}

// right makes s exactly w cells wide, aligned right.
func right(s string, w int) string {
	s = cut(s, w)
	if n := width(s); n < w {
		s = strings.Repeat(" ", w-n) + s
	}
	return s
}

// wrap breaks clean text into lines of at most w cells (words where it
// can, anywhere when a word is longer than a line).
func wrap(s string, w int) []string {
	if w <= 0 {
		return nil
	}
	if width(s) <= w {
		return []string{s}
	}
	return strings.Split(ansi.WrapWc(s, w, ""), "\n")
}
