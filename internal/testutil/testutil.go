// Package testutil holds the few helpers that tests in several packages
// need alike: a buffer a process writes while the test reads it, a poll
// that waits for a condition instead of sleeping a fixed time, and
// whether a process still runs. Only tests import it; it imports nothing
// of the project, so any package's tests can use it without a cycle.
package testutil

import (
	"bytes"
	"sync"
	"time"
)

// Buffer is a bytes.Buffer that one goroutine (a process's output copier,
// a logger) writes while the test reads it.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns everything written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Len is how many bytes were written so far.
func (s *Buffer) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Len()
}

// Every is how often Until looks again: often enough that a test waits
// little past the moment the condition holds, seldom enough to cost no CPU.
const Every = 10 * time.Millisecond

// Until calls cond until it returns true or limit has passed, and reports
// whether it did. cond is called at least once, and once more at the
// limit, so a condition met while the test slept is not missed.
func Until(limit time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(limit)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(Every)
	}
}
