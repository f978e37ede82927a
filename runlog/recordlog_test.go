package runlog

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/matryer/is"
)

// A record appended is in the file as Append returns, before its fsync
// has been waited for: a kill of architect from then on cannot lose it.
func TestRecordLogWritesBeforeItSyncs(t *testing.T) {
	is := is.New(t)
	path := filepath.Join(t.TempDir(), RecordsFile)
	is.NoErr(AppendRecord(path, Record{Iteration: Iteration{Iteration: 1}})) // an earlier session's
	l, err := OpenRecordLog(path)
	is.NoErr(err)
	for n := 2; n <= 4; n++ {
		is.NoErr(l.Append(Record{Iteration: Iteration{Iteration: n}}))
		data, err := os.ReadFile(path)
		is.NoErr(err)
		is.Equal(bytes.Count(data, []byte{'\n'}), n) // whole lines, at once
	}
	is.NoErr(l.Synced())
	is.NoErr(l.Synced()) // nothing pending: at once
	is.NoErr(l.Close())
	recs, err := ReadRecords(path)
	is.NoErr(err)
	is.Equal(len(recs), 4)
	is.Equal(recs[3].Iteration.Iteration, 4)
	var nilLog *RecordLog
	is.NoErr(nilLog.Synced())
	is.NoErr(nilLog.Close())
}

// A record that cannot be written says so.
func TestRecordLogReportsAFailedWrite(t *testing.T) {
	is := is.New(t)
	f, err := os.Open(os.DevNull) // read-only: the write fails
	is.NoErr(err)
	l := &RecordLog{f: f}
	is.True(l.Append(Record{Iteration: Iteration{Iteration: 1}}) != nil)
	is.NoErr(l.Close())
}

func writeState(t *testing.T, ws string, st State) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(ws, StateDir), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSONQuick(Path(ws, StateFile), st); err != nil {
		t.Fatal(err)
	}
}

// ReadStateNow puts the iteration running (current.json) into the state a
// running loop wrote between iterations: its number, when it started, and
// its phase.
func TestReadStateNow(t *testing.T) {
	began := time.Date(2026, 1, 15, 10, 30, 0, 123456789, time.UTC)
	agentDone := 1.5
	withChecks, _ := json.Marshal(map[string]any{"checks": []string{"true"}})
	noChecks, _ := json.Marshal(map[string]any{"checks": []string{}})
	for _, tc := range []struct {
		name     string
		st       State
		recorded int
		inflight *Inflight
		want     State // Iteration, LastIterationAt, Phase
	}{
		{"between iterations", State{Active: true, Iteration: 2, Phase: PhaseRecorded, LastIterationAt: "a"}, 2, nil,
			State{Iteration: 2, Phase: PhaseRecorded, LastIterationAt: "a"}},
		{"agent", State{Active: true, Iteration: 2, Phase: PhaseRecorded, Config: withChecks}, 2,
			&Inflight{Iteration: 3, StartedAt: began.Format(time.RFC3339Nano)},
			State{Iteration: 3, Phase: PhaseAgent, LastIterationAt: "2026-01-15T10:30:00Z"}},
		{"checks", State{Active: true, Iteration: 2, Phase: PhaseRecorded, Config: withChecks}, 2,
			&Inflight{Iteration: 3, StartedAt: began.Format(time.RFC3339Nano), AgentDuration: &agentDone},
			State{Iteration: 3, Phase: PhaseChecks, LastIterationAt: "2026-01-15T10:30:00Z"}},
		{"no checks to run", State{Active: true, Iteration: 2, Phase: PhaseRecorded, Config: noChecks}, 2,
			&Inflight{Iteration: 3, StartedAt: began.Format(time.RFC3339Nano), AgentDuration: &agentDone},
			State{Iteration: 3, Phase: PhaseAgent, LastIterationAt: "2026-01-15T10:30:00Z"}},
		{"recorded, its inflight file not removed yet", State{Active: true, Iteration: 3, Phase: PhaseRecorded, LastIterationAt: "a"}, 3,
			&Inflight{Iteration: 3, StartedAt: began.Format(time.RFC3339Nano)},
			State{Iteration: 3, Phase: PhaseRecorded, LastIterationAt: "a"}},
		{"paused after a record, its inflight file not removed yet", State{Active: true, Iteration: 3, Phase: "paused", LastIterationAt: "a"}, 3,
			&Inflight{Iteration: 3, StartedAt: began.Format(time.RFC3339Nano)},
			State{Iteration: 3, Phase: "paused", LastIterationAt: "a"}},
		{"tried again after a usage-limit wait", State{Active: true, Iteration: 3, Phase: "usage_limit_waited"}, 2,
			&Inflight{Iteration: 3, StartedAt: began.Format(time.RFC3339Nano)},
			State{Iteration: 3, Phase: PhaseAgent, LastIterationAt: "2026-01-15T10:30:00Z"}},
		{"ended", State{Iteration: 3, Phase: PhaseFinished, LastIterationAt: "a"}, 3,
			&Inflight{Iteration: 4, StartedAt: began.Format(time.RFC3339Nano)},
			State{Iteration: 3, Phase: PhaseFinished, LastIterationAt: "a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			ws := t.TempDir()
			writeState(t, ws, tc.st)
			for n := 1; n <= tc.recorded; n++ {
				is.NoErr(AppendRecord(Path(ws, RecordsFile), Record{Iteration: Iteration{Iteration: n}}))
			}
			if tc.inflight != nil {
				is.NoErr(WriteJSONQuick(Path(ws, InflightFile), tc.inflight))
			}
			st, err := ReadStateNow(ws)
			is.NoErr(err)
			is.Equal(State{Iteration: st.Iteration, Phase: st.Phase, LastIterationAt: st.LastIterationAt}, tc.want)
			raw, err := ReadState(ws)
			is.NoErr(err)
			is.Equal(raw.Phase, tc.st.Phase) // ReadState is the file as it is
		})
	}
}
