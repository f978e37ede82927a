package report

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s differs from what it was (%d bytes against %d)", name, len(got), len(want))
	}
}

// The page of a run without candidates is the page it was before
// candidates existed (the golden file was written then).
func TestReportWithoutCandidatesUnchanged(t *testing.T) {
	r := memRun(t, 3, ptrTo(0.25))
	r.State.Workspace = "/w"
	var b strings.Builder
	if err := Write(&b, r, time.Date(2026, 1, 15, 11, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	golden(t, "no_candidates.html", b.String())
}

func ptrTo[T any](v T) *T { return &v }
