package prompt

import (
	"strings"
	"testing"
)

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
