package proc

import (
	"bytes"
	"sync"

	"github.com/architect-dev/architect/textcut"
)

// LineWriter is an io.Writer that splits what is written into lines and
// calls a function with each, as soon as it is complete. A line longer
// than the maximum is delivered cut to the maximum (at a character
// boundary) and the rest of it is dropped, so memory is bounded however
// long a line is. It is safe for concurrent use; the function is called
// with the LineWriter locked, one line at a time, in order.
type LineWriter struct {
	mu   sync.Mutex
	max  int
	fn   func(line []byte)
	buf  []byte
	skip bool // the current line was too long and has been delivered

	// With a long-line callback (KeepTail): the head of a line too long
	// is held, the last tailMax bytes of the rest are kept, and onLong
	// gets both when the line ends.
	onLong  func(head, tail []byte)
	tail    *Tail
	tailMax int
}

// KeepTail makes the LineWriter keep, of a line longer than its maximum,
// the last n bytes as well as the head, and call fn(head, tail) with them
// once the line ends, instead of delivering the cut head to the line
// function. The tail starts at a character boundary. A JSON line whose
// middle is a huge string keeps its last fields that way.
func (w *LineWriter) KeepTail(n int, fn func(head, tail []byte)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.onLong, w.tailMax = fn, n
}

// NewLineWriter returns a LineWriter calling fn with each line, without
// its "\n" or "\r\n". The line is only valid during the call. limit < 1
// means 64 KiB.
func NewLineWriter(limit int, fn func(line []byte)) *LineWriter {
	if limit < 1 {
		limit = 64 << 10
	}
	return &LineWriter{max: limit, fn: fn}
}

// Write delivers the lines p completes; it never fails.
func (w *LineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		line, rest, complete := bytes.Cut(p, []byte{'\n'})
		switch {
		case w.tail != nil:
			w.tail.Write(line)
		case !w.skip:
			if room := w.max - len(w.buf); len(line) > room {
				w.buf = append(w.buf, line[:room]...)
				if w.onLong != nil {
					w.tail = NewTail(w.tailMax)
					w.tail.Write(line[room:])
				} else {
					w.emit(true)
					w.skip = true
				}
			} else {
				w.buf = append(w.buf, line...)
			}
		}
		if !complete {
			break
		}
		w.endLine()
		p = rest
	}
	return n, nil
}

// endLine delivers the line held, whole or long.
func (w *LineWriter) endLine() {
	switch {
	case w.tail != nil:
		tail := bytes.TrimSuffix(w.tail.Bytes(), []byte{'\r'})
		if w.tail.Total() > int64(len(tail)) {
			tail = textcut.TrimStart(tail)
		}
		w.onLong(textcut.TrimEnd(w.buf), tail)
		w.buf, w.tail = w.buf[:0], nil
	case !w.skip:
		w.emit(false)
	}
	w.skip = false
}

// Flush delivers a last line that has no newline, if any.
func (w *LineWriter) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.tail != nil || !w.skip && len(w.buf) > 0 {
		w.endLine()
	}
	w.skip = false
}

func (w *LineWriter) emit(cut bool) {
	line := w.buf
	if cut {
		line = textcut.TrimEnd(line)
	}
	line = bytes.TrimSuffix(line, []byte{'\r'})
	w.fn(line)
	w.buf = w.buf[:0]
}
