package runlog

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Each iteration keeps, in its folder (TranscriptDir), everything it said:
// the agent's output as it came (its JSON stream, or its text), a
// transcript derived from it for people, each check's whole output, and
// the iteration's diff. The files are bounded (transcript_limit: the head
// and the tail of a longer stream are kept, and the cut is said) and made
// safe like every other file (escapes removed, secrets masked), and they
// are archived with the run.

// Transcript is an iteration's folder while the iteration runs. A nil
// *Transcript keeps nothing.
type Transcript struct {
	dir      string
	limit    int64
	clean    func() func(string) string
	out, err *boundedFile
	mu       sync.Mutex
	checks   []*boundedFile
}

// OpenTranscript makes the iteration's folder dir and its agent streams,
// each kept to limit bytes and cleaned line by line by a cleaner of its
// own that clean makes (one per stream: a cleaner may keep state between
// the lines of its stream, such as a private-key block being masked).
func OpenTranscript(dir string, limit int64, clean func() func(string) string) (*Transcript, error) {
	t := &Transcript{dir: dir, limit: limit, clean: clean}
	err := os.MkdirAll(dir, 0o700)
	if err == nil {
		t.out, err = newBoundedFile(filepath.Join(dir, AgentStdoutFile), limit, clean())
	}
	if err == nil {
		t.err, err = newBoundedFile(filepath.Join(dir, AgentStderrFile), limit, clean())
	}
	if err != nil {
		t.Close()
		return nil, err
	}
	return t, nil
}

// AgentCopies are the writers the agent's output is copied to.
func (t *Transcript) AgentCopies() (stdout, stderr io.Writer) {
	if t == nil {
		return nil, nil
	}
	return t.out, t.err
}

// CheckOutput gives check index i (0-based) a file of its own, written as
// the check runs and closed by the check's runner as it ends.
func (t *Transcript) CheckOutput(i int) (io.Writer, error) {
	k, err := newBoundedFile(filepath.Join(t.dir, CheckFile(i)), t.limit, t.clean())
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	t.checks = append(t.checks, k)
	t.mu.Unlock()
	return k, nil
}

// Close closes every stream of the iteration (a check's is closed as the
// check ends: closing it again only gives its error) and returns the first
// error, a file that could not be created included.
func (t *Transcript) Close() error {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	ks := append([]*boundedFile{t.out, t.err}, t.checks...)
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

// FinishAgent closes the agent's streams and writes the transcript for
// people (TranscriptFile) that render makes from them: from the agent's
// standard output and the end of its standard error. An agent that
// printed nothing leaves no transcript. It returns the first error met;
// one in closing the streams does not stop the transcript.
func (t *Transcript) FinishAgent(render func(stdout io.Reader, stderr []byte) string) error {
	if t == nil {
		return nil
	}
	first := t.Close()
	var stdout io.Reader = strings.NewReader("")
	printed := false
	switch out, err := os.Open(filepath.Join(t.dir, AgentStdoutFile)); {
	case err == nil:
		defer out.Close()
		stdout, printed = out, true
	case !os.IsNotExist(err):
		return firstOf(first, err)
	}
	errOut, _ := ReadEnd(filepath.Join(t.dir, AgentStderrFile), 64<<10)
	if !printed && len(errOut) == 0 {
		return first // the agent printed nothing: there is nothing to read
	}
	err := os.WriteFile(filepath.Join(t.dir, TranscriptFile), []byte(render(stdout, errOut)), 0o600)
	return firstOf(first, err)
}

func firstOf(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// WriteDiff writes an iteration's diff (DiffFile) into its folder dir.
func WriteDiff(dir, text string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, DiffFile), []byte(text), 0o600)
}

// WriteRunDiff writes the whole run's diff so far (RunDiffFile) at path.
func WriteRunDiff(path, text string) error { return os.WriteFile(path, []byte(text), 0o600) }

// RunDiffText is the run's diff as RunDiffFile keeps it: text, the head
// of it, and a line saying how many more bytes there are.
func RunDiffText(text string, truncated int64) string {
	if truncated > 0 {
		text += fmt.Sprintf("\n… architect: %d more bytes of the run's diff are not kept here; git diff shows them all\n", truncated)
	}
	return text
}

// CommitDiffText is a committed iteration's own diff as its DiffFile keeps
// it: the head of the diff of its commit, and how much more is in it.
func CommitDiffText(text string, truncated int64, commit string) string {
	if truncated > 0 {
		text += fmt.Sprintf("\n… architect: %d more bytes of this diff are in commit %s\n", truncated, commit)
	}
	return text
}

// UncommittedDiffText is what the DiffFile of iteration i, which was not
// committed, says it changed: from the changes so far before it (before,
// when known) and after it, the files whose changes differ, each with all
// its changes since the run began. When before is not known, it is the
// changes so far after it, said to be so.
func UncommittedDiffText(i int, before string, known bool, after string) string {
	if !known {
		return fmt.Sprintf("# architect: the changes so far after iteration %d (what it changed itself cannot be told apart).\n\n%s", i, after)
	}
	own, files := ownChanges(before, after)
	return fmt.Sprintf("# architect: iteration %d changed %d file(s). It was not committed, so each is shown with all its changes since the run began.\n\n%s", i, files, own)
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
