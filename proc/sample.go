package proc

import (
	"bytes"
	"sync"
	"time"

	"github.com/architect-dev/architect/textcut"
)

// LineSampler is an io.Writer for output that is only watched, not parsed:
// at most once every interval it calls fn with the last complete line of
// what was just written (cut to max bytes at a character boundary). Between
// calls it does no more than read the clock, so a process printing
// gigabytes costs one time.Now per chunk rather than work per line. Lines
// that straddle two writes or come between samples are not seen: it is
// for showing what a process is doing, not for reading what it said.
type LineSampler struct {
	mu       sync.Mutex
	interval time.Duration
	max      int
	fn       func(line []byte)
	next     time.Time
}

// NewLineSampler returns a LineSampler; limit < 1 means 512 bytes.
func NewLineSampler(interval time.Duration, limit int, fn func(line []byte)) *LineSampler {
	if limit < 1 {
		limit = 512
	}
	return &LineSampler{interval: interval, max: limit, fn: fn}
}

// Write samples p; it never fails.
func (s *LineSampler) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	if now.Before(s.next) {
		return len(p), nil
	}
	end := bytes.LastIndexByte(p, '\n')
	for end >= 0 {
		start := bytes.LastIndexByte(p[:end], '\n') + 1
		line := bytes.TrimSpace(p[start:end])
		if len(line) > 0 {
			if len(line) > s.max {
				line = textcut.TrimEnd(line[:s.max])
			}
			s.fn(line)
			s.next = now.Add(s.interval)
			break
		}
		end = start - 1
	}
	return len(p), nil
}
