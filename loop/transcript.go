package loop

import (
	"path/filepath"
	"strconv"
)

// Each iteration keeps, in .architect/transcripts/iteration-N/, everything
// it said: the agent's output as it came (its JSON stream, or its text),
// a transcript derived from it for people, each check's whole output, and
// the iteration's diff. The prompt is in prompts/iteration-N.md. The files
// are bounded (transcript_limit: the head and the tail of a longer stream
// are kept, and the cut is said) and made safe like every other file
// (escapes removed, secrets masked), and they are archived with the run.
const (
	TranscriptsDir  = "transcripts"
	AgentStdoutFile = "agent.out"     // the agent's standard output (its JSON stream)
	AgentStderrFile = "agent.err"     // its standard error
	TranscriptFile  = "transcript.md" // what the agent said and did, for people
	DiffFile        = "diff.patch"    // the iteration's diff
)

// TranscriptDir is iteration n's folder, relative to .architect/.
func TranscriptDir(n int) string {
	return filepath.Join(TranscriptsDir, "iteration-"+strconv.Itoa(n))
}

// CheckFile is the name of the file of check index i (0-based) in an
// iteration's folder: check-1.log for the first.
func CheckFile(i int) string { return "check-" + strconv.Itoa(i+1) + ".log" }
