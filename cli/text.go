package cli

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/architect-dev/architect/prompt"
)

// maxMessage bounds what an error or warning line quotes: a 10 MB value
// is shown by its start and end.
const maxMessage = 400

// printable is s as one line a terminal shows as written: control
// characters (escapes, line breaks) and bytes that are not UTF-8 are
// written as Go escapes, and a long text is cut in the middle.
func printable(s string) string {
	if len(s) > maxMessage {
		head, _ := prompt.Truncate(s, maxMessage*2/3)
		tail, _ := prompt.TruncateTail(s, maxMessage/4)
		s = fmt.Sprintf("%s … (%d bytes left out) … %s", head, len(s)-len(head)-len(tail), tail)
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case unicode.IsControl(r) && r < utf8.RuneSelf:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unicode.IsControl(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// unwrapPath drops the path an *os.PathError repeats.
func unwrapPath(err error) string {
	if pe := (*os.PathError)(nil); errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// shellArg is s as one word of a command line to copy: as it is when sh
// would read it so, else quoted.
func shellArg(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./~@%+=:,-") == "" && s[0] != '~' {
		return s
	}
	return shellQuote(s)
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
