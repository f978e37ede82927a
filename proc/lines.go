package proc

import (
	"bytes"
	"sync"
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
}

// NewLineWriter returns a LineWriter calling fn with each line, without
// its "\n" or "\r\n". The line is only valid during the call. max < 1
// means 64 KiB.
func NewLineWriter(max int, fn func(line []byte)) *LineWriter {
	if max < 1 {
		max = 64 << 10
	}
	return &LineWriter{max: max, fn: fn}
}

// Write delivers the lines p completes; it never fails.
func (w *LineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		line, rest, complete := bytes.Cut(p, []byte{'\n'})
		if !w.skip {
			if room := w.max - len(w.buf); len(line) > room {
				w.buf = append(w.buf, line[:room]...)
				w.emit(true)
				w.skip = true
			} else {
				w.buf = append(w.buf, line...)
			}
		}
		if !complete {
			break
		}
		if !w.skip {
			w.emit(false)
		}
		w.skip = false
		p = rest
	}
	return n, nil
}

// Flush delivers a last line that has no newline, if any.
func (w *LineWriter) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.skip && len(w.buf) > 0 {
		w.emit(false)
	}
	w.skip = false
}

func (w *LineWriter) emit(cut bool) {
	line := w.buf
	if cut {
		line = trimPartialRune(line)
	}
	line = bytes.TrimSuffix(line, []byte{'\r'})
	w.fn(line)
	w.buf = w.buf[:0]
}
