package runlog

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/matryer/is"
)

// The files in testdata/before were written by architect before the
// records had a package of their own (a build-mode run of a command agent
// with two checks; paths replaced). Read with these types and written the
// way the loop writes them, each comes out byte for byte the same: the
// format on disk did not change, and an old .architect folder still reads
// (and resumes).
func TestFormatUnchanged(t *testing.T) {
	dir := filepath.Join("testdata", "before")
	whole := func(name string, v any) {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			data, err := os.ReadFile(filepath.Join(dir, name))
			is.NoErr(err)
			is.NoErr(json.Unmarshal(data, v))
			out := filepath.Join(t.TempDir(), name)
			is.NoErr(WriteJSON(out, v))
			back, err := os.ReadFile(out)
			is.NoErr(err)
			is.Equal(string(back), string(data))
		})
	}
	var st State
	whole(StateFile, &st)
	var res Result
	whole(ResultFile, &res)
	lines := func(name string, decode func([]byte) (any, error)) {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			data, err := os.ReadFile(filepath.Join(dir, name))
			is.NoErr(err)
			var out bytes.Buffer
			for _, line := range bytes.SplitAfter(data, []byte{'\n'}) {
				if len(line) == 0 {
					continue
				}
				v, err := decode(line)
				is.NoErr(err)
				enc, err := json.Marshal(v)
				is.NoErr(err)
				out.Write(append(enc, '\n'))
			}
			is.Equal(out.String(), string(data))
		})
	}
	lines(RecordsFile, func(b []byte) (any, error) { var r Record; return r, json.Unmarshal(b, &r) })
	lines(EventsFile, func(b []byte) (any, error) { var e Event; return e, json.Unmarshal(b, &e) })

	t.Run("read", func(t *testing.T) {
		is := is.New(t)
		recs, err := ReadRecords(copyOf(t, filepath.Join(dir, RecordsFile)))
		is.NoErr(err)
		is.Equal(len(recs), 2)
		is.True(recs[0].Commit != "" && recs[1].CompletionSignal == "tag")
		is.Equal(recs[0].CheckResults[0].Status(), "exit status 0")
		var cfg struct {
			Checks []string `json:"checks"`
			Mode   string   `json:"mode"`
		}
		is.NoErr(st.DecodeConfig(&cfg))
		is.Equal(cfg.Checks, []string{"test -f n", "true"})
		is.Equal(cfg.Mode, "build")
		is.Equal(st.Status, StatusSucceeded)
		is.Equal(res.StopReason, StopSuccess)
	})
}

// copyOf copies path into a temporary folder (ReadRecords may repair the
// file it reads).
func copyOf(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := os.WriteFile(out, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return out
}
