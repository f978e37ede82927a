// Package textcut is the one UTF-8-safe cutter: every place that keeps the
// head or the tail of some text (the prompt's diff and check output, the
// output buffers of proc, git's diffs in gitwt, the command line's
// messages) cuts it here, so that no character is ever split in two and
// every cut counts what it left out the same way.
//
// It is a leaf of its own rather than a part of prompt, which the map of
// the house names as its home, because proc and gitwt need it too and the
// leaves of the house (prompt, proc, protect, redact) do not import one
// another: process supervision must not depend on the prompt builder. The
// prompt keeps its names for it (prompt.Truncate and prompt.TruncateTail).
//
// The rules work on the piece that was kept alone, so that a buffer that
// has dropped what came after (or before) can apply them too:
//   - at the end, an incomplete multi-byte sequence is dropped (TrimEnd);
//   - at the start, up to three continuation bytes are dropped when a
//     character starts right after them (TrimStart).
//
// Bytes that are invalid UTF-8 whatever surrounds them are kept: they were
// in the input, and cleaning them is the reader's job (proc.Clean).
package textcut

import "unicode/utf8"

// Head keeps at most the first n bytes of s without splitting a character,
// and reports how many bytes it left out.
func Head[T ~string | ~[]byte](s T, n int) (head T, rest int64) {
	n = max(n, 0)
	if len(s) <= n {
		return s, 0
	}
	head = TrimEnd(s[:n])
	return head, int64(len(s) - len(head))
}

// Tail keeps at most the last n bytes of s without splitting a character,
// and reports how many bytes it left out.
func Tail[T ~string | ~[]byte](s T, n int) (tail T, rest int64) {
	n = max(n, 0)
	if len(s) <= n {
		return s, 0
	}
	tail = TrimStart(s[len(s)-n:])
	return tail, int64(len(s) - len(tail))
}

// TrimEnd drops an incomplete multi-byte sequence from the end of b: what
// is left of a character whose end was cut off.
func TrimEnd[T ~string | ~[]byte](b T) T {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRuneInString(string(b[i:])) {
				return b[:i]
			}
			break
		}
	}
	return b
}

// TrimStart drops the continuation bytes at the start of b, at most three,
// when a character starts right after them: what is left of a character
// whose start was cut off.
func TrimStart[T ~string | ~[]byte](b T) T {
	for i := 0; i < len(b) && i < utf8.UTFMax; i++ {
		if utf8.RuneStart(b[i]) {
			return b[i:]
		}
	}
	if len(b) < utf8.UTFMax {
		return b[:0] // nothing but the remains of one character
	}
	return b
}
