package proc

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/matryer/is"
)

func TestClean(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"plain\ttext\n", "plain\ttext\n"},
		{"héllo € 世界", "héllo € 世界"},
		{"a\x00b", "ab"},
		{"\x1b[1;31mred\x1b[0m", "red"},
		{"\x1b[?25l\x1b[2K\x1b[1Ghidden cursor", "hidden cursor"},
		{"\x1b]0;title\x07after", "after"},
		{"\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"\x1bP1$r0m\x1b\\dcs", "dcs"},
		{"\x1b_apc\x07x", "x"},
		{"\x1b]unterminated\nnext", "\nnext"},
		{"\x1b(Bcharset", "charset"},
		{"\x1b7saved\x1b8", "saved"},
		{"trailing\x1b", "trailing"},
		{"line\r\nnext\r\n", "line\nnext\n"},
		{"10%\r50%", "10%\n50%"}, // a lone CR (progress bars) starts a new line
		{"bell\x07\x08\x7f", "bell"},
		{"c1\u009b31m", "c131m"},
		{"bad\xff\xfeutf8\xc3", "bad\uFFFDutf8\uFFFD"},
	} {
		is.New(t).Equal(Clean([]byte(tc.in)), tc.want) // in: tc.in
	}
}

func FuzzClean(f *testing.F) {
	for _, s := range []string{"plain", "\x1b[31mx", "\x1b]0;t\x07", "a\r\nb\x00", "\xff\xfe", "\u009b"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s := Clean(b)
		if !utf8.ValidString(s) {
			t.Fatalf("invalid UTF-8: %q", s)
		}
		if i := strings.IndexFunc(s, func(r rune) bool {
			return r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r <= 0x9f
		}); i >= 0 {
			t.Fatalf("control character at %d: %q", i, s)
		}
	})
}
