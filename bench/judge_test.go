//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/architect-dev/architect/checks"
	"github.com/architect-dev/architect/protect"
)

// Finding the judge (the files that define each check) runs when a run
// starts, in the pre-flight and in --dry-run; looking at it again runs
// after every agent. Target: finding it under 10 ms. The workspace is a
// project of several ecosystems, with 2,000 files at its top and 5,000 in
// folders (finding looks at named paths and one folder listing for
// tsconfig*.json, never at the whole tree).

var judgeChecks = []string{
	"npm test",
	"npm run lint",
	"cd web && pnpm run typecheck",
	"make test",
	"ruff check . && mypy .",
	"sh scripts/check.sh",
	"FOO=1 timeout 600 python3 -m pytest -q",
	"go test ./... && golangci-lint run",
	"cargo clippy -- -D warnings",
	"just",
}

func judgeWorkspace(b *testing.B) string {
	dir := b.TempDir()
	files := map[string]string{
		"package.json":        `{"scripts": {"test": "jest --ci", "lint": "eslint . && tsc -p tsconfig.build.json", "pretest": "node setup.js"}}`,
		"jest.config.js":      "module.exports = {}",
		"eslint.config.js":    "export default []",
		"tsconfig.json":       "{}",
		"tsconfig.build.json": "{}",
		"web/package.json":    `{"scripts": {"typecheck": "vue-tsc --noEmit"}}`,
		"web/tsconfig.json":   "{}",
		"Makefile":            "all: test\n\nlint:\n\t@golangci-lint run\n\ntest: lint\n\t./scripts/test.sh\n\tgo test ./...\n",
		"scripts/test.sh":     "#!/bin/sh\npytest -q\n",
		"scripts/check.sh":    "#!/bin/sh\nset -e\nruff check .\nnpm test\n",
		"ruff.toml":           "line-length = 100\n",
		"pyproject.toml":      "[tool.pytest.ini_options]\n",
		"conftest.py":         "",
		"mypy.ini":            "[mypy]\n",
		".golangci.yml":       "linters: {}\n",
		"Cargo.toml":          "[package]\n",
		"justfile":            "default: check\n\ncheck:\n    sh scripts/check.sh\n",
	}
	for i := range 2000 {
		files[fmt.Sprintf("file%04d.txt", i)] = "x"
	}
	for i := range 5000 {
		files[fmt.Sprintf("src/d%02d/f%04d.go", i%50, i)] = "package x"
	}
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

func judgePaths(js []checks.Judge) []string {
	seen := map[string]bool{}
	var out []string
	for _, j := range js {
		for _, f := range j.Files {
			if !f.Outside && !seen[f.Path] {
				seen[f.Path] = true
				out = append(out, f.Path)
			}
		}
	}
	return out
}

// BenchmarkFindJudge: finding the files of 10 checks and recording them,
// what a run does when it starts.
func BenchmarkFindJudge(b *testing.B) {
	dir := judgeWorkspace(b)
	js := checks.FindJudges(dir, judgeChecks, nil)
	b.ReportMetric(float64(len(judgePaths(js))), "files")
	before := cpuTime()
	for b.Loop() {
		js := checks.FindJudges(dir, judgeChecks, nil)
		if _, err := protect.TakeFiles(dir, judgePaths(js), nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-before)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the process's user and system time so far: on a loaded
// machine, what the work cost, apart from the waits for a core.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkJudgeAfterAgent: looking at the judge after an agent that
// changed none of it, what every iteration does.
func BenchmarkJudgeAfterAgent(b *testing.B) {
	dir := judgeWorkspace(b)
	s, err := protect.TakeFiles(dir, judgePaths(checks.FindJudges(dir, judgeChecks, nil)), nil)
	if err != nil {
		b.Fatal(err)
	}
	before := cpuTime()
	for b.Loop() {
		if changed, err := s.Restore(); err != nil || len(changed) > 0 {
			b.Fatal(changed, err)
		}
	}
	b.ReportMetric(float64(cpuTime()-before)/float64(b.N), "cpu-ns/op")
}
