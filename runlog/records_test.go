package runlog

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/matryer/is"
)

func TestRecordsSurviveTornLine(t *testing.T) {
	is := is.New(t)
	path := filepath.Join(t.TempDir(), RecordsFile)
	is.NoErr(AppendRecord(path, Record{Iteration: Iteration{Iteration: 1}}))
	is.NoErr(AppendRecord(path, Record{Iteration: Iteration{Iteration: 2}}))
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	is.NoErr(err)
	_, _ = f.WriteString(`{"iteration":3,"steps_ta`) // killed mid-append
	f.Close()
	recs, err := ReadRecords(path)
	is.NoErr(err)
	is.Equal(len(recs), 2)
	is.NoErr(AppendRecord(path, Record{Iteration: Iteration{Iteration: 3}}))
	recs, err = ReadRecords(path)
	is.NoErr(err)
	is.Equal(len(recs), 3) // the torn line was cut, not glued to the next one
}

// iterations.jsonl read back for a resume: a repeated record is skipped
// and what follows it kept; a torn last line is cut; a record out of order
// is moved aside, not lost.
func TestReadRecordsRepeatedTornAndOutOfOrder(t *testing.T) {
	is := is.New(t)
	path := filepath.Join(t.TempDir(), RecordsFile)
	for _, n := range []int{1, 2, 2, 3} {
		is.NoErr(AppendRecord(path, Record{Iteration: Iteration{Iteration: n}}))
	}
	before, _ := os.ReadFile(path)
	recs, err := ReadRecords(path)
	is.NoErr(err)
	is.Equal(len(recs), 3)
	is.Equal(recs[2].Iteration.Iteration, 3)
	after, _ := os.ReadFile(path)
	is.Equal(after, before) // nothing deleted

	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	is.NoErr(err)
	_, _ = f.WriteString(`{"iteration":4,"steps_ta`) // killed mid-append
	f.Close()
	recs, err = ReadRecords(path)
	is.NoErr(err)
	is.Equal(len(recs), 3)
	is.NoErr(AppendRecord(path, Record{Iteration: Iteration{Iteration: 4}}))
	recs, err = ReadRecords(path)
	is.NoErr(err)
	is.Equal(len(recs), 4) // the torn line was cut, not glued to the next

	is.NoErr(AppendRecord(path, Record{Iteration: Iteration{Iteration: 7}}))
	recs, err = ReadRecords(path)
	is.NoErr(err)
	is.Equal(len(recs), 4)
	cut, err := os.ReadFile(path + ".cut")
	is.NoErr(err)
	is.True(bytes.Contains(cut, []byte(`"iteration":7`))) // moved aside
}
