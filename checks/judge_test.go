package checks

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// judgeTree writes files (slash paths → contents) under a new folder.
func judgeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// present is the judge's existing files, as "path" (inside) or "!path"
// (outside the workspace).
func present(j Judge) []string {
	var out []string
	for _, f := range j.Present() {
		p := f.Path
		if f.Outside {
			p = "!" + p
		}
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// findJudge finds the files that define one check command run in dir, as
// a run finds them for each of its checks.
func findJudge(dir, command string) Judge {
	return FindJudges(dir, []string{command}, nil)[0]
}

func TestFindJudge(t *testing.T) {
	tree := map[string]string{
		"check.sh":             "#!/bin/sh\nruff check . && sh scripts/deep.sh\n",
		"scripts/test.sh":      "#!/bin/sh\npytest -q\n",
		"scripts/deep.sh":      "#!/bin/sh\nmypy .\n",
		"tests/run.py":         "print('ok')\n",
		"ruff.toml":            "line-length = 88\n",
		"pyproject.toml":       "[tool.pytest.ini_options]\n",
		"conftest.py":          "",
		"mypy.ini":             "",
		"package.json":         `{"scripts": {"test": "jest", "lint": "eslint . && tsc -p tsconfig.build.json", "pretest": "node setup.js"}}`,
		"jest.config.js":       "",
		"eslint.config.js":     "",
		"tsconfig.json":        "{}",
		"tsconfig.build.json":  "{}",
		"setup.js":             "",
		"web/package.json":     `{"scripts": {"test": "vitest run"}}`,
		"web/vitest.config.ts": "",
		"Makefile":             "all: lint\n\nlint:\n\t@golangci-lint run\n\ntest: lint\n\t./scripts/test.sh\n\tgo test ./...\n",
		".golangci.yml":        "",
		"sub/Makefile":         "test:\n\tcargo test\n",
		"sub/Cargo.toml":       "",
		"justfile":             "default: check\n\ncheck:\n    sh check.sh\n",
		"go.mod":               "module x\n",
		"gradlew":              "#!/bin/sh\nexec java -jar gradle/wrapper.jar \"$@\"\n",
		"build.gradle.kts":     "",
	}
	dir := judgeTree(t, tree)
	cases := []struct {
		cmd  string
		want []string
	}{
		{"sh check.sh", []string{"check.sh", "pyproject.toml", "ruff.toml", "scripts/deep.sh"}},
		{"./scripts/test.sh", []string{"conftest.py", "pyproject.toml", "scripts/test.sh"}},
		{"python3 tests/run.py", []string{"tests/run.py"}},
		{"./gradlew test", []string{"build.gradle.kts", "gradlew"}},
		{"python3 -m pytest -q", []string{"conftest.py", "pyproject.toml"}},
		{"FOO=1 uv run --with x pytest", []string{"conftest.py", "pyproject.toml"}},
		{"env CI=1 timeout 60 mypy .", []string{"mypy.ini", "pyproject.toml"}},
		{"npm test", []string{"jest.config.js", "package.json", "setup.js"}},
		{"npm run lint", []string{"eslint.config.js", "package.json", "tsconfig.build.json", "tsconfig.json"}},
		{"pnpm lint", []string{"eslint.config.js", "package.json", "tsconfig.build.json", "tsconfig.json"}},
		{"npm --prefix web test", []string{"web/package.json", "web/vitest.config.ts"}},
		{"cd web && yarn test", []string{"web/package.json", "web/vitest.config.ts"}},
		{"make test", []string{".golangci.yml", "Makefile", "scripts/test.sh"}},
		{"make", []string{".golangci.yml", "Makefile"}},
		{"cd sub && make test", []string{"sub/Cargo.toml", "sub/Makefile"}},
		{"make -C sub test", []string{"sub/Cargo.toml", "sub/Makefile"}},
		{"just", []string{"check.sh", "justfile"}},
		{"go test ./...", nil},
		{"go vet ./... && golangci-lint run", []string{".golangci.yml"}},
		{"bash -c 'ruff check . && npx tsc --noEmit'", []string{"pyproject.toml", "ruff.toml", "tsconfig.build.json", "tsconfig.json"}},
		{"sh /etc/hostname", []string{"!/etc/hostname"}},
		{"sh ../outside.sh", nil},
		{"python3 tests/", nil},
		{"echo $(cat x) | grep", nil},
		{"if then fi (", nil},
	}
	for _, c := range cases {
		t.Run(c.cmd, func(t *testing.T) {
			is := is.New(t)
			is.Equal(present(findJudge(dir, c.cmd)), c.want)
		})
	}
}

// Absent configuration files are guarded too (creating one changes the
// verdict), but are not among the files present.
func TestFindJudgeAbsentCandidates(t *testing.T) {
	is := is.New(t)
	dir := judgeTree(t, map[string]string{"app.py": ""})
	j := findJudge(dir, "ruff check .")
	is.Equal(present(j), nil)
	var all []string
	for _, f := range j.Files {
		is.True(!f.Exists)
		all = append(all, f.Path)
	}
	is.True(slices.Contains(all, "ruff.toml"))
	is.True(slices.Contains(all, ".ruff.toml"))
	is.True(slices.Contains(all, "pyproject.toml"))
}

// pytest loads the conftest.py of the folders it collects: those of the
// test folders are guarded, present or absent (one created there can
// turn every failure into a pass), and those one folder further down.
func TestFindJudgeConftests(t *testing.T) {
	is := is.New(t)
	dir := judgeTree(t, map[string]string{
		"tests/test_a.py":        "",
		"tests/unit/conftest.py": "",
		"tests/unit/test_b.py":   "",
		"suite/conftest.py":      "",
		"web/test/conftest.py":   "",
		"app.py":                 "",
	})
	all := func(j Judge) []string {
		var out []string
		for _, f := range j.Files {
			out = append(out, f.Path)
		}
		return out
	}
	j := findJudge(dir, "pytest -q")
	is.True(slices.Contains(all(j), "tests/conftest.py")) // absent: creating it changes the verdict
	is.Equal(present(j), []string{"tests/unit/conftest.py"})
	is.Equal(present(findJudge(dir, "python -m pytest suite/ tests/unit/test_b.py::test_x")), []string{"suite/conftest.py", "tests/unit/conftest.py"})
	is.Equal(present(findJudge(dir, "cd web && pytest")), []string{"tests/unit/conftest.py", "web/test/conftest.py"}) // and at the top
	is.True(!slices.Contains(all(findJudge(dir, "ruff check .")), "tests/conftest.py"))                               // not pytest's
}

// The files a Makefile includes define its targets too (MAKEFLAGS += -i
// there ignores every error), present or absent (-include local.mk).
func TestFindJudgeMakeIncludes(t *testing.T) {
	is := is.New(t)
	dir := judgeTree(t, map[string]string{
		"Makefile":  "include common.mk  # shared\n-include local.mk\ninclude $(ROOT)/x.mk\n\ntest:\n\tgrep -q good code.txt\n",
		"common.mk": "GO ?= go\n",
	})
	j := findJudge(dir, "make test")
	is.Equal(present(j), []string{"Makefile", "common.mk"})
	var all []string
	for _, f := range j.Files {
		all = append(all, f.Path)
	}
	is.True(slices.Contains(all, "local.mk"))                                                // absent: creating it changes the verdict
	is.True(!slices.Contains(all, "#"))                                                      // a comment is no file
	is.Equal(makeIncludes("\tinclude x.mk\nsinclude a.mk b.mk\n"), []string{"a.mk", "b.mk"}) // a recipe line includes nothing
}

// The package manager's configuration decides how a script runs
// (script-shell=/bin/true in .npmrc passes every script): it defines the
// check, present or absent, in the package's folder and at the top.
func TestFindJudgePackageManagerConfig(t *testing.T) {
	is := is.New(t)
	dir := judgeTree(t, map[string]string{
		"package.json":     `{"scripts": {"test": "node test.js"}}`,
		"web/package.json": `{"scripts": {"test": "node test.js"}}`,
		"web/.yarnrc.yml":  "",
	})
	all := func(j Judge) []string {
		var out []string
		for _, f := range j.Files {
			out = append(out, f.Path)
		}
		return out
	}
	is.True(slices.Contains(all(findJudge(dir, "npm test")), ".npmrc"))
	is.True(slices.Contains(all(findJudge(dir, "npm --prefix web test")), "web/.npmrc"))
	is.Equal(present(findJudge(dir, "yarn --cwd web test")), []string{"web/.yarnrc.yml", "web/package.json"})
	is.True(!slices.Contains(all(findJudge(dir, "node test.js")), ".npmrc")) // no package manager
}

// The files outside the workspace are listed, marked Outside.
func TestFindJudgeOutside(t *testing.T) {
	is := is.New(t)
	parent := t.TempDir()
	is.NoErr(os.WriteFile(filepath.Join(parent, "outside.sh"), []byte("true\n"), 0o644))
	dir := filepath.Join(parent, "ws")
	is.NoErr(os.Mkdir(dir, 0o755))
	j := findJudge(dir, "sh ../outside.sh")
	is.Equal(len(j.Files), 1)
	is.True(j.Files[0].Outside)
	is.True(j.Files[0].Exists)
	is.Equal(j.Files[0].Path, filepath.ToSlash(filepath.Join(parent, "outside.sh")))
}

// Extra files (--judge-file) define every check; each file is named once
// with what it is.
func TestFindJudgesExtra(t *testing.T) {
	is := is.New(t)
	dir := judgeTree(t, map[string]string{"check.sh": "true\n", "rules.txt": ""})
	js := FindJudges(dir, []string{"sh check.sh", "go test ./..."}, []string{"rules.txt"})
	is.Equal(present(js[0]), []string{"check.sh", "rules.txt"})
	is.Equal(present(js[1]), []string{"rules.txt"})
	is.Equal(js[0].Files[0].Why, "the script it runs")
	is.True(strings.Contains(js[1].Files[0].Why, "--judge-file"))
}

// Following stops one level down: a script named by a Makefile target is
// guarded, but its own commands are not read.
func TestFindJudgeOneLevel(t *testing.T) {
	is := is.New(t)
	dir := judgeTree(t, map[string]string{
		"Makefile":   "test:\n\tsh a.sh\n",
		"a.sh":       "sh b.sh\n",
		"b.sh":       "ruff check .\n",
		"ruff.toml":  "",
		"other.toml": "",
	})
	is.Equal(present(findJudge(dir, "make test")), []string{"Makefile", "a.sh"})
	is.Equal(present(findJudge(dir, "sh a.sh")), []string{"a.sh", "b.sh"})
}

func TestMakeRecipes(t *testing.T) {
	is := is.New(t)
	mk := "VAR := 1\n.PHONY: test\n# comment\nbuild: ; go build\n\ntest: build\n\t@echo $$HOME \\\n\t  more\n\t-go test ./...\nother:\n\ttrue\n"
	is.Equal(makeRecipes(mk, []string{"test"}), []string{"echo $HOME  \t  more", "go test ./...", "go build"})
	is.Equal(makeRecipes(mk, nil), []string{"go build"})
}

// make reads GNUmakefile, then makefile, then Makefile: the first there is
// defines the target, and an agent that edits it changes the verdict.
func TestFindJudgeMakefileName(t *testing.T) {
	is := is.New(t)
	both := judgeTree(t, map[string]string{
		"GNUmakefile": "test:\n\ttrue\n",
		"Makefile":    "test:\n\tfalse\n",
	})
	is.Equal(present(findJudge(both, "make test")), []string{"GNUmakefile"})
	lower := judgeTree(t, map[string]string{"makefile": "test:\n\ttrue\n"})
	is.Equal(present(findJudge(lower, "make test")), []string{"makefile"})
	none := judgeTree(t, map[string]string{"check.sh": "true\n"})
	is.Equal(findJudge(none, "make test").Files[0].Path, "Makefile") // absent: creating it changes the verdict
}

// bun's test runner reads bunfig.toml (a preload there runs before every
// test): it defines `bun test`, present or absent.
func TestFindJudgeBunTest(t *testing.T) {
	is := is.New(t)
	dir := judgeTree(t, map[string]string{"package.json": `{"scripts": {"test": "bun test"}}`})
	var all []string
	for _, f := range findJudge(dir, "bun test").Files {
		all = append(all, f.Path)
	}
	is.True(slices.Contains(all, "bunfig.toml"))
}
