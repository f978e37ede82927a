package report

import (
	"fmt"
	"strings"

	"github.com/architect-dev/architect/runlog"
)

// testsText says what an iteration left of the run's tests, when it left
// less than there was at the start: the test files gone, the tests gone,
// and whether the iteration failed for it.
func testsText(t *runlog.TestsRemoved) string {
	if t == nil {
		return ""
	}
	var parts []string
	if len(t.Files) > 0 {
		parts = append(parts, "files gone: "+strings.Join(t.Files, ", "))
	}
	if len(t.Tests) > 0 {
		parts = append(parts, "tests gone: "+strings.Join(t.Tests, ", "))
	}
	if len(t.NotRun) > 0 {
		parts = append(parts, "no longer run: "+strings.Join(t.NotRun, ", "))
	}
	if n := len(t.Tests) + len(t.NotRun); n < t.Count {
		parts = append(parts, fmt.Sprintf("and %d more", t.Count-n))
	}
	head := "renamed or moved, every test still there"
	switch {
	case t.Count > 0 && t.Failed:
		head = fmt.Sprintf("%d test%s removed: the iteration failed (tests: keep)", t.Count, plural(t.Count))
	case t.Count > 0:
		head = fmt.Sprintf("%d test%s removed (tests: warn, recorded only)", t.Count, plural(t.Count))
	}
	return head + "; " + strings.Join(parts, "; ")
}

// iterTests is the row an iteration's page shows about removed tests.
func iterTests(it runlog.Iteration) []field {
	if s := testsText(it.TestsRemoved); s != "" {
		return []field{{"Tests removed", s, true}}
	}
	return nil
}

// runTests is the summary's row about the tests the run ended without.
func runTests(r *Run) []field {
	n := len(r.Iterations)
	if n == 0 {
		return nil
	}
	if s := testsText(r.Iterations[n-1].TestsRemoved); s != "" {
		return []field{{"Tests removed at the end", s, true}}
	}
	return nil
}
