package runlog

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/matryer/is"
)

// A last line that is a whole record but lacks its newline (a run killed
// between the record and its newline) is torn all the same: it is cut, so
// the next append starts a line of its own instead of gluing onto it.
func TestRecordsCutAWholeRecordWithoutNewline(t *testing.T) {
	is := is.New(t)
	path := filepath.Join(t.TempDir(), RecordsFile)
	is.NoErr(AppendRecord(path, Record{Iteration: Iteration{Iteration: 1}}))
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	is.NoErr(err)
	_, _ = f.WriteString(`{"iteration":2}`) // no newline
	f.Close()
	recs, err := ReadRecords(path)
	is.NoErr(err)
	is.Equal(len(recs), 1) // iteration 2 was not recorded: it runs again
	is.NoErr(AppendRecord(path, Record{Iteration: Iteration{Iteration: 2}, Tree: "again"}))
	recs, err = ReadRecords(path)
	is.NoErr(err)
	is.Equal(len(recs), 2)
	is.Equal(recs[1].Tree, "again")
}

// The surfaces' reader (show, the report, the view) lists an iteration
// appended twice once, as the first record has it, and skips a torn last
// line, without changing the file.
func TestReadIterationsSkipsRepeatsAndTornLine(t *testing.T) {
	is := is.New(t)
	path := filepath.Join(t.TempDir(), RecordsFile)
	for _, r := range []Record{
		{Iteration: Iteration{Iteration: 1, StartedAt: "a"}},
		{Iteration: Iteration{Iteration: 2, StartedAt: "b"}},
		{Iteration: Iteration{Iteration: 2, StartedAt: "b again"}}, // the append repeated
		{Iteration: Iteration{Iteration: 3, StartedAt: "c"}},
	} {
		is.NoErr(AppendRecord(path, r))
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	is.NoErr(err)
	_, _ = f.WriteString(`{"iteration":4,"start`)
	f.Close()
	before, _ := os.ReadFile(path)
	its, err := ReadIterations(path)
	is.NoErr(err)
	var got []string
	for _, it := range its {
		got = append(got, it.StartedAt)
	}
	is.Equal(got, []string{"a", "b", "c"})
	after, _ := os.ReadFile(path)
	is.Equal(after, before) // read only
}

// state.json and the other JSON files are replaced whole (a new file
// renamed into place), never rewritten in place: a reader, or a run killed
// in the middle of a write, sees the old version or the new one, never a
// part. A reader holding the old file still reads all of it.
func TestJSONWritesReplaceTheFileWhole(t *testing.T) {
	for name, write := range map[string]func(string, any) error{"WriteJSON": WriteJSON, "WriteJSONQuick": WriteJSONQuick} {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			path := filepath.Join(t.TempDir(), StateFile)
			is.NoErr(write(path, State{Status: StatusRunning}))
			old, err := os.Open(path)
			is.NoErr(err)
			defer old.Close()
			before, err := old.Stat()
			is.NoErr(err)
			is.NoErr(write(path, State{Status: StatusSucceeded, StopDetail: "a longer text than the first version had"}))
			after, err := os.Stat(path)
			is.NoErr(err)
			is.True(!os.SameFile(before, after)) // a new file, not the old one rewritten
			data, err := io.ReadAll(old)
			is.NoErr(err)
			var st State
			is.NoErr(json.Unmarshal(data, &st)) // the old version, whole
			is.Equal(st.Status, StatusRunning)
			entries, err := os.ReadDir(filepath.Dir(path))
			is.NoErr(err)
			is.Equal(len(entries), 1) // no temporary file left behind
		})
	}
}
