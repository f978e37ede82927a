package report

import (
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/architect-dev/architect/internal/testutil"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	testutil.Golden(t, name, got, *update)
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
