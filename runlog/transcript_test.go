package runlog

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// An iteration that was not committed keeps, of the changes so far, the
// files whose changes it made (not those it left as they were), and names
// the files it put back as they were when the run began.
func TestUncommittedDiffTextKeepsTheIterationsOwnChanges(t *testing.T) {
	is := is.New(t)
	a1 := "diff --git a/a b/a\nindex 1..2\n+one\n"
	a2 := "diff --git a/a b/a\nindex 1..3\n+two\n"
	b := "diff --git a/b b/b\nindex 4..5\n+bee\n"
	c := "diff --git a/c c/c\nindex 6..7\n+sea\n"
	got := UncommittedDiffText(2, a1+b+c, true, a2+b)
	is.Equal(got, "# architect: iteration 2 changed 2 file(s). It was not committed, so each is shown with all its changes since the run began.\n\n"+
		a2+"# a/c c/c: back as it was when the run began\n")
	is.Equal(UncommittedDiffText(1, "", false, a1),
		"# architect: the changes so far after iteration 1 (what it changed itself cannot be told apart).\n\n"+a1)
}

// The agent's transcript for people is made from what it printed, with its
// streams closed first; an agent that printed nothing leaves none.
func TestFinishAgentWritesTheTranscriptOfWhatWasPrinted(t *testing.T) {
	is := is.New(t)
	render := func(stdout io.Reader, stderr []byte) string {
		out, _ := io.ReadAll(stdout)
		return fmt.Sprintf("out=%q err=%q", out, stderr)
	}
	same := func(s string) string { return strings.ReplaceAll(s, "s3cret", "***") }

	quiet := filepath.Join(t.TempDir(), "iteration-1")
	tr, err := OpenTranscript(quiet, 1<<20, func() func(string) string { return same })
	is.NoErr(err)
	is.NoErr(tr.FinishAgent(render))
	_, err = os.Stat(filepath.Join(quiet, TranscriptFile))
	is.True(os.IsNotExist(err)) // nothing printed, nothing to read

	dir := filepath.Join(t.TempDir(), "iteration-2")
	tr, err = OpenTranscript(dir, 1<<20, func() func(string) string { return same })
	is.NoErr(err)
	stdout, stderr := tr.AgentCopies()
	_, _ = io.WriteString(stdout, "step s3cret\n")
	_, _ = io.WriteString(stderr, "warn")
	check, err := tr.CheckOutput(0)
	is.NoErr(err)
	_, _ = io.WriteString(check, "ok\n")
	is.NoErr(tr.FinishAgent(render))
	data, err := os.ReadFile(filepath.Join(dir, TranscriptFile))
	is.NoErr(err)
	is.Equal(string(data), `out="step ***\n" err="warn"`)
	data, err = os.ReadFile(filepath.Join(dir, CheckFile(0)))
	is.NoErr(err)
	is.Equal(string(data), "ok\n") // closed with the iteration's streams
}
