package prompt

import "strings"

// line is one line of a text, without its newline.
type line struct{ text string }

func splitLines(s string) []line {
	var out []line
	for _, l := range strings.Split(s, "\n") {
		out = append(out, line{l})
	}
	return out
}

// fencedBlocks returns the first and last line of each fenced code block,
// by the Detector's rules (an unclosed block runs to the end).
func fencedBlocks(lines []line) [][2]int {
	var blocks [][2]int
	d := &Detector{}
	open := -1
	for i, l := range lines {
		if !d.fenceLine(l.text) {
			continue
		}
		if d.fenceN > 0 {
			open = i
		} else {
			blocks = append(blocks, [2]int{open, i})
			open = -1
		}
	}
	if open >= 0 {
		blocks = append(blocks, [2]int{open, len(lines) - 1})
	}
	return blocks
}
