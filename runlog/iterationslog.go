package runlog

import (
	"fmt"
	"os"
	"time"
)

// LineLog is the iterations log (IterationsLog), held open by a session of
// the loop: one line for people per thing the loop did,
// "2026-01-15T10:30:00 [START] iteration 1/25".
type LineLog struct {
	f *os.File
}

// OpenLineLog opens (or creates) the iterations log at path for appending.
func OpenLineLog(path string) (*LineLog, error) {
	f, err := OpenAppend(path)
	if err != nil {
		return nil, err
	}
	return &LineLog{f: f}, nil
}

// Add appends one line: the local time t to the second, the kind in
// brackets, and text; redact masks the whole line before it is written.
func (l *LineLog) Add(t time.Time, kind, text string, redact func(string) string) error {
	line := fmt.Sprintf("%s [%s] %s\n", t.Format("2006-01-02T15:04:05"), kind, text)
	_, err := l.f.WriteString(redact(line))
	return err
}

// Close closes the file; a line added after it is an error.
func (l *LineLog) Close() error { return l.f.Close() }
