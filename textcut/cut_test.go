package textcut

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/matryer/is"
)

func TestTrimEnd(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"abc", "abc"},
		{"ab\xe6", "ab"},                     // the first byte of 日
		{"ab\xe6\x97", "ab"},                 // two of its three
		{"ab\xe6\x97\xa5", "ab\xe6\x97\xa5"}, // whole
		{"\xf0\x9f\x98", ""},                 // three of the four bytes of 😀
		{"a\xff", "a\xff"},                   // invalid whatever follows: kept
		{"a\x80\x80\x80\x80", "a\x80\x80\x80\x80"},
	} {
		is := is.New(t)
		is.Equal(TrimEnd(tc.in), tc.want)
		is.Equal(string(TrimEnd([]byte(tc.in))), tc.want) // the same rule for bytes
	}
}

func TestTrimStart(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"abc", "abc"},
		{"\xa5ab", "ab"},       // the last byte of 日
		{"\x97\xa5ab", "ab"},   // its last two
		{"\x9f\x98\x80a", "a"}, // the last three of 😀
		{"\x98\x80", ""},       // nothing but the remains of one
		{"\x80\x80\x80\x80a", "\x80\x80\x80\x80a"}, // no character is that long: kept
	} {
		is := is.New(t)
		is.Equal(TrimStart(tc.in), tc.want)
		is.Equal(string(TrimStart([]byte(tc.in))), tc.want)
	}
}

func TestHeadTail(t *testing.T) {
	is := is.New(t)
	head, rest := Head("ab日本", 4)
	is.Equal(head, "ab")
	is.Equal(rest, int64(6))
	tail, cut := Tail("日本ab", 4)
	is.Equal(tail, "ab")
	is.Equal(cut, int64(6))
	b, rest := Head([]byte("ab日本"), 5)
	is.Equal(string(b), "ab日")
	is.Equal(rest, int64(3))
	head, rest = Head("abc", -1)
	is.Equal(head, "")
	is.Equal(rest, int64(3))
	tail, cut = Tail(strings.Repeat("x", 10), 20)
	is.Equal(tail, strings.Repeat("x", 10))
	is.Equal(cut, int64(0))
}

// FuzzCut holds the promises of every cut: a prefix (suffix) of at most n
// bytes, an honest count of what was left out, the same for strings and
// bytes, and on valid text no character split and none dropped that fit.
func FuzzCut(f *testing.F) {
	f.Add("hello, world", 5)
	f.Add("ab\u00e9cd", 3)
	f.Add("\u20ac\u20ac\u20ac", 4)
	f.Add("\U0001F600x", 2)
	f.Add("\xff\x80\x80\x80\x80", 3)
	f.Add("", 0)
	f.Add("abc", -2)
	f.Fuzz(func(t *testing.T, s string, n int) {
		head, rest := Head(s, n)
		tail, cut := Tail(s, n)
		bh, brest := Head([]byte(s), n)
		bt, bcut := Tail([]byte(s), n)
		if string(bh) != head || brest != rest || string(bt) != tail || bcut != cut {
			t.Fatalf("%q, %d: strings and bytes are cut differently", s, n)
		}
		if !strings.HasPrefix(s, head) || len(head) > max(n, 0) || rest != int64(len(s)-len(head)) {
			t.Fatalf("Head(%q, %d) = %q, %d", s, n, head, rest)
		}
		if !strings.HasSuffix(s, tail) || len(tail) > max(n, 0) || cut != int64(len(s)-len(tail)) {
			t.Fatalf("Tail(%q, %d) = %q, %d", s, n, tail, cut)
		}
		if !utf8.ValidString(s) {
			return
		}
		if !utf8.ValidString(head) || !utf8.ValidString(tail) {
			t.Fatalf("%q, %d: a character split: %q, %q", s, n, head, tail)
		}
		// As much as fits is kept: the next character would not.
		if rest > 0 {
			if _, size := utf8.DecodeRuneInString(s[len(head):]); len(head)+size <= n {
				t.Fatalf("Head(%q, %d) = %q: cut too early", s, n, head)
			}
		}
		if cut > 0 {
			if _, size := utf8.DecodeLastRuneInString(s[:cut]); len(tail)+size <= n {
				t.Fatalf("Tail(%q, %d) = %q: cut too early", s, n, tail)
			}
		}
	})
}
