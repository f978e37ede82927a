package proc

import (
	"strings"
	"unicode/utf8"
)

// Clean makes captured output safe to put in a prompt, a file or a
// terminal. It removes terminal escape sequences (CSI such as colours and
// cursor moves, OSC such as titles and hyperlinks, DCS/SOS/PM/APC strings
// and other ESC sequences), NUL and the other C0 and C1 control
// characters except "\n" and "\t", and DEL; turns "\r\n" into "\n" and a lone
// "\r" (progress bars) into "\n"; and
// replaces each run of invalid UTF-8 with U+FFFD.
//
// A string sequence (OSC, DCS, …) ends at BEL or ST as terminals say, and
// also at a newline, so that an unterminated one cannot swallow the rest
// of the output.
func Clean(b []byte) string {
	if isPlain(b) {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b))
	invalid := false // the previous byte was invalid UTF-8
	for i := 0; i < len(b); {
		c := b[i]
		if c == 0x1b {
			i = skipEscape(b, i)
			invalid = false
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		i += size
		if r == utf8.RuneError && size == 1 {
			if !invalid {
				sb.WriteRune(utf8.RuneError)
			}
			invalid = true
			continue
		}
		invalid = false
		switch {
		case r == '\n' || r == '\t':
			sb.WriteByte(byte(r))
		case r == '\r':
			// "\r\n" is one line end; a lone "\r" (progress bars) starts a new line.
			if i >= len(b) || b[i] != '\n' {
				sb.WriteByte('\n')
			}
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
			// control character: dropped ("\r" of "\r\n" included)
		default:
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

// isPlain reports whether b is printable ASCII, "\n" and "\t" only.
func isPlain(b []byte) bool {
	for _, c := range b {
		if (c < 0x20 && c != '\n' && c != '\t') || c >= 0x7f {
			return false
		}
	}
	return true
}

// skipEscape returns the index just past the escape sequence that starts
// with the ESC at b[i].
func skipEscape(b []byte, i int) int {
	i++ // ESC
	if i >= len(b) {
		return i
	}
	switch c := b[i]; {
	case c == '[': // CSI: parameters 0x30–0x3F, intermediates 0x20–0x2F, final 0x40–0x7E
		return skipFinal(b, skipWhile(b, i+1, 0x20, 0x3f), 0x40, 0x7e)
	case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_': // strings
		return skipString(b, i+1)
	case c >= 0x20 && c <= 0x2f: // nF: intermediates, then a final byte
		return skipFinal(b, skipWhile(b, i, 0x20, 0x2f), 0x30, 0x7e)
	case c >= 0x30 && c <= 0x7e: // two-byte sequences: ESC 7, ESC c, ESC M, …
		return i + 1
	}
	return i // a lone ESC: dropped
}

// skipWhile returns the index of the first byte from b[i] on that is not
// in lo–hi.
func skipWhile(b []byte, i int, lo, hi byte) int {
	for i < len(b) && b[i] >= lo && b[i] <= hi {
		i++
	}
	return i
}

// skipFinal returns the index past b[i] when it is a final byte (in
// lo–hi), i when it is not.
func skipFinal(b []byte, i int, lo, hi byte) int {
	if i < len(b) && b[i] >= lo && b[i] <= hi {
		i++
	}
	return i
}

// skipString returns the index just past a control string (OSC, DCS…)
// whose body starts at b[i]: it ends at BEL or ESC \; a newline or
// another ESC ends it too, and is kept.
func skipString(b []byte, i int) int {
	for ; i < len(b); i++ {
		switch b[i] {
		case 0x07:
			return i + 1
		case '\n':
			return i
		case 0x1b:
			if i+1 < len(b) && b[i+1] == '\\' {
				return i + 2
			}
			return i
		}
	}
	return i
}
