// Package runlog is a run's records on disk: what a loop leaves in
// .architect/ and what everything that reads a run reads. The state
// (state.json), the iteration records (iterations.jsonl), the event stream
// (events.jsonl, EventLog), the iterations log for people (iterations.log,
// LineLog), the progress file (ProgressEntry), the result (result.json),
// the iteration running now (current.json), the control file and the notes
// queue that steer a run, the transcripts and their bounded files
// (Transcript), the workspace's lock (LockWorkspace), and the archive of
// earlier runs. The loop decides what to record; this package writes it.
//
// It is a leaf: it knows the formats, not the engine that writes them, so
// the surfaces (report, ghactions, hooks, the terminal view) and the
// command line read a run without importing the loop. Where a record holds
// something another package defines (the configuration, the processes'
// owner), it keeps it as raw JSON and the writer converts: the format on
// disk is the one the loop has always written.
package runlog

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// The run's folder in a workspace, and the files in it.
const (
	StateDir      = ".architect"
	StateFile     = "state.json"
	RecordsFile   = "iterations.jsonl"
	IterationsLog = "iterations.log"
	ControlFile   = "control.json"
	LockFile      = "lock"
	DoneFile      = "DONE"
	WaitFile      = "WAIT"
	ResultFile    = "result.json"
	EventsFile    = "events.jsonl"
	ProgressFile  = "ralph-progress.md"
	PromptsDir    = "prompts"
	ReportFile    = "report.html"
	// ReceiptFile is the run receipt (architect github): the commits, the
	// diff's hash, the checks and the cost, as JSON.
	ReceiptFile = "receipt.json"
	// RunDiffFile is the whole run's diff so far (what merge brings in),
	// rewritten after every iteration: its head, at most the loop's bound,
	// with a line saying what is cut.
	RunDiffFile = "run.patch"
	// InflightFile describes the iteration running now (see Inflight).
	InflightFile = "current.json"
	// AgentResultFile is where a command agent reports its cost and final
	// message (ARCHITECT_RESULT_FILE).
	AgentResultFile = "agent-result.json"
	// JudgeFile holds the files that define the checks as they were when
	// the run started (a protect.Snapshot), which a resumed run protects.
	JudgeFile = "judge.json"
	// SetupLogFile is the output of the worktree's setup command
	// (worktree_setup.command), bounded and made safe as a check's.
	SetupLogFile = "setup.log"
	// NotesDir is the queue of notes (see AddNote).
	NotesDir = "notes"
	// RunsDir holds the earlier runs' files (see Archive).
	RunsDir = "runs"
)

// Each iteration keeps, in .architect/transcripts/iteration-N/, everything
// it said: the agent's output as it came (its JSON stream, or its text),
// a transcript derived from it for people, each check's whole output, and
// the iteration's diff. The prompt is in prompts/iteration-N.md.
const (
	TranscriptsDir  = "transcripts"
	AgentStdoutFile = "agent.out"     // the agent's standard output (its JSON stream)
	AgentStderrFile = "agent.err"     // its standard error
	TranscriptFile  = "transcript.md" // what the agent said and did, for people
	DiffFile        = "diff.patch"    // the iteration's diff
)

// Path is the file name in workspace's .architect/ folder.
func Path(workspace, name string) string {
	return workspace + string(os.PathSeparator) + StateDir + string(os.PathSeparator) + name
}

// TranscriptDir is iteration n's folder, relative to .architect/.
func TranscriptDir(n int) string {
	return filepath.Join(TranscriptsDir, "iteration-"+strconv.Itoa(n))
}

// CheckFile is the name of the file of check index i (0-based) in an
// iteration's folder: check-1.log for the first.
func CheckFile(i int) string { return "check-" + strconv.Itoa(i+1) + ".log" }

// ReadEnd reads the end of the file at path, at most limit bytes (a
// transcript's file, which may be long).
func ReadEnd(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > limit {
		if _, err := f.Seek(-limit, io.SeekEnd); err != nil {
			return nil, err
		}
	}
	return io.ReadAll(f)
}

// OpenAppend opens the file at path for appending, creating it (mode 0600)
// when it is not there: every file of .architect/ that grows by lines
// (records, events, the iterations log, progress) is opened here.
func OpenAppend(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
}

// AppendFile appends text to the file at path with one write, creating the
// file (mode 0600) when it is not there.
func AppendFile(path, text string) error { return AppendFileMode(path, text, 0o600) }

// AppendFileMode is AppendFile for a file outside .architect/ that others
// read too ($GITHUB_STEP_SUMMARY, .git/info/exclude): perm is its mode
// when it is created. Every append architect makes goes through here.
func AppendFileMode(path, text string, perm os.FileMode) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, perm)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Stamp is how the records write a time: RFC 3339 in UTC, to the second.
func Stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }
