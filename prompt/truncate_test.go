package prompt

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/matryer/is"
)

func TestTruncate(t *testing.T) {
	tests := []struct {
		name string
		s    string
		n    int
		head string
		rest int64
	}{
		{"shorter", "abc", 5, "abc", 0},
		{"exact", "abc", 3, "abc", 0},
		{"cut", "abcdef", 4, "abcd", 2},
		{"zero", "abc", 0, "", 3},
		{"negative", "abc", -1, "", 3},
		{"empty", "", 10, "", 0},
		{"before two-byte char", "ab\u00e9", 2, "ab", 2},       // é is 2 bytes
		{"inside two-byte char", "ab\u00e9", 3, "ab", 2},       // would split é
		{"inside three-byte char", "a\u20ac", 2, "a", 3},       // € is 3 bytes
		{"inside three-byte char, 2nd", "a\u20ac", 3, "a", 3},  // €
		{"after three-byte char", "a\u20acb", 4, "a\u20ac", 1}, // keeps €
		{"inside four-byte char", "\U0001F600\U0001F600", 7, "\U0001F600", 4},
		{"only a split char", "\U0001F600", 3, "", 4},
		{"invalid utf-8 cut at n", "\x80\x80\x80\x80\x80\x80", 5, "\x80\x80\x80\x80\x80", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			head, rest := Truncate(tt.s, tt.n)
			is.Equal(head, tt.head)
			is.Equal(rest, tt.rest)
		})
	}
}

func TestTail(t *testing.T) {
	tests := []struct {
		name string
		s    string
		n    int
		tail string
		cut  int64
	}{
		{"shorter", "abc", 5, "abc", 0},
		{"cut", "abcdef", 2, "ef", 4},
		{"zero", "abc", 0, "", 3},
		{"inside two-byte char", "\u00e9ab", 3, "ab", 2},
		{"at two-byte char", "x\u00e9ab", 4, "\u00e9ab", 1},
		{"inside four-byte char", "\U0001F600ab", 4, "ab", 4},
		{"long output keeps the end", strings.Repeat("x", 3000) + "END", TailLimit, strings.Repeat("x", TailLimit-3) + "END", 1003},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			got, cut := TruncateTail(tt.s, tt.n)
			is.Equal(got, tt.tail)
			is.Equal(cut, tt.cut)
			is.True(utf8.ValidString(got))
		})
	}
}
