package runlog

import (
	"io"
	"path/filepath"
)

// Setup is how a worktree's setup command ran (State.Setup).
type Setup struct {
	Command  string  `json:"command"` // as the saved configuration shows it (masked)
	Passed   bool    `json:"passed"`
	ExitCode int     `json:"exit_code"`
	TimedOut bool    `json:"timed_out,omitempty"`
	Said     string  `json:"said,omitempty"` // how it ended, in words: "exit status 1", "timeout after 600s"
	Duration float64 `json:"duration"`       // seconds
	At       string  `json:"at"`             // when it began (RFC 3339)
}

// OpenSetupLog is where the setup command's output goes as it runs:
// SetupLogFile in the run's folder dir (a workspace's .architect), kept to
// limit bytes (its head and tail, the cut said) and cleaned line by line
// by clean, as a check's output is.
func OpenSetupLog(dir string, limit int64, clean func(string) string) (io.WriteCloser, error) {
	return newBoundedFile(filepath.Join(dir, SetupLogFile), limit, clean)
}
