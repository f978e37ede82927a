package preflight

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// ScriptPaths lists the files a shell command runs by path that do not
// exist, relative to dir: a command named by a path (`./scripts/lint.sh`,
// `bin/test`), or the script an interpreter is given (`sh x.sh`, `bash
// ci/x`, `python3 tools/check.py`, `node a.js`). Only plain words count
// (no variable, substitution or glob), and nothing after a `cd` or
// `pushd`, which changes what a relative path names. An interpreter's
// script is looked for only when no option that takes code or a value
// comes first (`python -m pytest`, `node -r x a.js`, `bash -c '...'`).
// A script the parser cannot read is not looked at.
func ScriptPaths(script, dir string) []string {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(script), "")
	if err != nil {
		return nil
	}
	var missing []string
	stopped := false
	syntax.Walk(f, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if stopped || !ok {
			return !stopped
		}
		words := literals(call.Args)
		prog := started(words)
		if len(prog) == 0 {
			return true
		}
		name := prog[len(prog)-1]
		if name == "cd" || name == "pushd" {
			stopped = true
			return false
		}
		var path string
		switch {
		case strings.Contains(name, "/"):
			path = name
		case interpreters[name]:
			path = interpreted(words[slices.Index(words, name)+1:])
		}
		if path == "" || strings.ContainsAny(path, "*?[~") || slices.Contains(missing, path) {
			return true
		}
		p := path
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if _, err := os.Stat(p); err != nil {
			missing = append(missing, path)
		}
		return true
	})
	return missing
}

// interpreters run the script file their first argument names (not bun
// or deno, whose first argument is a subcommand).
var interpreters = map[string]bool{
	"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "python": true, "python3": true,
	"node": true, "ruby": true, "perl": true, "php": true, "tsx": true, "ts-node": true,
}

// interpreted is the script file that args give an interpreter, "" when
// an option comes that may take code or a value (-c, -m, -e, -r ...).
func interpreted(args []string) string {
	for _, a := range args {
		switch {
		case a == "":
			return "" // not a plain word
		case a == "--":
			continue
		case strings.HasPrefix(a, "-"):
			// Flags without a value that these interpreters commonly get.
			if simpleFlags[a] {
				continue
			}
			return ""
		default:
			return a
		}
	}
	return ""
}

var simpleFlags = map[string]bool{
	"-x": true, "-u": true, "-B": true, "-O": true, "-OO": true, "-S": true, "-w": true,
	"--noprofile": true, "--norc": true, "--posix": true,
}

// Suggest returns the program name nearest to a name that is not
// installed: an installed program (on PATH) or a common check tool at
// most 1 edit away (2 for names of 5 letters or more), an edit being a
// letter added, removed, changed, or two neighbours swapped (`pytets` is
// 1 from `pytest`); "" when none is that near, or when name is a common
// tool itself (pytest is not installed, not a misspelt vitest).
func Suggest(name string) string {
	_, known := installHints[name]
	if len(name) < 3 || known || slices.Contains(commonTools, name) {
		return ""
	}
	limit := 1
	if len(name) >= 5 {
		limit = 2
	}
	best, bestD := "", limit+1
	if len(name) > 64 { // no program is named so; and the distance costs len(name) × len(c)
		return ""
	}
	consider := func(c string) {
		if c == name || len(c) > len(name)+limit || len(name) > len(c)+limit {
			return // at least the difference in length away
		}
		if d := editDistance(name, c); d < bestD {
			best, bestD = c, d
		}
	}
	for _, c := range commonTools {
		consider(c)
	}
	for c := range installHints {
		consider(c)
	}
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		entries, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if info, err := e.Info(); err == nil && !e.IsDir() && info.Mode()&0o111 != 0 {
				consider(e.Name())
			}
		}
	}
	return best
}

// editDistance is the Levenshtein distance (config.EditDistance) with a swap
// of two neighbouring letters counting as one edit (the optimal string
// alignment distance): the usual typo in a program's name.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// commonTools are programs checks often run, suggested even when they
// are not installed.
var commonTools = []string{
	"pytest", "python", "python3", "ruff", "mypy", "pyright", "tox", "nox", "black", "flake8", "pylint",
	"go", "gofmt", "golangci-lint", "staticcheck", "cargo", "rustc", "clippy-driver",
	"npm", "npx", "node", "pnpm", "yarn", "bun", "deno", "tsc", "eslint", "prettier", "jest", "vitest", "biome",
	"make", "just", "cmake", "ctest", "bazel", "gradle", "mvn", "dotnet", "mix", "bundle", "rake", "rspec",
	"shellcheck", "git", "grep", "test", "uv", "poetry", "pip",
}
