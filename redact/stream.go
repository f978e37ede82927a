package redact

import (
	"bytes"
	"io"
	"strings"
	"sync"
)

// A stream (an agent's output, a check's) is masked as it is written,
// a line at a time: a secret that reaches a writer in several pieces is
// whole once its line is. Two things need more than a line: a
// private-key block spans lines (Lines masks every line of it), and a
// line longer than LineMax is cut (Writer cuts it where no token can
// continue: at a space or a quote).

// LineMax bounds the part of a line a Writer holds before writing it.
const LineMax = 64 << 10

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

// Writer masks a stream as it is written to w: whole lines go through
// Lines(clean); a partial line is held until its end comes, or until it
// passes LineMax, or until Close. It is safe for concurrent use.
type Writer struct {
	mu    sync.Mutex
	w     io.Writer
	lines func(string) string
	held  []byte
	err   error
}

// NewWriter returns a Writer masking with clean what it passes to w.
func NewWriter(w io.Writer, clean func(string) string) *Writer {
	return &Writer{w: w, lines: Lines(clean)}
}

// Write takes p whole; an error is w's, from this write or an earlier one.
func (mw *Writer) Write(p []byte) (int, error) {
	mw.mu.Lock()
	defer mw.mu.Unlock()
	n := len(p)
	for len(p) > 0 && mw.err == nil {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			mw.held = append(mw.held, p...)
			p = nil
			for len(mw.held) > LineMax && mw.err == nil {
				cut := cutAt(mw.held)
				mw.emit(mw.held[:cut])
				mw.held = mw.held[:copy(mw.held, mw.held[cut:])]
			}
			break
		}
		if len(mw.held) > 0 {
			mw.held = append(mw.held, p[:i+1]...)
			mw.emit(mw.held)
			mw.held = mw.held[:0]
		} else {
			mw.emit(p[:i+1])
		}
		p = p[i+1:]
	}
	if mw.err != nil {
		return 0, mw.err
	}
	return n, nil
}

// cutAt is where a held line longer than LineMax is cut: after the last
// space or quote in its last quarter, where no token goes on; at
// LineMax when there is none.
func cutAt(b []byte) int {
	if i := bytes.LastIndexAny(b[LineMax*3/4:LineMax], " \t\"'`,;"); i >= 0 {
		return LineMax*3/4 + i + 1
	}
	return LineMax
}

func (mw *Writer) emit(b []byte) {
	if mw.err == nil {
		_, mw.err = io.WriteString(mw.w, mw.lines(string(b)))
	}
}

// Close writes the partial line held; it does not close w.
func (mw *Writer) Close() error {
	mw.mu.Lock()
	defer mw.mu.Unlock()
	if len(mw.held) > 0 {
		mw.emit(mw.held)
		mw.held = nil
	}
	return mw.err
}
