package runlog

import (
	"path/filepath"
	"testing"
	"time"
)

// The records' write path, as a run takes it once an iteration or more
// often: an event, a progress entry appended, an iteration's record.

func BenchmarkEventLogEmit(b *testing.B) {
	e := OpenEventLog(filepath.Join(b.TempDir(), EventsFile), func(Event) {}, time.Now, func(string) { b.Fatal("warned") })
	defer e.Close()
	it := Iteration{Iteration: 3, AllChecksPassed: true, Duration: 12.5, CheckResults: []CheckResult{{Name: "go test", Passed: true}}}
	b.ReportAllocs()
	for b.Loop() {
		e.Emit(it.FinishedEvent())
	}
}

func BenchmarkProgressAppend(b *testing.B) {
	path := filepath.Join(b.TempDir(), ProgressFile)
	it := Iteration{Iteration: 3, Agent: "claude", StepsTaken: 12, Duration: 12.5,
		CheckResults: []CheckResult{{Name: "go test", ExitCode: 1, Output: "--- FAIL: TestAdd\nexpected 3\nFAIL"}}}
	b.ReportAllocs()
	for b.Loop() {
		if err := AppendFile(path, ProgressEntry(it)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRecordLogAppend(b *testing.B) {
	l, err := OpenRecordLog(filepath.Join(b.TempDir(), RecordsFile))
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	r := Record{Iteration: Iteration{Iteration: 3, Duration: 12.5}}
	b.ReportAllocs()
	for b.Loop() {
		if err := l.Append(r); err != nil {
			b.Fatal(err)
		}
	}
}
