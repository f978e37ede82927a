// Package runlogtest reads a run's records for tests: the run's state,
// result and iteration records through runlog's types, failing the test
// at once when a file is missing or damaged.
package runlogtest

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/architect-dev/architect/runlog"
)

// State reads the state.json of the run in workspace.
func State(t testing.TB, workspace string) *runlog.State {
	t.Helper()
	st, err := runlog.ReadState(workspace)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// Result reads the result.json of the run in workspace.
func Result(t testing.TB, workspace string) *runlog.Result {
	t.Helper()
	res, err := runlog.ReadResult(workspace)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Records reads iterations.jsonl of the run in workspace strictly, every
// line as it is: a line that is not a whole record fails the test, and a
// record written twice comes back twice (the loop's reader, which repairs
// the file, would hide both).
func Records(t testing.TB, workspace string) []runlog.Record {
	t.Helper()
	f, err := os.Open(filepath.Join(workspace, runlog.StateDir, runlog.RecordsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []runlog.Record
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r runlog.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s: %v in %q", runlog.RecordsFile, err, sc.Text())
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
