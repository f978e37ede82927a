package redact

import "strings"

// A stream (an agent's output, a check's) is masked as it is written,
// a line at a time (the loop's transcripts hold each line until its end
// comes): a secret that reaches architect in several pieces is whole
// once its line is. A private-key block spans lines: Lines masks every
// line of it.

// keyLinesMax bounds the lines of a private-key block masked without
// their end marker: an RSA-8192 key in PEM is about 100.
const keyLinesMax = 200

// Lines returns a cleaner for one stream's lines, given in order, each
// with its newline (a piece of a longer line may come without): each is
// passed to clean, and the lines of a private-key block, from its
// "-----BEGIN … PRIVATE KEY-----" line to its "-----END" line, are
// replaced by Mask each. It is not safe for concurrent use.
func Lines(clean func(string) string) func(string) string {
	inKey := 0 // lines of a block masked so far; 0 outside one
	return func(line string) string {
		nl := ""
		if strings.HasSuffix(line, "\n") {
			nl = "\n"
		}
		if inKey > 0 {
			if end := keyEnd(line); end >= 0 {
				inKey = 0
				return Mask + clean(line[end:])
			}
			if inKey < keyLinesMax && pemBody(line) {
				inKey++
				return Mask + nl
			}
			inKey = 0 // not a key's body after all: the line is shown
		}
		if begin := keyBegin(line); begin >= 0 && keyEnd(line[begin:]) < 0 {
			inKey = 1
			return clean(line[:begin]) + Mask + nl
		}
		return clean(line)
	}
}

// keyBegin is where line's "-----BEGIN … PRIVATE KEY-----" starts; -1
// when it has none.
func keyBegin(line string) int {
	up := strings.ToUpper(line)
	i := strings.Index(up, "-----BEGIN")
	if i < 0 || !strings.Contains(up[i:], "PRIVATE KEY") {
		return -1
	}
	return i
}

// keyEnd is where what follows line's "-----END … PRIVATE KEY-----"
// starts; -1 when it has none.
func keyEnd(line string) int {
	up := strings.ToUpper(line)
	i := strings.Index(up, "-----END")
	if i < 0 {
		return -1
	}
	j := strings.Index(up[i+len("-----END"):], "-----")
	if j < 0 {
		return -1
	}
	return i + len("-----END") + j + len("-----")
}

// pemBody reports whether line can be inside a PEM block: base64, blank,
// or a "Name: value" header (Proc-Type, DEK-Info).
func pemBody(line string) bool {
	t := strings.TrimSpace(line)
	if name, value, ok := strings.Cut(t, ": "); ok {
		return strings.Trim(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-") == "" && !strings.ContainsAny(value, " \t")
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=') {
			return false
		}
	}
	return true
}
