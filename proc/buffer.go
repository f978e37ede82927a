package proc

import (
	"sync"
	"unicode/utf8"
)

// Tail is an io.Writer that keeps the last n bytes written to it, in a
// ring buffer allocated once, and counts every byte: memory stays the same
// whatever a process prints. It is safe for concurrent use.
type Tail struct {
	mu    sync.Mutex
	buf   []byte
	pos   int // where the next byte goes
	total int64
}

// NewTail returns a Tail keeping the last n bytes.
func NewTail(n int) *Tail {
	return &Tail{buf: make([]byte, max(n, 0))}
}

// Write keeps the end of p; it never fails.
func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.total += int64(len(p))
	n := len(t.buf)
	if n == 0 {
		return len(p), nil
	}
	if len(p) >= n {
		copy(t.buf, p[len(p)-n:])
		t.pos = 0
		return len(p), nil
	}
	k := copy(t.buf[t.pos:], p)
	copy(t.buf, p[k:])
	t.pos = (t.pos + len(p)) % n
	return len(p), nil
}

// Bytes returns a copy of the bytes kept, unprocessed.
func (t *Tail) Bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.total < int64(len(t.buf)) {
		return append([]byte(nil), t.buf[:t.pos]...)
	}
	return append(append(make([]byte, 0, len(t.buf)), t.buf[t.pos:]...), t.buf[:t.pos]...)
}

// String returns the bytes kept as cleaned text (see Clean). When output
// was dropped it starts at a character boundary, never with the remains
// of a character cut in two.
func (t *Tail) String() string {
	b := t.Bytes()
	if t.Truncated() {
		for i := 0; i < utf8.UTFMax-1 && len(b) > 0 && !utf8.RuneStart(b[0]); i++ {
			b = b[1:]
		}
	}
	return Clean(b)
}

// Total is the number of bytes ever written.
func (t *Tail) Total() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.total
}

// Truncated reports whether more was written than is kept.
func (t *Tail) Truncated() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.total > int64(len(t.buf))
}

// Head is an io.Writer that keeps the first n bytes written to it and
// counts the rest. It is safe for concurrent use.
type Head struct {
	mu    sync.Mutex
	n     int
	buf   []byte
	total int64
}

// NewHead returns a Head keeping the first n bytes.
func NewHead(n int) *Head {
	return &Head{n: max(n, 0)}
}

// Write keeps what fits of p; it never fails.
func (h *Head) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.total += int64(len(p))
	if room := h.n - len(h.buf); room > 0 {
		h.buf = append(h.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// Bytes returns a copy of the bytes kept, unprocessed.
func (h *Head) Bytes() []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]byte(nil), h.buf...)
}

// String returns the bytes kept as cleaned text (see Clean), without a
// character cut in two at the end.
func (h *Head) String() string {
	b := h.Bytes()
	if h.Truncated() {
		b = trimPartialRune(b)
	}
	return Clean(b)
}

// Total is the number of bytes ever written.
func (h *Head) Total() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.total
}

// Truncated reports whether more was written than is kept.
func (h *Head) Truncated() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.total > int64(h.n)
}

// trimPartialRune drops an incomplete UTF-8 sequence at the end of b.
func trimPartialRune(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			break
		}
	}
	return b
}
