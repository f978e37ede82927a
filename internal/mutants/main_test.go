package main

import (
	"errors"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// Every mutant of the list applies to the code as it is: its snippet is in
// its file once, it changes something, and its -run is a regexp. A code
// change that moves a guarantee fails here, in a second, before CI spends
// minutes on the mutants.
func TestListApplies(t *testing.T) {
	is := is.New(t)
	is.NoErr(checkList(mutants))
	root, err := filepath.Abs(filepath.Join("..", ".."))
	is.NoErr(err)
	for _, m := range mutants {
		t.Run(m.name, func(t *testing.T) {
			if _, err := apply(root, m); err != nil {
				t.Fatalf("%s: %v (update its snippet in list.go)", m.name, err)
			}
			if _, err := regexp.Compile(m.run); err != nil {
				t.Fatalf("%s: run: %v", m.name, err)
			}
		})
	}
}

// A snippet that is not in its file, or is there twice, is refused: the
// mutant would test nothing, or the wrong place.
func TestApplyRefusesAStaleSnippet(t *testing.T) {
	is := is.New(t)
	root, err := filepath.Abs(filepath.Join("..", ".."))
	is.NoErr(err)
	_, err = apply(root, mutant{file: "internal/mutants/main.go", find: "no such code, not anywhere"})
	is.True(err != nil && strings.Contains(err.Error(), "not in internal/mutants/main.go any more"))
	_, err = apply(root, mutant{file: "internal/mutants/main.go", find: "return"})
	is.True(err != nil && strings.Contains(err.Error(), "times: make it longer"))
	is.True(checkList([]mutant{{name: "a", guarantee: "g", file: "f", find: "x", replace: "x"}}) != nil) // changes nothing
	is.True(checkList([]mutant{{name: "a", guarantee: "g", file: "f", find: "x"}, {name: "a", guarantee: "g", file: "f", find: "y"}}) != nil)
}

// How go test's output is read: only a failing test catches a mutant; a
// mutant that does not build, or a -run that matches nothing, is no catch.
func TestJudge(t *testing.T) {
	failed := exec.Command("sh", "-c", "exit 1").Run()
	var exit *exec.ExitError
	if !errors.As(failed, &exit) {
		t.Fatal("no exit error")
	}
	for _, tc := range []struct {
		name, out  string
		err        error
		status, by string
	}{
		{"passes", "ok  \tpkg\t0.1s\n", nil, survived, "every test passed"},
		{"no test", "ok  \tpkg\t0.1s [no tests to run]\n", nil, broken, "-run matches no test"},
		{"build", "# pkg\nx.go:1: declared and not used\nFAIL\tpkg [build failed]\n", failed, broken, "the mutant does not build"},
		{"fails", "--- FAIL: TestA (0.00s)\n    --- FAIL: TestA/b (0.00s)\nFAIL\nFAIL\tpkg\t0.1s\n", failed, caught, "TestA, TestA/b"},
		{"panics", "panic: boom\nFAIL\tpkg\t0.1s\n", failed, caught, "the test binary failed"},
		{"times out", "panic: test timed out after 1m0s\nFAIL\tpkg\t60s\n", failed, caught, "a test timed out"},
		{"go fails", "go: cannot find main module\n", failed, broken, "go test failed without a failing test"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			status, by := judge(tc.out, tc.err)
			is.Equal(status, tc.status)
			is.Equal(by, tc.by)
		})
	}
}
