package runlog

import (
	"encoding/json"
	"os"
)

// RecordLog is iterations.jsonl held open by a session of the loop, which
// appends each iteration's record to it. Append writes the record whole,
// with one write, before it returns: from then on a kill of architect at
// any instant finds it in the file. Its way to the disk (fsync, a few
// milliseconds) goes on in the background while the loop does what
// follows the record; Synced waits for it. What must not happen before
// the record is on disk (removing what a resume would rebuild it from:
// the inflight file, the notes it delivered; writing the next one; the
// end of the run) waits for Synced first.
type RecordLog struct {
	f    *os.File
	sync chan error // the last record's fsync while it runs
}

// OpenRecordLog opens (or creates) the records file at path for appending.
func OpenRecordLog(path string) (*RecordLog, error) {
	f, err := OpenAppend(path)
	if err != nil {
		return nil, err
	}
	return &RecordLog{f: f}, nil
}

// Append writes r as one line, once the record before it is on disk, and
// starts syncing it.
func (l *RecordLog) Append(r Record) error {
	if err := l.Synced(); err != nil {
		return err
	}
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if _, err := l.f.Write(append(data, '\n')); err != nil {
		return err
	}
	done := make(chan error, 1)
	l.sync = done
	go func() { done <- l.f.Sync() }()
	return nil
}

// Synced waits until the last record appended is on disk, and says
// whether it got there.
func (l *RecordLog) Synced() error {
	if l == nil || l.sync == nil {
		return nil
	}
	err := <-l.sync
	l.sync = nil
	return err
}

// Close waits for the last record to reach the disk and closes the file.
func (l *RecordLog) Close() error {
	if l == nil {
		return nil
	}
	err := l.Synced()
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	return err
}
