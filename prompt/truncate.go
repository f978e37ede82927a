package prompt

import "unicode/utf8"

// Truncate keeps at most the first n bytes of s, cut back to the start of a
// UTF-8 character so that none is split, and reports how many bytes it left
// out. The caller bounds the accumulated diff with Truncate(diff, DiffLimit).
// Input that is not valid UTF-8 is cut at n bytes where no character starts
// nearby.
func Truncate(s string, n int) (head string, rest int64) {
	n = max(n, 0)
	if len(s) <= n {
		return s, 0
	}
	cut := n
	for cut > 0 && n-cut < utf8.UTFMax-1 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if !utf8.RuneStart(s[cut]) {
		cut = n
	}
	return s[:cut], int64(len(s) - cut)
}

// TruncateTail keeps at most the last n bytes of s, moved forward to the
// start of a UTF-8 character so that none is split, and reports how many
// bytes it left out.
func TruncateTail(s string, n int) (tail string, rest int64) {
	n = max(n, 0)
	if len(s) <= n {
		return s, 0
	}
	start := len(s) - n
	cut := start
	for cut < len(s) && cut-start < utf8.UTFMax-1 && !utf8.RuneStart(s[cut]) {
		cut++
	}
	if cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut = start
	}
	return s[cut:], int64(cut)
}
