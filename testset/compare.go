package testset

import (
	"path"
	"slices"
	"strings"
)

// Removed is what Compare found gone since the start.
type Removed struct {
	// Files are the test files of the start that are no longer there:
	// deleted, or renamed or moved (then their tests are not in Tests).
	Files []string
	// Tests are the tests of the start found nowhere now, as "FILE: NAME",
	// or "FILE" for a file in which no test was recognised; sorted.
	Tests []string
}

// Any reports whether anything is gone.
func (r Removed) Any() bool { return len(r.Files) > 0 || len(r.Tests) > 0 }

// Compare tells which test files and which tests of start are gone from
// now. A test is known by its file and its name; one that left its file
// but appears, under the same name, in a file where it was not at the
// start (a file renamed or split, a test moved) is not gone. A file
// without a recognised test is known by its base name: moved to another
// folder, it is not gone.
func Compare(start, now Set) Removed {
	var r Removed
	// gone[name]: the files that lost a test of that name (once per copy
	// lost); added[name]: how many copies appeared in files where they
	// were not.
	gone := map[string][]string{}
	added := map[string]int{}
	for file, names := range start {
		cur, ok := now[file]
		if !ok {
			r.Files = append(r.Files, file)
		}
		left := counts(file, cur)
		for name, n := range counts(file, names) {
			for range n - left[name] {
				gone[name] = append(gone[name], file)
			}
		}
	}
	for file, names := range now {
		was := counts(file, start[file])
		if _, ok := start[file]; !ok {
			was = map[string]int{}
		}
		for name, n := range counts(file, names) {
			if extra := n - was[name]; extra > 0 {
				added[name] += extra
			}
		}
	}
	for name, files := range gone {
		slices.Sort(files)
		rest := files[min(added[name], len(files)):]
		if base := untagged(name); base != name {
			// Skipped (or left out of the build) at the start and running
			// now: a test that runs again is not gone.
			k := min(added[base], len(rest))
			added[base] -= k
			rest = rest[k:]
		}
		for _, f := range rest {
			if strings.HasPrefix(name, fileKey) {
				r.Tests = append(r.Tests, f)
				continue
			}
			r.Tests = append(r.Tests, f+": "+name)
		}
	}
	slices.Sort(r.Files)
	slices.Sort(r.Tests)
	return r
}

// fileKey marks the name standing for a file without a recognised test.
const fileKey = "\x00file:"

// counts is how many times each test name is in a file; a file without a
// recognised test holds one test named after the file.
func counts(file string, names []string) map[string]int {
	m := map[string]int{}
	if names == nil {
		return m
	}
	if len(names) == 0 {
		m[fileKey+path.Base(file)] = 1
		return m
	}
	for _, n := range names {
		m[n]++
	}
	return m
}

// untagged is a test's name without the tag the scan gives a test that
// does not run (" [skip]", " [go:build never]"); the name itself when it
// has none.
func untagged(name string) string {
	if i := strings.LastIndex(name, " ["); i > 0 && strings.HasSuffix(name, "]") {
		return name[:i]
	}
	return name
}
