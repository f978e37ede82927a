package config

import (
	"fmt"
	"os"
	"regexp"
)

// What the loop does when an agent removes tests that were there at the
// start of the run (tests): keep fails the iteration, warn only records
// it and tells the next prompt, off does not look.
const (
	TestsKeep = "keep"
	TestsWarn = "warn"
	TestsOff  = "off"
)

// TestsValues are tests' accepted values.
func TestsValues() []string { return []string{TestsKeep, TestsWarn, TestsOff} }

// changingTests matches a task that means to change the tests themselves:
// a word for a test and a word for removing or restructuring something
// in the same sentence, at most 60 characters apart, in either order.
var changingTests = func() *regexp.Regexp {
	const verb = `(?:remov|delet|drop|renam|rewrit|rewrote|mov|merg|split|replac|consolidat|dedup|reorgani[sz]|restructur)\w*`
	const test = `(?:tests?|testing|test suite|test files?|test cases?|specs?)`
	// Between them, no end of a sentence: a . ! or ? followed by a space
	// or the end of a line (the dot of auth_test.go or v1.2 ends none).
	const gap = `(?:[^.!?\n]|[.!?][^\s.!?]){0,60}`
	return regexp.MustCompile(`(?i)\b` + verb + `\b` + gap + `\b` + test + `\b|\b` + test + `\b` + gap + `\b` + verb + `\b`)
}()

// TestsMode is what the run does about removed tests, and why: the value
// given (--tests, YAML tests:), or by default keep, unless the task or
// the specification (spec, its text) says to remove, rename or rewrite
// tests, when it is warn.
func (c Config) TestsMode(spec string) (mode, why string) {
	if c.Tests != "" {
		return c.Tests, "set by tests"
	}
	for _, text := range []string{c.Task, spec} {
		if m := changingTests.FindString(text); m != "" {
			return TestsWarn, fmt.Sprintf("the task speaks of changing tests (%q)", m)
		}
	}
	return TestsKeep, "the task does not speak of changing tests"
}

// validateTests reports an unknown tests value.
func (c *Config) validateTests(ps *problems) {
	switch c.Tests {
	case "", TestsKeep, TestsWarn, TestsOff:
	default:
		ps.add("tests", fmt.Sprintf("%q is none of keep, warn, off", c.Tests), "use --tests keep (a removed test fails the iteration), warn (recorded only) or off")
	}
}

// defaultTests is the tests mode a run of c would take when none is given,
// and why, for --dry-run.
func (c Config) defaultTests() (mode, why string) {
	spec := ""
	if c.Spec != "" {
		if b, err := os.ReadFile(c.Spec); err == nil {
			spec = string(b)
		}
	}
	mode, why = c.TestsMode(spec)
	return mode, "default (" + why + ")"
}
