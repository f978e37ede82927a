package merge

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/architect-dev/architect/runlog"
	"github.com/matryer/is"
)

// Two runs whose records are kept in the same second each keep their own:
// the second goes beside the first, never onto it.
func TestArchiveRecordsSameSecond(t *testing.T) {
	is := is.New(t)
	top := t.TempDir()
	at := time.Date(2026, 11, 28, 3, 40, 5, 0, time.UTC)
	var got []string
	for _, run := range []string{"first", "second"} {
		ws := filepath.Join(top, run)
		is.NoErr(os.MkdirAll(filepath.Join(ws, runlog.StateDir), 0o700))
		is.NoErr(os.WriteFile(filepath.Join(ws, runlog.StateDir, runlog.ResultFile), []byte(run), 0o600))
		to, err := archiveRecords(ws, top, "architect/ralph-loop", at)
		is.NoErr(err)
		got = append(got, to)
	}
	is.Equal(filepath.Base(got[0]), "architect-ralph-loop-20261128T034005Z")
	is.Equal(filepath.Base(got[1]), "architect-ralph-loop-20261128T034005Z-2")
	for i, run := range []string{"first", "second"} {
		b, err := os.ReadFile(filepath.Join(got[i], runlog.ResultFile))
		is.NoErr(err)
		is.Equal(string(b), run)
	}
}
