package runlog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
)

// Record is one completed iteration, as appended to iterations.jsonl: the
// iteration as reports show it, and what the loop needs to resume.
type Record struct {
	Iteration
	Tree     string `json:"tree,omitempty"`      // working tree snapshot after the iteration
	ChecksID string `json:"checks_id,omitempty"` // the check results, for idle detection
	Failed   bool   `json:"agent_failed"`        // counts toward backoff and the circuit breaker
	// NoteIDs are the notes the iteration's prompt carried: delivered once
	// the record is written (see AddNote).
	NoteIDs []string `json:"note_ids,omitempty"`
}

// AppendRecord appends r as one line and syncs it: once this returns, the
// iteration counts as done.
func AppendRecord(path string, r Record) error {
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	f, err := OpenAppend(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(data, '\n')); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ReadRecords reads the recorded iterations. A line that is not a whole
// record (a run killed while appending: no newline, or not JSON) is cut
// off with everything after it, so it is neither counted nor left to
// corrupt the next append. A record of an iteration already read (an
// append repeated) is skipped, and the file keeps it: what follows it is
// still read. A record out of order (damage no run of architect makes)
// stops the reading; it and what follows are moved to iterations.jsonl.cut
// rather than lost.
func ReadRecords(path string) ([]Record, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Record
	good := 0
	for good < len(data) {
		end := bytes.IndexByte(data[good:], '\n')
		if end < 0 {
			break // no newline: torn
		}
		line := data[good : good+end]
		var r Record
		if json.Unmarshal(line, &r) != nil {
			break
		}
		switch n := r.Iteration.Iteration; {
		case n == len(out)+1:
			out = append(out, r)
		case n >= 1 && n <= len(out):
			// The same iteration again: the first record stands.
		default:
			if err := AppendFile(path+".cut", string(data[good:])); err != nil {
				return nil, err
			}
			return out, truncateAt(path, good, len(data))
		}
		good += end + 1
	}
	return out, truncateAt(path, good, len(data))
}

// truncateAt cuts the file at good when that is before its end.
func truncateAt(path string, good, size int) error {
	if good < size {
		return os.Truncate(path, int64(good))
	}
	return nil
}

// ReadIterations reads iterations.jsonl at path as a surface does, while a
// run may be appending to it: without changing the file (ReadRecords, the
// loop's reader, repairs it), skipping what is not a whole record (a torn
// last line) and an iteration read already.
func ReadIterations(path string) ([]Iteration, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Iteration
	seen := map[int]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for sc.Scan() {
		var it Iteration
		if json.Unmarshal(sc.Bytes(), &it) != nil || seen[it.Iteration] {
			continue
		}
		seen[it.Iteration] = true
		out = append(out, it)
	}
	return out, nil
}
