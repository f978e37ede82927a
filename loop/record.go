package loop

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/architect-dev/architect/runlog"
)

// recordIteration is the record step: the iteration's commit first
// (worktree runs and build mode), so that the record is written once and
// complete; then the record (from then on the iteration counts as done);
// then everything derived from it. An interrupted iteration is not
// committed: its changes stay in the tree for the next one. git runs under
// gitCtx (the run's deadline).
func (r *runner) recordIteration(gitCtx context.Context, x *iteration) bool {
	rec := &x.rec
	if rec.Interrupted == "" && r.commits() {
		// A worktree run commits every iteration on its branch; a build-mode
		// run commits each iteration on the current branch (seed 000: build
		// commits after each task).
		passing := 0
		for _, c := range rec.CheckResults {
			if c.Passed {
				passing++
			}
		}
		msg := fmt.Sprintf("architect: iteration %d (%d/%d checks passing)", rec.Iteration.Iteration, passing, len(rec.CheckResults))
		from := r.st.LastCommit
		if from == "" {
			from = r.ws.initialRef
		}
		hash, committed, err := r.ws.commit(gitCtx, msg)
		switch {
		case err != nil:
			r.warn("could not commit iteration " + strconv.Itoa(rec.Iteration.Iteration) + " on " + r.branchName() + ": " + r.cleanText(err.Error()))
		case committed:
			rec.Commit = hash
		}
		if err == nil {
			r.commitDiff(gitCtx, rec, from)
		}
	}
	r.notes.mu.Lock()
	if r.notes.takingFor == rec.Iteration.Iteration {
		rec.NoteIDs = r.notes.taking
	}
	r.notes.mu.Unlock()
	if len(rec.NoteIDs) == 0 {
		rec.Notes = nil // the notes were not this iteration's to deliver
	}
	if err := runlog.AppendRecord(r.ws.state(runlog.RecordsFile), rec.Record); err != nil {
		r.stop(runlog.StopError, "could not record iteration "+strconv.Itoa(rec.Iteration.Iteration)+": "+err.Error())
		return false
	}
	r.notesRecorded(*rec) // delivered: out of the queue
	r.inflightDone()
	r.records = append(r.records, *rec)
	r.res.Add(rec.Iteration)
	if rec.ChecksRun {
		r.last.prevPrev, r.last.prev = r.last.prev, rec.CheckResults
	}
	r.last.execErr = ""
	if rec.Error != nil && rec.Interrupted == "" {
		r.last.execErr = *rec.Error
	}
	r.last.interruptNote = interruptNote(rec.Iteration)
	if err := r.writeProgress(); err != nil {
		r.warn("could not update the progress file: " + err.Error())
	}
	r.recount()
	r.save("recorded")
	r.ev.emit(iterationFinished(rec.Iteration))
	return true
}

// branchName names the branch commits go to, for messages.
func (r *runner) branchName() string {
	if r.ws.branch != "" {
		return r.ws.branch
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
		b.WriteString(progressEntry(rec.Iteration))
	}
	path := r.ws.state(runlog.ProgressFile)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func stamp(t time.Time) string { return runlog.Stamp(t) }

// record is an iteration as the loop keeps it: its record on disk, and
// what this session knows of it besides.
type record struct {
	runlog.Record
	patternFound bool // the done pattern matched the final message (this session only)
}
