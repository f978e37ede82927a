package loop

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/architect-dev/architect/changes"
	"github.com/architect-dev/architect/runlog"
)

// writeRecord is the record step: the iteration's commit first (worktree
// runs and build mode), so that the record is written once and complete;
// then the record, appended to iterations.jsonl. An interrupted iteration
// is not committed: its changes stay in the tree for the next one. git
// runs under gitCtx (the run's deadline); from is the commit the run's
// changes so far start from (the last one, "" for none yet). It returns
// the record as written; an error means it is not.
func (r *runner) writeRecord(gitCtx context.Context, rec record, from string) (record, error) {
	if rec.Interrupted == "" && r.commits() {
		r.commitIteration(gitCtx, &rec, from)
	}
	r.notes.mu.Lock()
	if r.notes.takingFor == rec.Iteration.Iteration {
		rec.NoteIDs = r.notes.taking
	}
	r.notes.mu.Unlock()
	if len(rec.NoteIDs) == 0 {
		rec.Notes = nil // the notes were not this iteration's to deliver
	}
	return rec, r.recs.Append(rec.Record)
}

// commitIteration commits what the iteration changed: a worktree run
// commits every iteration on its branch; a build-mode run commits each
// iteration on the current branch (build commits after each task).
func (r *runner) commitIteration(gitCtx context.Context, rec *record, from string) {
	passing := 0
	for _, c := range rec.CheckResults {
		if c.Passed {
			passing++
		}
	}
	msg := fmt.Sprintf("architect: iteration %d (%d/%d checks passing)", rec.Iteration.Iteration, passing, len(rec.CheckResults))
	if from == "" {
		from = r.ws.initialRef
	}
	hash, committed, err := r.ws.commit(gitCtx, msg)
	switch {
	case errors.Is(err, changes.ErrIndexBusy):
		// Someone else's git (a shell running git add or commit): the
		// commit waits for the next iteration, which takes these changes
		// with its own.
		rec.CommitDeferred = "another git process was using the index (" + r.cleanText(err.Error()) + "); nothing was lost: the changes stay in the working tree and the next commit takes them"
		r.warn("iteration " + strconv.Itoa(rec.Iteration.Iteration) + " not committed: " + rec.CommitDeferred)
	case err != nil:
		r.warn("could not commit iteration " + strconv.Itoa(rec.Iteration.Iteration) + " on " + r.ws.branchName() + ": " + r.cleanText(err.Error()))
	case committed:
		rec.Commit = hash
	}
	if err == nil {
		r.commitDiff(gitCtx, rec, from)
	}
}

// lastResults are the check results an iteration leaves to the next
// prompt: those of its last look when that failed, else its own.
func lastResults(it runlog.Iteration) []runlog.CheckResult {
	if fc := it.FinalCheck; fc != nil && fc.Status == runlog.FinalFailed && len(fc.CheckResults) > 0 {
		return fc.CheckResults
	}
	return it.CheckResults
}

// branchName names the branch commits go to, for messages.
func (w *workspace) branchName() string {
	if w.branch != "" {
		return w.branch
	}
	return "the current branch"
}

// interruptNote tells the next agent that the previous iteration was
// stopped before its checks ran.
func interruptNote(it runlog.Iteration) string {
	if it.Interrupted == "" {
		return ""
	}
	why := map[string]string{
		runlog.InterruptMaxTime: "the run's time limit was reached",
		runlog.InterruptSignal:  "the run was stopped",
		runlog.InterruptMaxCost: "the budget was reached",
		runlog.InterruptKilled:  "architect was killed",
		runlog.InterruptNote:    "the person running the loop asked for a new iteration with their note",
	}[it.Interrupted]
	return fmt.Sprintf("Iteration %d was interrupted (%s) before its checks ran: whatever it changed is in the workspace, unchecked.", it.Iteration, why)
}

// writeProgress rewrites the progress file from the records. It is derived
// data (rebuilt on resume), so an atomic rename without fsync is enough.
func (r *runner) writeProgress() error {
	var b strings.Builder
	for _, rec := range r.records {
		b.WriteString(runlog.ProgressEntry(rec.Iteration))
	}
	if err := runlog.WriteFileQuick(r.ws.state(runlog.ProgressFile), []byte(b.String())); err != nil {
		return err
	}
	r.progressSize = int64(b.Len())
	return nil
}

// progressAdd brings the progress file up to date with the last record:
// its entry is appended when the file is as the loop left it (the same
// size), and the whole file is written again from the records otherwise
// (someone changed it, or an append was cut short), so that it stays what
// the records say.
func (r *runner) progressAdd(rec record) error {
	path := r.ws.state(runlog.ProgressFile)
	if fi, err := os.Stat(path); err != nil || fi.Size() != r.progressSize {
		return r.writeProgress()
	}
	entry, size := runlog.ProgressEntry(rec.Iteration), r.progressSize
	r.progressSize = -1 // unknown until the append is whole
	if err := runlog.AppendFile(path, entry); err != nil {
		return err
	}
	r.progressSize = size + int64(len(entry))
	return nil
}

func stamp(t time.Time) string { return runlog.Stamp(t) }

// record is an iteration as the loop keeps it: its record on disk, and
// what this session knows of it besides.
type record struct {
	runlog.Record
	patternFound bool // the done pattern matched the final message (this session only)
}

// synced waits for the last record to reach the disk (its fsync runs in
// the background while the loop goes on: see runlog.RecordLog), then
// removes what a resume would have rebuilt it from: the inflight file and
// the notes it delivered. It runs before the next agent starts (which
// writes the inflight file again) and before the run ends. It reports
// whether the record is there; a record that could not reach the disk
// comes back as the stop it causes (stop_reason error), which overrides
// whatever else the run had decided.
func (r *runner) synced() (bool, *stop) {
	err := r.recs.Synced()
	rec := r.unsynced
	r.unsynced = runlog.Record{}
	if rec.Iteration.Iteration == 0 {
		return err == nil, nil
	}
	if err != nil {
		return false, stopAt(runlog.StopError, "could not record iteration "+strconv.Itoa(rec.Iteration.Iteration)+": "+err.Error())
	}
	for _, id := range rec.NoteIDs {
		_ = os.Remove(r.ws.state(runlog.NotesDir, id+".json"))
	}
	r.ws.inflightDone()
	return true, nil
}
