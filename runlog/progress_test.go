package runlog

import (
	"strings"
	"testing"

	"github.com/matryer/is"
)

// TestProgressEntryFailedCheck: a failed check is recorded by the first and
// the last lines of its output, so that a Python traceback is known by its
// exception, not only by "Traceback (most recent call last):".
func TestProgressEntryFailedCheck(t *testing.T) {
	is := is.New(t)
	tb := "Traceback (most recent call last):\n  File \"test_solution.py\", line 9, in <module>\n    assert candidate([1, 2]) == 3\n" +
		"AssertionError: " + strings.Repeat("x", 300) + "\n\n"
	it := Iteration{Iteration: 2, CheckResults: []CheckResult{
		{Name: "python3 test_solution.py", ExitCode: 1, Output: tb},
		{Name: "go test ./...", ExitCode: 1, Output: "--- FAIL: TestAdd (0.00s)\n"},
		{Name: "true", Passed: true},
	}}
	e := ProgressEntry(it)
	is.True(strings.Contains(e, "  - [FAIL] python3 test_solution.py — exit status 1: Traceback (most recent call last): … AssertionError: xxx"))
	is.True(strings.Contains(e, "x…\n"))                                                                  // a long last line is cut
	is.True(strings.Contains(e, "  - [FAIL] go test ./... — exit status 1: --- FAIL: TestAdd (0.00s)\n")) // one line: shown once
	is.True(strings.Contains(e, "  - [PASS] true\n"))
}
