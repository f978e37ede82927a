package prompt

import (
	"sort"
	"strings"
)

const (
	promiseOpen  = "<promise>"
	promiseClose = "</promise>"
)

// instructionWords start the words that make a line an instruction about the
// tag rather than a declaration of it.
var instructionWords = []string{"print", "output", "emit"}

// HasCompletion reports whether an agent's final message declares the task
// complete with tag ("" means DefaultTag; surrounding spaces are ignored).
//
// A declaration is either
//   - <promise>TAG</promise>, with any whitespace (newlines too) allowed
//     between the tags and TAG, or
//   - a line that is exactly TAG once surrounding whitespace is trimmed.
//
// TAG is case-sensitive, and a tag merely mentioned in prose ("not COMPLETE
// yet") is neither form. A declaration still does not count when it only
// quotes the instructions:
//   - on an instruction line, that is, a line that mentions TAG, <promise>
//     or </promise> and, besides those, has a word beginning with "print",
//     "output" or "emit" (any case). The prompt's own instruction is such a
//     line ("print `<promise>COMPLETE</promise>` in your final message"), and
//     so are echoes and paraphrases of it ("I will output
//     <promise>COMPLETE</promise> once the tests pass"); a declaration needs
//     none of those words;
//   - anywhere inside a fenced code block (``` or ~~~) that holds an
//     instruction line: that block is a copy of the prompt.
//
// A <promise> declaration spread over several lines counts only if none of
// its lines is excluded, and its TAG line is not a declaration of its own.
func HasCompletion(finalMessage, tag string) bool {
	tag = strings.TrimSpace(tag)
	if tag == "" {
		tag = DefaultTag
	}
	lines := splitLines(finalMessage)
	ignored := quotedLines(lines, tag)
	inPromise := make([]bool, len(lines))
	for _, m := range promises(finalMessage, tag) {
		first, last := lineAt(lines, m[0]), lineAt(lines, m[1]-1)
		quoted := false
		for i := first; i <= last; i++ {
			quoted = quoted || ignored[i]
			inPromise[i] = true
		}
		if !quoted {
			return true
		}
	}
	for i, l := range lines {
		if !ignored[i] && !inPromise[i] && strings.TrimSpace(l.text) == tag {
			return true
		}
	}
	return false
}

// line is one line of a message, without its newline, and where it starts.
type line struct {
	start int
	text  string
}

func splitLines(s string) []line {
	var lines []line
	for start := 0; ; {
		end := strings.IndexByte(s[start:], '\n')
		if end < 0 {
			return append(lines, line{start, s[start:]})
		}
		lines = append(lines, line{start, s[start : start+end]})
		start += end + 1
	}
}

// lineAt is the index of the line holding byte offset off.
func lineAt(lines []line, off int) int {
	return sort.Search(len(lines), func(i int) bool { return lines[i].start > off }) - 1
}

// promises returns the byte ranges of <promise>TAG</promise> in s.
func promises(s, tag string) [][2]int {
	var found [][2]int
	for i := 0; ; {
		j := strings.Index(s[i:], promiseOpen)
		if j < 0 {
			return found
		}
		start := i + j
		p := skipSpace(s, start+len(promiseOpen))
		if strings.HasPrefix(s[p:], tag) {
			p = skipSpace(s, p+len(tag))
			if strings.HasPrefix(s[p:], promiseClose) {
				found = append(found, [2]int{start, p + len(promiseClose)})
			}
		}
		i = start + len(promiseOpen)
	}
}

func skipSpace(s string, i int) int {
	for i < len(s) && strings.IndexByte(" \t\r\n\v\f", s[i]) >= 0 {
		i++
	}
	return i
}

// quotedLines marks the lines whose declarations do not count: instruction
// lines and every line of a fenced code block holding one.
func quotedLines(lines []line, tag string) []bool {
	ignored := make([]bool, len(lines))
	for i, l := range lines {
		ignored[i] = isInstruction(l.text, tag)
	}
	for _, b := range fencedBlocks(lines) {
		echo := false
		for i := b[0]; i <= b[1]; i++ {
			echo = echo || ignored[i]
		}
		for i := b[0]; i <= b[1] && echo; i++ {
			ignored[i] = true
		}
	}
	return ignored
}

// isInstruction reports whether s talks about printing the tag: it mentions
// TAG or the promise tags and, with those taken out, has a word beginning
// with one of instructionWords.
func isInstruction(s, tag string) bool {
	if !strings.Contains(s, tag) && !strings.Contains(s, promiseOpen) && !strings.Contains(s, promiseClose) {
		return false
	}
	for _, t := range []string{tag, promiseOpen, promiseClose} {
		s = strings.ReplaceAll(s, t, " ")
	}
	s = strings.ToLower(s)
	for _, w := range instructionWords {
		for i := 0; ; {
			j := strings.Index(s[i:], w)
			if j < 0 {
				break
			}
			if at := i + j; at == 0 || !isWordByte(s[at-1]) {
				return true
			}
			i += j + len(w)
		}
	}
	return false
}

func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// fencedBlocks returns the first and last line of each fenced code block,
// fences included. A block opens with a line of three or more backticks or
// tildes (after indentation) and closes with a line of at least as many of
// the same character and nothing else; an unclosed block runs to the end.
func fencedBlocks(lines []line) [][2]int {
	var blocks [][2]int
	open, char, n := -1, byte(0), 0
	for i, l := range lines {
		t := strings.TrimLeft(l.text, " \t")
		c, run := fenceRun(t)
		switch {
		case open < 0 && run >= 3:
			open, char, n = i, c, run
		case open >= 0 && c == char && run >= n && strings.TrimSpace(t[run:]) == "":
			blocks = append(blocks, [2]int{open, i})
			open = -1
		}
	}
	if open >= 0 {
		blocks = append(blocks, [2]int{open, len(lines) - 1})
	}
	return blocks
}

// fenceRun returns the fence character s starts with and how many times it
// repeats, or 0, 0.
func fenceRun(s string) (byte, int) {
	if s == "" || s[0] != '`' && s[0] != '~' {
		return 0, 0
	}
	n := 0
	for n < len(s) && s[n] == s[0] {
		n++
	}
	return s[0], n
}
