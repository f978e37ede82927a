package proc

import (
	"sync"

	"github.com/architect-dev/architect/textcut"
)

// Head and Tail are the one head and the one tail buffer: proc's callers
// and gitwt (the head of a diff, the end of git's standard error) keep
// output in them. Each holds at most its limit, however much is written.

// count is what Head and Tail share: the lock, the most they keep, and
// the number of bytes ever written.
type count struct {
	mu    sync.Mutex
	limit int
	total int64
}

// Total is the number of bytes ever written.
func (c *count) Total() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// Truncated reports whether more was written than is kept.
func (c *count) Truncated() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.truncated()
}

func (c *count) truncated() bool { return c.total > int64(c.limit) }

// Tail is an io.Writer that keeps the last n bytes written to it, in a
// ring buffer allocated once, and counts every byte: memory stays the same
// whatever a process prints. It is safe for concurrent use.
type Tail struct {
	count
	buf []byte
	pos int // where the next byte goes
}

// NewTail returns a Tail keeping the last n bytes.
func NewTail(n int) *Tail {
	n = max(n, 0)
	return &Tail{count: count{limit: n}, buf: make([]byte, n)}
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
	return t.bytes()
}

func (t *Tail) bytes() []byte {
	if t.total < int64(len(t.buf)) {
		return append([]byte(nil), t.buf[:t.pos]...)
	}
	return append(append(make([]byte, 0, len(t.buf)), t.buf[t.pos:]...), t.buf[:t.pos]...)
}

// String returns the bytes kept as cleaned text (see Clean). When output
// was dropped it starts at a character boundary, never with the remains
// of a character cut in two.
func (t *Tail) String() string { return Clean(t.kept()) }

// Text returns the bytes kept as they were written, not cleaned, but
// without the remains of a character cut in two at the start.
func (t *Tail) Text() string { return string(t.kept()) }

func (t *Tail) kept() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.truncated() {
		return textcut.TrimStart(t.bytes())
	}
	return t.bytes()
}

// Head is an io.Writer that keeps the first n bytes written to it and
// counts the rest. It is safe for concurrent use.
type Head struct {
	count
	buf []byte
}

// NewHead returns a Head keeping the first n bytes.
func NewHead(n int) *Head {
	return &Head{count: count{limit: max(n, 0)}}
}

// Write keeps what fits of p; it never fails.
func (h *Head) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.total += int64(len(p))
	if room := h.limit - len(h.buf); room > 0 {
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
func (h *Head) String() string { return Clean(h.kept()) }

// Text returns the bytes kept as they were written, not cleaned, but
// without a character cut in two at the end.
func (h *Head) Text() string { return string(h.kept()) }

func (h *Head) kept() []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	b := append([]byte(nil), h.buf...)
	if h.truncated() {
		b = textcut.TrimEnd(b)
	}
	return b
}
