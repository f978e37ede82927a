package prompt

import "github.com/architect-dev/architect/textcut"

// Truncate keeps at most the first n bytes of s, cut back to the start of a
// UTF-8 character so that none is split, and reports how many bytes it
// left out. The caller bounds the accumulated diff with
// Truncate(diff, DiffLimit). It is the prompt's name for the one cutter,
// textcut.Head.
func Truncate(s string, n int) (head string, rest int64) {
	return textcut.Head(s, n)
}

// TruncateTail keeps at most the last n bytes of s, moved forward to the
// start of a UTF-8 character so that none is split, and reports how many
// bytes it left out: textcut.Tail.
func TruncateTail(s string, n int) (tail string, rest int64) {
	return textcut.Tail(s, n)
}
