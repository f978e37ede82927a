package loop

import (
	"github.com/architect-dev/architect/runlog"
)

// The progress file's format and its lines are runlog's; these are the
// names the runner calls them by.

// progressEntry renders one iteration as the progress file shows it.
func progressEntry(it runlog.Iteration) string { return runlog.ProgressEntry(it) }

// appendFile appends text to the file at path (runlog.AppendFile).
func appendFile(path, text string) error { return runlog.AppendFile(path, text) }

// firstLine returns the first non-blank line of s, bounded.
func firstLine(s string) string { return runlog.FirstLine(s) }

// clip cuts s to at most n bytes at a rune boundary, marking the cut.
func clip(s string, n int) string { return runlog.Clip(s, n) }
