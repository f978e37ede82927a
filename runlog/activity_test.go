package runlog

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"
)

// A fast agent's burst of steps all reach the view; an agent that prints
// without end is bounded, and the view is told how many lines it skipped.
func TestActivityBurstsPassAndFloodsAreCounted(t *testing.T) {
	is := is.New(t)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var got []string
	e := OpenEventLog(filepath.Join(t.TempDir(), "events.jsonl"), func(ev Event) {
		if ev.Type == EventAgentActivity {
			got = append(got, ev.Text)
		}
	}, func() time.Time { return now }, func(string) {})
	defer e.Close()
	same := func(s string) string { return s }

	// a burst: tool calls, results and text within the same instant
	for _, s := range []string{"Read main.go", "Bash: go test ./...", "Write main.go", "Done."} {
		e.Activity(1, s, same)
	}
	is.Equal(got, []string{"Read main.go", "Bash: go test ./...", "Write main.go", "Done."})

	// a flood: far more lines at once than the bound lets through
	got = nil
	for i := 0; i < 1000; i++ {
		e.Activity(1, "line", same)
	}
	is.True(len(got) < 100)
	is.True(len(got) >= activityBurst-4)
	// once time passes, the next line comes after a count of the skipped
	now = now.Add(time.Second)
	got = nil
	e.Activity(1, "after", same)
	is.Equal(len(got), 2)
	is.True(strings.HasPrefix(got[0], "… ") && strings.Contains(got[0], "lines of activity skipped"))
	is.Equal(got[1], "after")
}
