package loop

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// keepFile writes an output stream (the agent's, a check's) to a file as
// it comes, bounded: the first half of limit bytes go to the file, the
// last half is kept in memory and written at Close, after a line saying
// how much was cut between them. Every line is made safe where it enters
// (clean: escapes removed, secrets masked) before it is written, so the
// file is as safe as every other; bytes that fall in the cut are never
// looked at, which keeps a flood of output cheap. The head is cut at a
// line end and the tail starts at one, so no secret is written in part.
// The file is created with the stream's first byte: a stream that prints
// nothing (a quiet check, an agent that only writes files) leaves no file,
// which keeps a fast iteration from paying for empty ones. It is safe for
// concurrent use (a check's stdout and stderr).
type keepFile struct {
	mu      sync.Mutex
	path    string
	f       *os.File // nil until the first write
	closed  bool
	clean   func(string) string
	half    int64
	line    []byte // the start of the line being written, up to lineMax
	written int64  // bytes of the head written
	headRaw int64  // bytes of the stream the head holds
	full    bool   // the head is written: the rest goes to the tail
	tail    []byte // a ring of the last half bytes, made once the head is full
	pos     int    // where the next byte of the tail goes
	wrapped bool   // the ring has been filled at least once
	total   int64
	err     error
}

// lineMax bounds a line held for cleaning; a longer one is cleaned and
// written in pieces (a secret that long is not one).
const lineMax = 64 << 10

// newKeepFile keeps a stream bounded at limit bytes (0 or less: nothing
// is kept) in path, created when the stream first prints. What was at path
// is removed now, so a file there is always this stream's.
func newKeepFile(path string, limit int64, clean func(string) string) (*keepFile, error) {
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	return &keepFile{path: path, clean: clean, half: max(limit/2, 0)}, nil
}

// Write never fails: a stream is never cut short by its copy on disk.
func (k *keepFile) Write(p []byte) (int, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	n := len(p)
	if n == 0 || k.closed {
		return n, nil
	}
	k.total += int64(n)
	for len(p) > 0 && !k.full {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			room := lineMax - len(k.line)
			take := min(len(p), room)
			k.line = append(k.line, p[:take]...)
			p = p[take:]
			if len(k.line) >= lineMax {
				k.emit(false)
			}
			continue
		}
		k.line = append(k.line, p[:i+1]...)
		p = p[i+1:]
		k.emit(true)
	}
	if k.full && len(p) > 0 {
		k.keepTail(p)
	}
	return n, nil
}

// keepTail puts p at the end of the ring.
func (k *keepFile) keepTail(p []byte) {
	n := len(k.tail)
	if n == 0 {
		return
	}
	if len(p) >= n {
		copy(k.tail, p[len(p)-n:])
		k.pos, k.wrapped = 0, true
		return
	}
	c := copy(k.tail[k.pos:], p)
	if c < len(p) {
		copy(k.tail, p[c:])
		k.wrapped = true
	}
	k.pos = (k.pos + len(p)) % n
	if k.pos == 0 {
		k.wrapped = true
	}
}

// startTail switches to keeping the end of the stream: the ring is made
// only now, so that a short stream costs no memory for it.
func (k *keepFile) startTail() {
	if !k.full {
		k.full = true
		k.tail = make([]byte, k.half)
	}
}

// emit writes the line held, unless the head would pass its half: then
// the line and all that follows go to the tail.
func (k *keepFile) emit(whole bool) {
	text := k.clean(string(k.line))
	if whole && (len(text) == 0 || text[len(text)-1] != '\n') {
		text += "\n"
	}
	if k.written+int64(len(text)) > k.half {
		k.startTail()
		k.keepTail(k.line)
		k.line = k.line[:0]
		return
	}
	k.write(text)
	k.written += int64(len(text))
	k.headRaw += int64(len(k.line))
	k.line = k.line[:0]
}

func (k *keepFile) write(s string) {
	if k.f == nil && k.err == nil {
		k.f, k.err = os.OpenFile(k.path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	}
	if k.err == nil {
		_, k.err = k.f.WriteString(s)
	}
}

// Close writes what is held (the last line, or the cut and the tail) and
// closes the file.
func (k *keepFile) Close() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closed {
		return k.err
	}
	k.closed = true
	if !k.full && len(k.line) > 0 {
		k.emit(false)
	}
	if k.full {
		// The ring in order, read in place: no copy of it is made.
		var tail io.Reader = bytes.NewReader(k.tail[:k.pos])
		kept := int64(k.pos)
		if k.wrapped {
			tail = io.MultiReader(bytes.NewReader(k.tail[k.pos:]), bytes.NewReader(k.tail[:k.pos]))
			kept = int64(len(k.tail))
		}
		br := bufio.NewReaderSize(tail, lineMax)
		if k.wrapped { // start at a line: the first may be a piece
			skipped, _ := br.ReadSlice('\n')
			kept -= int64(len(skipped))
		}
		k.write(fmt.Sprintf("\n… architect: %d bytes of this output are not kept here (transcript_limit: the first and the last %d bytes are) …\n\n",
			k.total-k.headRaw-kept, k.half))
		for {
			line, err := br.ReadSlice('\n')
			if len(line) > 0 {
				k.write(k.clean(string(line)))
			}
			if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
				break
			}
		}
		k.tail = nil
	}
	if k.f == nil { // the stream printed nothing: no file
		return k.err
	}
	err := k.f.Close()
	if k.err == nil {
		k.err = err
	}
	return k.err
}
