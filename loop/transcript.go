package loop

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/gitwt"
	"github.com/architect-dev/architect/proc"
	"github.com/architect-dev/architect/prompt"
	"github.com/architect-dev/architect/redact"
	"github.com/architect-dev/architect/runlog"
)

// Each iteration keeps, in .architect/transcripts/iteration-N/, everything
// it said: the agent's output as it came (its JSON stream, or its text),
// a transcript derived from it for people, each check's whole output, and
// the iteration's diff. The prompt is in prompts/iteration-N.md. The files
// are bounded (transcript_limit: the head and the tail of a longer stream
// are kept, and the cut is said) and made safe like every other file
// (escapes removed, secrets masked), and they are archived with the run (runlog names them).

// diffKeep bounds the diff of the changes so far that the loop keeps:
// the prompt takes its first prompt.DiffLimit bytes, and an iteration
// that was not committed has its own diff made from it.
const diffKeep = 1 << 20

// promptDiff is the part of the changes so far a prompt shows, and how
// many bytes it leaves out.
func promptDiff(d gitwt.Diff) (string, int64) {
	text, rest := prompt.Truncate(d.Text, prompt.DiffLimit)
	return proc.Clean([]byte(text)), d.Truncated + rest
}

// transcript is an iteration's folder while the iteration runs; nil when
// it could not be made (the run goes on without it, having said so).
type transcript struct {
	dir      string
	out, err *keepFile
	mu       sync.Mutex
	checks   []*keepFile
}

// openTranscript makes iteration i's folder and its agent streams.
func (r *runner) openTranscript(i int) *transcript {
	dir := r.ws.state(runlog.TranscriptDir(i))
	t := &transcript{dir: dir}
	err := os.MkdirAll(dir, 0o700)
	if err == nil {
		t.out, err = newKeepFile(filepath.Join(dir, runlog.AgentStdoutFile), r.transcriptLimit(), r.streamClean())
	}
	if err == nil {
		t.err, err = newKeepFile(filepath.Join(dir, runlog.AgentStderrFile), r.transcriptLimit(), r.streamClean())
	}
	if err != nil {
		r.transcriptFailed(err)
		t.close()
		return nil
	}
	return t
}

// streamClean is cleanText for the lines of one stream: unless
// redact_known is off, a private-key block printed over several lines is
// masked whole (redact.Lines).
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
	if !r.transcriptWarned {
		r.transcriptWarned = true
		r.warn("cannot keep the iteration's transcript: " + r.cleanText(err.Error()))
	}
}

// agentCopies are the writers the agent's output is copied to.
func (t *transcript) agentCopies() (stdout, stderr io.Writer) {
	if t == nil {
		return nil, nil
	}
	return t.out, t.err
}

// checkOutput gives each check a file of its own, written as it runs and
// closed as it ends (before the check_finished event: a view shows it).
func (r *runner) checkOutput(t *transcript) func(i int) io.Writer {
	if t == nil {
		return nil
	}
	return func(i int) io.Writer {
		k, err := newKeepFile(filepath.Join(t.dir, runlog.CheckFile(i)), r.transcriptLimit(), r.streamClean())
		if err != nil {
			r.transcriptFailed(err)
			return nil
		}
		t.mu.Lock()
		t.checks = append(t.checks, k)
		t.mu.Unlock()
		return k
	}
}

// close closes every stream of the iteration (a check's is closed as the
// check ends: closing it again only gives its error) and returns the first
// error, a file that could not be created included.
func (t *transcript) close() error {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	ks := append([]*keepFile{t.out, t.err}, t.checks...)
	t.mu.Unlock()
	var first error
	for _, k := range ks {
		if k != nil {
			if err := k.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}

// finishAgent closes the agent's streams and writes the transcript made
// from them.
func (r *runner) finishAgent(t *transcript) {
	if t == nil {
		return
	}
	if err := t.close(); err != nil {
		r.transcriptFailed(err)
	}
	var stdout io.Reader = strings.NewReader("")
	printed := false
	switch out, err := os.Open(filepath.Join(t.dir, runlog.AgentStdoutFile)); {
	case err == nil:
		defer out.Close()
		stdout, printed = out, true
	case !os.IsNotExist(err):
		r.transcriptFailed(err)
		return
	}
	errOut, _ := runlog.ReadEnd(filepath.Join(t.dir, runlog.AgentStderrFile), 64<<10)
	if !printed && len(errOut) == 0 {
		return // the agent printed nothing: there is nothing to read
	}
	if err := os.WriteFile(filepath.Join(t.dir, runlog.TranscriptFile), []byte(agent.Transcript(stdout, errOut)), 0o600); err != nil {
		r.transcriptFailed(err)
	}
}

// keepPatch notes the changes so far after iteration i (or, with i 0,
// before the session's first iteration); an iteration that is not
// committed gets its own diff from the difference (a committed one gets
// its commit's: commitDiff).
func (r *runner) keepPatch(i int, patch string) {
	if i > 0 && !r.commits() {
		if r.last.patchKnown {
			own, files := ownChanges(r.last.patch, patch)
			text := fmt.Sprintf("# architect: iteration %d changed %d file(s). It was not committed, so each is shown with all its changes since the run began.\n\n%s", i, files, own)
			r.writeDiff(i, text)
		} else {
			r.writeDiff(i, fmt.Sprintf("# architect: the changes so far after iteration %d (what it changed itself cannot be told apart).\n\n%s", i, patch))
		}
	}
	r.last.patch, r.last.patchKnown = patch, true
}

// keepRunDiff writes the whole run's diff so far (d: the changes since
// the run began, what merge brings in) to .architect/run.patch, for the
// report, which reads records and runs no git.
func (r *runner) keepRunDiff(d gitwt.Diff) {
	text := d.Text
	if d.Truncated > 0 {
		text += fmt.Sprintf("\n… architect: %d more bytes of the run's diff are not kept here; git diff shows them all\n", d.Truncated)
	}
	if err := os.WriteFile(r.ws.state(runlog.RunDiffFile), []byte(r.cleanText(text)), 0o600); err != nil {
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
	text := c.Text
	if c.Truncated > 0 {
		text += fmt.Sprintf("\n… architect: %d more bytes of this diff are in commit %s\n", c.Truncated, rec.Commit)
	}
	r.writeDiff(rec.Iteration.Iteration, text)
}

func (r *runner) writeDiff(i int, text string) {
	dir := r.ws.state(runlog.TranscriptDir(i))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		r.transcriptFailed(err)
		return
	}
	if err := os.WriteFile(filepath.Join(dir, runlog.DiffFile), []byte(r.cleanText(text)), 0o600); err != nil {
		r.transcriptFailed(err)
	}
}

// ownChanges keeps, of the changes so far after an iteration (after), the
// files whose changes differ from those before it, and names the files
// whose changes went away (back as they were when the run began). Each
// file's part of a diff made with --full-index names its content, so an
// equal part means an unchanged file.
func ownChanges(before, after string) (patch string, files int) {
	was := diffParts(before)
	var b strings.Builder
	now := map[string]bool{}
	for _, p := range diffPartsOrdered(after) {
		now[p.name] = true
		if was[p.name] != p.text {
			b.WriteString(p.text)
			files++
		}
	}
	for name := range was {
		if !now[name] {
			fmt.Fprintf(&b, "# %s: back as it was when the run began\n", name)
			files++
		}
	}
	return b.String(), files
}

type diffPart struct{ name, text string }

// diffPartsOrdered splits a git diff into its files' parts, in order.
func diffPartsOrdered(d string) []diffPart {
	var parts []diffPart
	for d != "" {
		next := strings.Index(d[1:], "\ndiff --git ")
		part := d
		if next >= 0 {
			part, d = d[:next+2], d[next+2:]
		} else {
			d = ""
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(part, "diff --git "), "\n")
		parts = append(parts, diffPart{name, part})
	}
	return parts
}

func diffParts(d string) map[string]string {
	m := map[string]string{}
	for _, p := range diffPartsOrdered(d) {
		m[p.name] = p.text
	}
	return m
}
