package prompt

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzTruncate(f *testing.F) {
	f.Add("hello, world", 5)
	f.Add("ab\u00e9cd", 3)
	f.Add("\u20ac\u20ac\u20ac", 4)
	f.Add("\U0001F600x", 2)
	f.Add("", 0)
	f.Add("abc", -2)
	f.Add("\xff\x80\x80", 1)
	f.Fuzz(func(t *testing.T, s string, n int) {
		head, rest := Truncate(s, n)
		if !strings.HasPrefix(s, head) {
			t.Fatalf("Truncate(%q, %d) = %q: not a prefix", s, n, head)
		}
		if len(head) > max(n, 0) {
			t.Fatalf("Truncate(%q, %d) = %q: longer than %d", s, n, head, n)
		}
		if rest != int64(len(s)-len(head)) {
			t.Fatalf("Truncate(%q, %d) rest = %d, want %d", s, n, rest, len(s)-len(head))
		}
		tail, cut := TruncateTail(s, n)
		if !strings.HasSuffix(s, tail) || len(tail) > max(n, 0) || cut != int64(len(s)-len(tail)) {
			t.Fatalf("TruncateTail(%q, %d) = %q, %d: not a suffix of at most %d bytes, or a wrong count", s, n, tail, cut, n)
		}
		if utf8.ValidString(s) && !utf8.ValidString(tail) {
			t.Fatalf("TruncateTail(%q, %d) = %q: split a character", s, n, tail)
		}
		if utf8.ValidString(s) {
			if !utf8.ValidString(head) {
				t.Fatalf("Truncate(%q, %d) = %q: split a character", s, n, head)
			}
			// It keeps as much as it can: the next character would not fit.
			if rest > 0 {
				_, size := utf8.DecodeRuneInString(s[len(head):])
				if len(head)+size <= n {
					t.Fatalf("Truncate(%q, %d) = %q: cut too early", s, n, head)
				}
			}
		}
	})
}

func FuzzHasCompletion(f *testing.F) {
	f.Add("<promise>COMPLETE</promise>", "COMPLETE")
	f.Add("print `<promise>COMPLETE</promise>`", "")
	f.Add("```\nprint <promise>DONE</promise>\n```\nDONE", "DONE")
	f.Add("<promise>\n", "x")
	f.Add("~~~~\n````\n<promise>", "")
	f.Add("<promise>print</promise>", "print")
	f.Add("<promise>\nCOMPLETE\n</promise>", "")
	f.Fuzz(func(t *testing.T, msg, tag string) {
		HasCompletion(msg, tag, msg) // never panics
		// A message that is exactly the declaration always counts, for
		// tags that are one word: no spaces, no angle brackets.
		tag = strings.TrimSpace(tag)
		if tag == "" || strings.ContainsAny(tag, "<>") || strings.IndexFunc(tag, unicodeSpace) >= 0 {
			return
		}
		if m := "<promise>" + tag + "</promise>"; !HasCompletion(m, tag, "") {
			t.Fatalf("HasCompletion(%q, %q) = false", m, tag)
		}
	})
}

func unicodeSpace(r rune) bool { return strings.TrimSpace(string(r)) == "" }
