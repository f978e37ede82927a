//go:build unix

package e2e

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"
)

// transcriptsKept checks, after a run fixed in two iterations by a real
// CLI, what each iteration kept in .architect/transcripts/: the CLI's own
// output stream, a transcript made from it with the messages and the tool
// calls, the check's output, the iteration's diff; that secret (a value
// the CLI's environment holds, which its first final message quoted) is
// masked in every file; and that `architect show` prints the transcript.
func transcriptsKept(t *testing.T, r *Run, dir, tool, secret string) {
	t.Helper()
	is := is.New(t)
	at := func(n int, name string) string {
		return ReadFile(t, filepath.Join(dir, ".architect", "transcripts", "iteration-"+string(rune('0'+n)), name))
	}
	for n := 1; n <= 2; n++ {
		out := at(n, "agent.out")
		is.True(strings.Count(out, "\n{") >= 2) // the CLI's JSON stream, as it came
		tr := at(n, "transcript.md")
		is.True(strings.Contains(tr, "[assistant]\n"))
		if !strings.Contains(tr, tool) {
			t.Fatalf("iteration %d's transcript has no %q:\n%s", n, tool, tr)
		}
	}
	is.True(strings.Contains(at(1, "transcript.md"), "it should work now (key ***)"))
	is.True(strings.Contains(at(2, "transcript.md"), "Add adds now. <promise>COMPLETE</promise>"))
	is.True(strings.Contains(at(1, "check-1.log"), "Add(2, 3) = 6, want 5")) // the check's output
	is.True(strings.Contains(at(2, "diff.patch"), "+\treturn a + b"))        // the iteration's diff
	is.True(!strings.Contains(at(2, "diff.patch"), "a * b\n+"))

	err := filepath.WalkDir(filepath.Join(dir, ".architect"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(data), secret) {
			t.Errorf("%s holds the secret", p)
		}
		return err
	})
	is.NoErr(err)

	res := r.Architect(dir, time.Minute, "show", "1", "--no-pager", "-C", dir)
	is.Equal(res.ExitCode, 0)
	is.True(strings.HasPrefix(res.Stdout, "iteration 1: 0/1 checks passing · "))
	is.True(strings.Contains(res.Stdout, "it should work now (key ***)"))
	is.True(strings.Contains(res.Stdout, tool))
}
