// Package testset finds a workspace's tests without running anything, so
// that the loop can tell when an agent made the checks pass by removing
// tests rather than by fixing the code.
//
// Scan walks the workspace once and recognises test files by the naming
// conventions of each language's test runner, then reads only those files
// and picks out the names of the tests in them with a light scan of their
// lines (no parser, no build):
//
//   - Go: *_test.go; func TestX(, FuzzX( and ExampleX( at the start of a line.
//   - Python: test_*.py and *_test.py; def test… and async def test…
//     (pytest's prefix), named Class.test… inside a class.
//   - JavaScript and TypeScript: *.test.* and *.spec.* (js, jsx, ts, tsx,
//     mjs, cjs, mts, cts) and those files under a __tests__ folder; the
//     string names of it(…) and test(…) calls.
//   - Rust: every .rs file under a tests folder, and any other .rs file
//     that holds a test; the functions marked #[test] (or an attribute
//     ending in test], such as #[tokio::test]).
//
// A test file in which no test is recognised counts as one test named
// after the file. Compare tells which tests of the start are gone; a test
// that moved to another file (a renamed file, a split one) is not gone.
//
// Witness reads what a check printed and picks out the tests that ran, for
// the runners that name them: go test -json and -v, pytest -v, cargo test;
// JUnitRan and JSONReportRan read the same from a JUnit XML report (pytest
// --junitxml) and from jest's and vitest's JSON reports.
package testset

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// Set is the tests of a workspace: for each test file (a slash path
// relative to the workspace), the names of the tests found in it, sorted
// (a name given twice in one file is there twice).
type Set map[string][]string

// maxFile bounds what is read of one test file: a larger one is scanned
// up to there.
const maxFile = 8 << 20

// skipDirs are folders never searched, at any depth: installed
// dependencies, build output and caches, whose tests are not the
// project's. Hidden folders (.git, .venv, .tox, .architect) are skipped too.
var skipDirs = map[string]bool{
	"node_modules": true, "vendor": true, "target": true, "__pycache__": true,
	"venv": true, "site-packages": true, "bower_components": true,
}

// Scan finds the tests under dir. skip names top-level folders never
// looked into besides the built-in ones (architect's worktrees).
func Scan(dir string, skip []string) (Set, error) {
	type file struct {
		rel, abs string
		lang     lang
	}
	var files []file
	err := filepath.WalkDir(dir, func(abs string, d fs.DirEntry, err error) error {
		if err != nil {
			if abs == dir {
				return err
			}
			return nil // vanished or unreadable: no test to find there
		}
		name := d.Name()
		if d.IsDir() {
			if abs == dir {
				return nil
			}
			if skipDirs[name] || strings.HasPrefix(name, ".") {
				return filepath.SkipDir
			}
			if rel := relPath(dir, abs); !strings.Contains(rel, "/") && slices.Contains(skip, rel) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if !maybeTest(name) {
			return nil // most files: no path worked out
		}
		rel := relPath(dir, abs)
		if l := kind(rel); l != none {
			files = append(files, file{rel, abs, l})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Reading is most of the time: spread over the cores.
	set := Set{}
	var mu sync.Mutex
	work := make(chan file)
	var wg sync.WaitGroup
	for range max(1, min(runtime.GOMAXPROCS(0), 8)) {
		wg.Go(func() {
			for f := range work {
				names, isTest := readNames(f.abs, f.rel, f.lang)
				if !isTest {
					continue
				}
				mu.Lock()
				set[f.rel] = names
				mu.Unlock()
			}
		})
	}
	for _, f := range files {
		work <- f
	}
	close(work)
	wg.Wait()
	return set, nil
}

func relPath(dir, abs string) string {
	rel, _ := filepath.Rel(dir, abs)
	return filepath.ToSlash(rel)
}

// readNames reads the test names of one file; isTest is false for a Rust
// source outside a tests folder that holds no test.
func readNames(abs, rel string, l lang) (names []string, isTest bool) {
	f, err := os.Open(abs)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFile))
	if err != nil {
		return nil, false
	}
	if l == rust && !bytes.Contains(data, []byte("test]")) && !inFolder(rel, "tests") {
		return nil, false
	}
	names = append([]string{}, scanNames(l, data)...)
	if l == golang {
		// A Go test file that go test leaves out (a build constraint, a
		// GOOS suffix, a leading _) runs none of its tests: its tests are
		// named with why, so that adding one removes them (and one the
		// file had from the start changes nothing).
		if c := goExcluded(path.Base(rel), data); c != "" {
			for i := range names {
				names[i] += " [" + c + "]"
			}
		}
	}
	slices.Sort(names)
	return names, true
}

type lang int

const (
	none lang = iota
	golang
	python
	js
	rust
)

var jsExt = map[string]bool{".js": true, ".jsx": true, ".ts": true, ".tsx": true, ".mjs": true, ".cjs": true, ".mts": true, ".cts": true}

// kind tells whether the file at rel may hold tests, and in which
// language. Every Rust file may (unit tests live beside the code); it
// counts only if it holds one, or is under a tests folder.
func kind(rel string) lang {
	base := path.Base(rel)
	ext := path.Ext(base)
	switch {
	case ext == ".go":
		if strings.HasSuffix(base, "_test.go") {
			return golang
		}
	case ext == ".py":
		if strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py") {
			return python
		}
	case ext == ".rs":
		return rust
	case jsExt[ext]:
		stem := strings.TrimSuffix(base, ext)
		if strings.HasSuffix(stem, ".test") || strings.HasSuffix(stem, ".spec") || inFolder(rel, "__tests__") {
			return js
		}
	}
	return none
}

// maybeTest is kind's quick first look, at the file's name alone.
func maybeTest(base string) bool {
	ext := path.Ext(base)
	switch {
	case ext == ".go":
		return strings.HasSuffix(base, "_test.go")
	case ext == ".py", ext == ".rs":
		return true
	}
	return jsExt[ext]
}

// inFolder reports whether rel is under a folder named name, at any depth.
func inFolder(rel, name string) bool {
	return strings.HasPrefix(rel, name+"/") || strings.Contains(rel, "/"+name+"/")
}

// Count is the number of tests in the set (a file without a recognised
// test counts as one).
func (s Set) Count() int {
	n := 0
	for _, names := range s {
		n += max(1, len(names))
	}
	return n
}
