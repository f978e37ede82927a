package gitwt

import "unicode/utf8"

// headBuffer keeps the first limit bytes written to it and counts the rest,
// so that memory stays bounded however much git prints.
type headBuffer struct {
	limit int
	buf   []byte
	total int64
}

// Write never fails, so the writer git feeds is never cut short.
func (h *headBuffer) Write(p []byte) (int, error) {
	n := len(p)
	h.total += int64(n)
	if room := h.limit - len(h.buf); room > 0 {
		if len(p) > room {
			p = p[:room]
		}
		h.buf = append(h.buf, p...)
	}
	return n, nil
}

// String returns what was kept; when something was cut off, without a
// trailing incomplete UTF-8 sequence.
func (h *headBuffer) String() string {
	b := h.buf
	if h.total > int64(len(b)) {
		b = trimPartialRune(b)
	}
	return string(b)
}

// trimPartialRune drops an incomplete multi-byte UTF-8 sequence from the
// end of b, where the cut fell inside a character. Bytes that are invalid
// UTF-8 whatever follows are kept: they were in the input.
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

// tailBuffer keeps the last limit bytes written to it (git prints its fatal
// message last, after whatever hooks printed).
type tailBuffer struct {
	limit int
	buf   []byte
}

// Write never fails.
func (t *tailBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) >= t.limit {
		t.buf = append(t.buf[:0], p[len(p)-t.limit:]...)
		return n, nil
	}
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*t.limit {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.limit:]...)
	}
	return n, nil
}

// String returns at most the last limit bytes written.
func (t *tailBuffer) String() string {
	b := t.buf
	if len(b) > t.limit {
		b = b[len(b)-t.limit:]
	}
	return string(b)
}
