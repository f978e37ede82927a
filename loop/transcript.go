package loop

import (
	"context"
	"io"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/changes"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/proc"
	"github.com/architect-dev/architect/prompt"
	"github.com/architect-dev/architect/redact"
	"github.com/architect-dev/architect/runlog"
)

// Each iteration keeps, in .architect/transcripts/iteration-N/, everything
// it said (runlog.Transcript writes it): the agent's output, a transcript
// for people, each check's output, and the iteration's diff. Here the
// runner opens it, says once a run when it cannot, and decides which diff
// an iteration keeps.

// diffKeep bounds the diff of the changes so far that the loop keeps:
// the prompt takes its first prompt.DiffLimit bytes, and an iteration
// that was not committed has its own diff made from it.
const diffKeep = 1 << 20

// promptDiff is the part of the changes so far a prompt shows, and how
// many bytes it leaves out.
func promptDiff(d changes.Diff) (string, int64) {
	text, rest := prompt.Truncate(d.Text, prompt.DiffLimit)
	return proc.Clean([]byte(text)), d.Truncated + rest
}

// transcript is an iteration's folder while the iteration runs
// (runlog.Transcript); nil when it could not be made (the run goes on
// without it, having said so).
type transcript runlog.Transcript

// openTranscript makes an iteration's folder (dir, relative to the state
// folder) and its agent streams.
func (r *runner) openTranscript(dir string) *transcript {
	t, err := runlog.OpenTranscript(r.ws.state(dir), r.transcriptLimit(), r.streamClean)
	if err != nil {
		r.transcriptFailed(err)
		return nil
	}
	return (*transcript)(t)
}

// streamClean makes a cleaner for the lines of one stream: cleanText, and
// unless redact_known is off, a private-key block printed over several
// lines masked whole (redact.Lines, which keeps state: one per stream).
func (r *runner) streamClean() func(string) string {
	if r.cfg.RedactKnown == config.RedactKnownOff {
		return r.cleanText
	}
	return redact.Lines(r.cleanText)
}

func (r *runner) transcriptLimit() int64 {
	if r.cfg.TranscriptLimit > 0 {
		return int64(r.cfg.TranscriptLimit)
	}
	return int64(config.Defaults().TranscriptLimit)
}

// transcriptFailed warns, once a run, that transcripts are not kept.
func (r *runner) transcriptFailed(err error) {
	r.outMu.Lock()
	warned := r.transcriptWarned
	r.transcriptWarned = true
	r.outMu.Unlock()
	if !warned {
		r.transcriptWarned = true
		r.warn("cannot keep the iteration's transcript: " + r.cleanText(err.Error()))
	}
}

// agentCopies are the writers the agent's output is copied to.
func (t *transcript) agentCopies() (stdout, stderr io.Writer) {
	return (*runlog.Transcript)(t).AgentCopies()
}

// checkOutput gives each check a file of its own, written as it runs and
// closed as it ends (before the check_finished event: a view shows it).
func (r *runner) checkOutput(t *transcript) func(i int) io.Writer {
	if t == nil {
		return nil
	}
	return func(i int) io.Writer {
		w, err := (*runlog.Transcript)(t).CheckOutput(i)
		if err != nil {
			r.transcriptFailed(err)
			return nil
		}
		return w
	}
}

// close closes every stream of the iteration and returns the first error.
func (t *transcript) close() error { return (*runlog.Transcript)(t).Close() }

// finishAgent closes the agent's streams and writes the transcript made
// from them.
func (r *runner) finishAgent(t *transcript) {
	if err := (*runlog.Transcript)(t).FinishAgent(agent.Transcript); err != nil {
		r.transcriptFailed(err)
	}
}

// keepPatch notes the changes so far after iteration x; one that is not
// committed gets its own diff from the difference (a committed one gets
// its commit's: commitDiff).
func (r *runner) keepPatch(x *iteration, patch string) {
	if !r.commits() {
		r.writeDiff(x.n, runlog.UncommittedDiffText(x.n, x.patch, x.patchKnown, patch))
	}
	x.patch, x.patchKnown = patch, true
}

// keepRunDiff writes the whole run's diff so far (d: the changes since
// the run began, what merge brings in) to .architect/run.patch, for the
// report, which reads records and runs no git.
func (r *runner) keepRunDiff(d changes.Diff) {
	if err := runlog.WriteRunDiff(r.ws.state(runlog.RunDiffFile), r.cleanText(runlog.RunDiffText(d.Text, d.Truncated))); err != nil {
		r.transcriptFailed(err)
	}
}

// commitDiff records a committed iteration's own change: the diff of its
// commit against the one before (from), exactly, with its size. An
// iteration that changed nothing has a size of nothing.
func (r *runner) commitDiff(ctx context.Context, rec *record, from string) {
	if rec.Commit == "" {
		rec.Diff = &runlog.DiffSize{}
		return
	}
	c, err := r.ws.repo.Between(ctx, from, rec.Commit, diffKeep)
	if err != nil {
		r.transcriptFailed(err)
		return
	}
	rec.Diff = &runlog.DiffSize{Files: c.Files, Added: c.Added, Deleted: c.Deleted}
	r.writeDiff(rec.Iteration.Iteration, runlog.CommitDiffText(c.Text, c.Truncated, rec.Commit))
}

func (r *runner) writeDiff(i int, text string) {
	if err := runlog.WriteDiff(r.ws.state(runlog.TranscriptDir(i)), r.cleanText(text)); err != nil {
		r.transcriptFailed(err)
	}
}
