package runlog

import (
	"encoding/json"
	"os"
)

// TestsFile holds the run's tests as they were at its start, and the
// tests each check was seen running (see Tests): what every iteration's
// tests are compared with, kept across --resume.
const TestsFile = "tests.json"

// Tests is the run's start state for telling removed tests: written when
// the run starts, and again when a check is first seen naming the tests
// it ran.
type Tests struct {
	// Mode is what the run does about removed tests (keep, warn, off) and
	// Why, how that was decided (given, or the default for the task).
	Mode string `json:"mode"`
	Why  string `json:"why,omitempty"`
	// Files are the test files at the start, each with the names of the
	// tests found in it.
	Files map[string][]string `json:"files"`
	// Ran is, by check command, the tests the check's output said ran
	// (passed or failed) the first time it named any.
	Ran map[string]TestsRan `json:"ran,omitempty"`
}

// TestsRan is the tests a check ran in one iteration.
type TestsRan struct {
	Iteration int      `json:"iteration"`
	Tests     []string `json:"tests"`
}

// TestsRemoved is what an iteration left of the run's tests, when it
// left less than there was at the start (Iteration.TestsRemoved).
type TestsRemoved struct {
	// Files are the test files of the start that are gone: deleted, or
	// renamed (their tests are then elsewhere, and not in Tests).
	Files []string `json:"files,omitempty"`
	// Tests are the tests of the start found nowhere, as "FILE: NAME" (or
	// FILE, when no test was recognised in it).
	Tests []string `json:"tests,omitempty"`
	// NotRun are the tests a passing check ran at first and did not run
	// now (skipped or gone), as "CHECK: NAME".
	NotRun []string `json:"not_run,omitempty"`
	// Count is how many tests are gone (Tests and NotRun); the lists keep
	// the first MaxTestsListed of each.
	Count int `json:"count"`
	// Failed: the run keeps its tests (tests: keep), so the iteration
	// failed for it; otherwise it is only recorded (tests: warn).
	Failed bool `json:"failed"`
}

// MaxTestsListed bounds each list of a TestsRemoved.
const MaxTestsListed = 100

// WriteTests saves t to path, atomically.
func WriteTests(path string, t Tests) error { return WriteJSON(path, t) }

// ReadTests reads the tests saved at path; a missing file is
// os.ErrNotExist (a run started by an older architect).
func ReadTests(path string) (Tests, error) {
	var t Tests
	data, err := os.ReadFile(path)
	if err != nil {
		return t, err
	}
	if err := json.Unmarshal(data, &t); err != nil {
		return t, Damaged(path, err)
	}
	return t, nil
}
