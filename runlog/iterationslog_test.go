package runlog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"
)

// The iterations log is appended to, a session after another, one line a
// call: the local time to the second, the kind in brackets, the text, and
// the whole line masked before it is written.
func TestLineLogAppendsStampedMaskedLines(t *testing.T) {
	is := is.New(t)
	path := filepath.Join(t.TempDir(), IterationsLog)
	at := time.Date(2026, 1, 15, 10, 30, 0, 999, time.Local)
	mask := func(s string) string { return strings.ReplaceAll(s, "sk-secret", "[REDACTED]") }
	for _, text := range []string{"iteration 1/25", "iteration 1 exit=1 error=sk-secret"} {
		l, err := OpenLineLog(path)
		is.NoErr(err)
		is.NoErr(l.Add(at, "START", text, mask))
		is.NoErr(l.Close())
		is.True(l.Add(at, "END", "after close", mask) != nil) // a closed log says so
	}
	b, err := os.ReadFile(path)
	is.NoErr(err)
	is.Equal(string(b), "2026-01-15T10:30:00 [START] iteration 1/25\n"+
		"2026-01-15T10:30:00 [START] iteration 1 exit=1 error=[REDACTED]\n")
}
