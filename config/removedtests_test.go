package config

import (
	"strings"
	"testing"

	"github.com/matryer/is"
)

func TestTestsModeDefault(t *testing.T) {
	cases := []struct {
		task, spec, set string
		want            string
	}{
		{task: "fix the failing test", want: TestsKeep},
		{task: "make the tests pass", want: TestsKeep},
		{task: "add a test for the parser and fix it", want: TestsKeep},
		{task: "the login is broken; remove the retry loop", want: TestsKeep}, // no test named
		{task: "remove the flaky test in auth_test.go", want: TestsWarn},
		{task: "Rename the tests to match the new package", want: TestsWarn},
		{task: "tests: delete the ones for the old API", want: TestsWarn},
		{task: "Rewrite the test suite with pytest", want: TestsWarn},
		{task: "the specs are duplicated; consolidate them", want: TestsWarn},
		{task: "fix the bug. Remove the dead code in util.go", want: TestsKeep},          // another sentence
		{task: "Fix the failing test. Remove the dead code in util.go", want: TestsKeep}, // another sentence
		{task: "The tests in auth_test.go are obsolete; delete them", want: TestsWarn},   // a file name's dot ends no sentence
		{task: "the tests of v1.2 are duplicated: merge them", want: TestsWarn},
		{task: "implement the spec file", spec: "Step 3: move the tests into tests/", want: TestsWarn},
		{task: "remove the flaky test", set: TestsKeep, want: TestsKeep}, // given: taken as given
		{task: "fix it", set: TestsOff, want: TestsOff},
	}
	for _, c := range cases {
		t.Run(c.task, func(t *testing.T) {
			is := is.New(t)
			got, why := Config{Task: c.task, Tests: c.set}.TestsMode(c.spec)
			is.Equal(got, c.want)
			is.True(why != "")
		})
	}
}

func TestTestsFlagAndFile(t *testing.T) {
	is := is.New(t)
	fs, fl := parse(t, "--tests", "warn", "--check", "true")
	c, _, _, err := LoadSources("", "fix it", noEnv, fs, fl)
	is.NoErr(err)
	is.Equal(c.Tests, TestsWarn)

	file := writeFile(t, "ralph.yaml", "ralph_loop:\n  tests: off\n  task: fix it\n  checks: [\"true\"]\n")
	c, _, _, err = LoadSources(file, "", noEnv, nil, nil)
	is.NoErr(err)
	is.Equal(c.Tests, TestsOff)

	fs, fl = parse(t, "--tests", "drop", "--check", "true")
	_, _, _, err = LoadSources("", "fix it", noEnv, fs, fl)
	es, ok := err.(Errors)
	is.True(ok)
	is.Equal(len(es), 1)
	is.True(strings.Contains(es[0].Error(), `--tests: "drop" is none of keep, warn, off`))
	is.True(strings.Contains(es[0].Hint, "--tests keep"))
}

// --dry-run shows the mode a run would take, and why.
func TestDescribeResolvesTests(t *testing.T) {
	is := is.New(t)
	find := func(c Config) Setting {
		for _, s := range Describe(c, Sources{}) {
			if s.Key == "tests" {
				return s
			}
		}
		t.Fatal("no tests setting")
		return Setting{}
	}
	s := find(Config{Task: "fix the bug"})
	is.Equal(s.Value, TestsKeep)
	is.Equal(s.Source, "default (the task does not speak of changing tests)")
	s = find(Config{Task: "delete the old tests"})
	is.Equal(s.Value, TestsWarn)
	is.True(strings.HasPrefix(s.Source, "default (the task speaks of changing tests"))
	s = find(Config{Task: "delete the old tests", Tests: TestsKeep})
	is.Equal(s.Value, TestsKeep)
	is.Equal(s.Source, "default") // shown as given; Sources says where it came from
}
