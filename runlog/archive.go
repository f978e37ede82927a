package runlog

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Archived is what Archive moved away from a previous run.
type Archived struct {
	Dir   string   // .architect/runs/<time>
	Names []string // the files and folders moved there
}

// Archive prepares the run folder stateDir (a workspace's .architect/) for
// a new run. A previous run's files (progress, prompts, transcripts,
// records, state, result, events, and the DONE and WAIT signals when they
// are architect's own: ownDone) are moved to .architect/runs/<time>/,
// named by the time of the newest of them, so the agent starts without
// that history and nothing of it is lost; what was moved is returned, to
// tell the user.
func Archive(stateDir string, ownDone bool) (Archived, error) {
	var a Archived
	in := func(parts ...string) string { return filepath.Join(append([]string{stateDir}, parts...)...) }
	if err := os.MkdirAll(in(PromptsDir), 0o700); err != nil {
		return a, err
	}
	_ = os.Chmod(stateDir, 0o700)
	names := []string{ProgressFile, PromptsDir, TranscriptsDir, ReportFile, ResultFile, RecordsFile, StateFile, IterationsLog, EventsFile, WaitFile,
		AgentResultFile, InflightFile, NotesDir, RunDiffFile, JudgeFile}
	names = append(names, TestsFile)
	if ownDone {
		names = append(names, DoneFile)
	}
	var newest time.Time
	found := false
	for _, name := range names {
		if fi, err := os.Stat(in(name)); err == nil && (!fi.IsDir() || !emptyDir(in(name))) {
			found = true
			if fi.ModTime().After(newest) {
				newest = fi.ModTime()
			}
		}
	}
	if !found {
		return a, nil // no previous run
	}
	fi, err := os.Stat(stateDir)
	if err != nil {
		return a, err
	}
	if newest.IsZero() {
		newest = fi.ModTime()
	}
	base := in(RunsDir, newest.UTC().Format("20060102T150405.000Z"))
	dir := base
	for n := 2; ; n++ {
		err := os.Mkdir(dir, 0o700)
		if err == nil {
			break
		}
		if os.IsNotExist(err) {
			if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
				return a, err
			}
			continue
		}
		if !os.IsExist(err) {
			return a, err
		}
		dir = fmt.Sprintf("%s-%d", base, n)
	}
	a.Dir = dir
	for _, name := range names {
		if _, err := os.Stat(in(name)); err == nil {
			if err := os.Rename(in(name), filepath.Join(dir, name)); err != nil {
				return a, err
			}
			a.Names = append(a.Names, name)
		}
	}
	return a, os.MkdirAll(in(PromptsDir), 0o700)
}

func emptyDir(path string) bool {
	ents, err := os.ReadDir(path)
	return err == nil && len(ents) == 0
}
