package checks

import (
	"strings"
	"testing"

	"github.com/matryer/is"
)

// A file that defines a check in part changes the judge only where it
// does: package.json's script, not its dependencies; pyproject.toml's
// [tool.ruff], however it is written, not [project].
func TestJudgeView(t *testing.T) {
	pkg := `{"name": "x", "scripts": {"test": "jest", "build": "tsc"}, "dependencies": {}}`
	py := "[project]\nname = \"x\"\ndependencies = []\n\n[tool.ruff]\nline-length = 88\n\n[tool.black]\nline-length = 88\n"
	cfg := "[metadata]\nname = x\n\n[mypy]\nstrict = True\n\n[flake8]\nmax-line-length = 88\n"
	mk := "GO = go\n\ntest: vet\n\tsh run.sh\n\nvet:\n\tgo vet ./...\n\nbuild:\n\tgo build\n\n.PHONY: test vet build\n"
	tt := []string{"target test"}
	cases := []struct {
		name, file string
		parts      []string
		before     string
		after      string
		changed    bool
	}{
		{"dependency added", "package.json", []string{"scripts.test"}, pkg, `{"name": "x", "scripts": {"test": "jest", "build": "tsc"}, "dependencies": {"lodash": "^4"}}`, false},
		{"other script changed", "package.json", []string{"scripts.test"}, pkg, `{"scripts": {"build": "true", "test": "jest"}}`, false},
		{"reformatted", "package.json", []string{"scripts.test"}, pkg, "{\n  \"scripts\": {\n    \"test\": \"jest\"\n  }\n}\n", false},
		{"test script changed", "package.json", []string{"scripts.test"}, pkg, `{"scripts": {"test": "exit 0"}}`, true},
		{"pretest added", "package.json", []string{"scripts.pretest", "scripts.test"}, pkg, `{"scripts": {"test": "jest", "pretest": "exit 0"}}`, true},
		{"broken json", "package.json", []string{"scripts.test"}, pkg, `{"scripts": `, true},
		{"project dependency added", "pyproject.toml", []string{"tool.ruff"}, py, "[project]\nname = \"x\"\ndependencies = [\"requests\"]\n\n[tool.ruff]\nline-length = 88\n\n[tool.black]\nline-length = 88\n", false},
		{"comment changed", "pyproject.toml", []string{"tool.ruff"}, py, "[project]\nname = \"x\"\ndependencies = []\n\n[tool.ruff]\n# no comment\nline-length = 88\n\n[tool.black]\nline-length = 88\n", false},
		{"another tool changed", "pyproject.toml", []string{"tool.ruff"}, py, "[project]\nname = \"x\"\ndependencies = []\n\n[tool.ruff]\nline-length = 88\n\n[tool.black]\nline-length = 120\n", false},
		{"ruff loosened", "pyproject.toml", []string{"tool.ruff"}, py, "[project]\nname = \"x\"\ndependencies = []\n\n[tool.ruff]\nline-length = 200\n\n[tool.black]\nline-length = 88\n", true},
		{"ruff sub-section added", "pyproject.toml", []string{"tool.ruff"}, py, py + "[tool.ruff.lint]\nignore = [\"E501\"]\n", true},
		{"ruff set through [tool]", "pyproject.toml", []string{"tool.ruff"}, py, py + "[tool]\nruff = { ignore = [\"E501\"] }\n", true},
		{"ruff set by a dotted key", "pyproject.toml", []string{"tool.ruff"}, py, "tool.ruff.ignore = [\"E501\"]\n" + py, true},
		{"ruff quoted", "pyproject.toml", []string{"tool.ruff"}, py, py + "[tool.\"ruff\".lint]\nignore = [\"E501\"]\n", true},
		{"setup.cfg metadata", "setup.cfg", []string{"mypy"}, cfg, "[metadata]\nname = y\n\n[mypy]\nstrict = True\n\n[flake8]\nmax-line-length = 88\n", false},
		{"mypy per-module section", "setup.cfg", []string{"mypy"}, cfg, cfg + "[mypy-app.*]\nignore_errors = True\n", true},
		{"mypyx is another section", "setup.cfg", []string{"mypy"}, cfg, cfg + "[mypyx]\na = 1\n", false},
		{"make: another target's recipe", "Makefile", tt, mk, strings.Replace(mk, "go build", "go build -v", 1), false},
		{"make: a target added", "Makefile", tt, mk, mk + "\nfmt:\n\tgofmt -w .\n", false},
		{"make: a target added to .PHONY", "Makefile", tt, mk, strings.Replace(mk, "vet build\n", "vet build fmt\n", 1) + "fmt:\n\tgofmt -w .\n", false},
		{"make: the target out of .PHONY", "Makefile", tt, mk, strings.Replace(mk, ".PHONY: test vet", ".PHONY: vet", 1), true},
		{"make: errors of the target ignored", "Makefile", tt, mk, mk + ".IGNORE: test\n", true},
		{"make: errors of another target ignored", "Makefile", tt, mk, mk + ".IGNORE: build\n", false},
		{"make: a comment", "Makefile", tt, mk, "# the project's targets\n" + mk, false},
		{"make: the target's recipe", "Makefile", tt, mk, strings.Replace(mk, "sh run.sh", "true", 1), true},
		{"make: a prerequisite's recipe", "Makefile", tt, mk, strings.Replace(mk, "go vet", "true", 1), true},
		{"make: a prerequisite added", "Makefile", tt, mk, mk + "test: fmt\nfmt:\n\tgofmt -w .\n", true},
		{"make: the target redefined", "Makefile", tt, mk, mk + "\ntest:\n\ttrue\n", true},
		{"make: a variable", "Makefile", tt, mk, "MAKEFLAGS += -i\n" + mk, true},
		{"make: a special target", "Makefile", tt, mk, mk + ".IGNORE:\n", true},
		{"make: a pattern rule", "Makefile", tt, mk, mk + "%.sh:\n\ttrue\n", true},
		{"make: a continued recipe line", "Makefile", tt, "test:\n\tsh run.sh \\\n\t  -v\n", "test:\n\tsh run.sh \\\n\t  -q\n", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			v := JudgeView(c.file, c.parts)
			is.True(v != nil)
			is.Equal(string(v([]byte(c.before))) != string(v([]byte(c.after))), c.changed)
		})
	}
	is.New(t).True(JudgeView("check.sh", []string{"x"}) == nil)
	is.New(t).True(JudgeView("package.json", nil) == nil)
}

// The parts found: npm's script with its pre and post scripts, and the
// tools' sections; a file one check names whole stays whole.
func TestFindJudgeParts(t *testing.T) {
	is := is.New(t)
	dir := judgeTree(t, map[string]string{
		"package.json":   `{"scripts": {"test": "jest && eslint ."}}`,
		"pyproject.toml": "",
		"setup.cfg":      "",
	})
	parts := func(j Judge) map[string][]string {
		m := map[string][]string{}
		for _, f := range j.Present() {
			m[f.Path] = f.Parts
		}
		return m
	}
	is.Equal(parts(findJudge(dir, "npm test")), map[string][]string{
		"package.json": {"scripts.pretest", "scripts.test", "scripts.posttest", "jest", "eslintConfig"}})
	is.Equal(parts(findJudge(dir, "ruff check . && mypy . && python -m pytest")), map[string][]string{
		"pyproject.toml": {"tool.ruff", "tool.mypy", "tool.pytest"}, "setup.cfg": {"mypy", "tool:pytest"}})
	is.Equal(parts(findJudge(dir, "mypy . && cat setup.cfg && sh setup.cfg")), map[string][]string{
		"pyproject.toml": {"tool.mypy"}, "setup.cfg": nil})
	mk := judgeTree(t, map[string]string{"Makefile": "all:\n\techo\ntest:\n\techo\nlint:\n\techo\n"})
	is.Equal(parts(findJudge(mk, "make test && make -C . lint")), map[string][]string{"Makefile": {"target test", "target lint"}})
	is.Equal(parts(findJudge(mk, "make test && make")), map[string][]string{"Makefile": nil}) // the default target: the first rule
}
