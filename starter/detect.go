package starter

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Project is what Detect found.
type Project struct {
	Kinds     []string // go, node, python, rust, make, just: what the checks came from
	Sources   []string // the files read, with the tool chosen: "package.json (pnpm)"
	Checks    []string // commands that must pass: tests first, then linters, then type checkers
	TestGlobs []string // where the tests are, to suggest protecting them

	// The checks by the role they play (Checks is them in this order).
	Tests, Linters, TypeCheckers []string

	// Agent is the agent init picked among the installed CLIs ("" when none
	// is installed); AgentsFound lists every installed one.
	Agent       string
	AgentsFound []string
}

// The roles a check plays. A task runner's target takes over a role from
// the ecosystem's own commands: a project with `make test` is tested by it.
const (
	roleTest = iota
	roleLint
	roleTypes
	roles
)

// candidate is one check and the role it plays.
type candidate struct {
	role int
	cmd  string
}

// Detect reads dir's build files and proposes the checks its maintainers
// would run, and walks it (a bounded number of entries) for test files.
func Detect(dir string) Project {
	var p Project
	d := detector{dir: dir}
	var eco []candidate
	for _, f := range []func(*Project) []candidate{d.golang, d.node, d.python, d.rust} {
		eco = append(eco, f(&p)...)
	}
	runner := d.runners(&p)
	covered := [roles]bool{}
	byRole := [roles][]string{}
	for _, c := range runner {
		covered[c.role] = true
		if c.cmd != "" {
			byRole[c.role] = append(byRole[c.role], c.cmd)
		}
	}
	for _, c := range eco {
		if !covered[c.role] {
			byRole[c.role] = append(byRole[c.role], c.cmd)
		}
	}
	for _, cmds := range byRole {
		p.Checks = append(p.Checks, cmds...)
	}
	p.Tests, p.Linters, p.TypeCheckers = byRole[roleTest], byRole[roleLint], byRole[roleTypes]
	p.TestGlobs = testGlobs(dir)
	return p
}

type detector struct{ dir string }

func (d detector) exists(names ...string) bool {
	for _, n := range names {
		if _, err := os.Stat(filepath.Join(d.dir, n)); err == nil {
			return true
		}
	}
	return false
}

func (d detector) read(name string) string {
	data, err := os.ReadFile(filepath.Join(d.dir, name))
	if err != nil {
		return ""
	}
	return string(data)
}

func (p *Project) found(kind, source string) {
	p.Kinds = append(p.Kinds, kind)
	p.Sources = append(p.Sources, source)
}

// golang: go test and go vet; golangci-lint when it is configured (it runs
// vet itself), staticcheck when configured or a go.mod tool.
func (d detector) golang(p *Project) []candidate {
	mod := d.read("go.mod")
	if mod == "" && !d.exists("go.mod") {
		return nil
	}
	p.found("go", "go.mod")
	out := []candidate{{roleTest, "go test ./..."}}
	golangci := d.exists(".golangci.yml", ".golangci.yaml", ".golangci.toml", ".golangci.json")
	if !golangci {
		out = append(out, candidate{roleLint, "go vet ./..."})
	}
	switch {
	case strings.Contains(mod, "honnef.co/go/tools/cmd/staticcheck") && regexp.MustCompile(`(?m)^tool\b`).MatchString(mod):
		out = append(out, candidate{roleLint, "go tool staticcheck ./..."})
	case d.exists("staticcheck.conf"):
		out = append(out, candidate{roleLint, "staticcheck ./..."})
	}
	if golangci {
		out = append(out, candidate{roleLint, "golangci-lint run"})
	}
	return out
}

// node: the package manager the lock file (or packageManager) names, and
// the test, lint and type-check scripts; tsc --noEmit for a TypeScript
// project without a type-check script.
func (d detector) node(p *Project) []candidate {
	var pkg struct {
		Scripts         map[string]string `json:"scripts"`
		PackageManager  string            `json:"packageManager"`
		Dependencies    map[string]string `json:"dependencies"`
		DevDependencies map[string]string `json:"devDependencies"`
	}
	data := d.read("package.json")
	if data == "" || json.Unmarshal([]byte(data), &pkg) != nil {
		return nil
	}
	pm := d.packageManager(pkg.PackageManager)
	p.found("node", "package.json ("+pm+")")
	run := func(script string) string {
		if pm == "bun" || script != "test" {
			return pm + " run " + script // `bun test` is bun's own test runner, not the script
		}
		return pm + " test"
	}
	var out []candidate
	// npm init's placeholder test script only fails.
	if t, ok := pkg.Scripts["test"]; ok && !strings.Contains(t, "no test specified") {
		out = append(out, candidate{roleTest, run("test")})
	}
	if _, ok := pkg.Scripts["lint"]; ok {
		out = append(out, candidate{roleLint, run("lint")})
	}
	typed := false
	for _, s := range []string{"typecheck", "type-check", "check-types", "types", "tsc"} {
		if _, ok := pkg.Scripts[s]; ok {
			out = append(out, candidate{roleTypes, run(s)})
			typed = true
			break
		}
	}
	_, ts := pkg.DevDependencies["typescript"]
	if _, dep := pkg.Dependencies["typescript"]; dep {
		ts = true
	}
	if !typed && ts && d.exists("tsconfig.json") {
		exec := map[string]string{"npm": "npx", "pnpm": "pnpm exec", "yarn": "yarn", "bun": "bunx"}[pm]
		out = append(out, candidate{roleTypes, exec + " tsc --noEmit"})
	}
	return out
}

func (d detector) packageManager(field string) string {
	if name, _, _ := strings.Cut(field, "@"); name == "npm" || name == "pnpm" || name == "yarn" || name == "bun" {
		return name
	}
	switch {
	case d.exists("pnpm-lock.yaml"):
		return "pnpm"
	case d.exists("yarn.lock"):
		return "yarn"
	case d.exists("bun.lockb", "bun.lock"):
		return "bun"
	}
	return "npm"
}

// python: pytest, ruff, mypy and pyright when the project configures or
// depends on them, run through uv or poetry when the project uses one.
func (d detector) python(p *Project) []candidate {
	if !d.exists(pyMarkers...) {
		return nil
	}
	py := d.readPython()
	runner, tool := py.runner(d)
	p.found("python", py.source(d)+tool)
	var out []candidate
	if d.exists("pytest.ini", "conftest.py") || py.section("tool.pytest") || pySection(py.setupCfg, "tool:pytest") ||
		pySection(d.read("tox.ini"), "pytest") || py.dependsOn("pytest") || d.hasTests() {
		out = append(out, candidate{roleTest, runner + "pytest"})
	}
	if d.exists("ruff.toml", ".ruff.toml") || py.section("tool.ruff") || py.dependsOn("ruff") {
		out = append(out, candidate{roleLint, runner + "ruff check ."})
	}
	if d.exists("mypy.ini", ".mypy.ini") || py.section("tool.mypy") || pySection(py.setupCfg, "mypy") {
		out = append(out, candidate{roleTypes, runner + "mypy ."})
	}
	if d.exists("pyrightconfig.json") || py.section("tool.pyright") {
		out = append(out, candidate{roleTypes, runner + "pyright"})
	}
	return out
}

// pyMarkers are the files that make a folder a Python project, the
// first one present naming it when there is no pyproject.toml.
var pyMarkers = []string{"pyproject.toml", "setup.py", "setup.cfg", "pytest.ini", "tox.ini", "requirements.txt", "requirements-dev.txt"}

// pythonFiles are the texts of a Python project's configuration.
type pythonFiles struct {
	pyproject, setupCfg string
	deps                string // pyproject.toml, setup.cfg and the requirements files together
}

func (d detector) readPython() pythonFiles {
	py := pythonFiles{pyproject: d.read("pyproject.toml"), setupCfg: d.read("setup.cfg")}
	reqs := d.read("requirements.txt") + d.read("requirements-dev.txt") + d.read("requirements_dev.txt")
	py.deps = py.pyproject + "\n" + py.setupCfg + "\n" + reqs
	return py
}

// pySection reports whether the INI or TOML text has the section name
// (or a subsection of it).
func pySection(text, name string) bool {
	return regexp.MustCompile(`(?m)^\s*\[` + regexp.QuoteMeta(name) + `[\].]`).MatchString(text)
}

// section reports whether pyproject.toml has the section name.
func (py pythonFiles) section(name string) bool { return pySection(py.pyproject, name) }

// dependsOn reports whether the project lists the package name among its
// dependencies.
func (py pythonFiles) dependsOn(name string) bool {
	return regexp.MustCompile(`(?mi)(^|["'\s,\[])` + regexp.QuoteMeta(name) + `\s*([<>=!~;\[,"']|$)`).MatchString(py.deps)
}

// runner is the prefix that runs a tool in the project's environment
// (uv run, poetry run; "" for neither), and the words that say so.
func (py pythonFiles) runner(d detector) (prefix, tool string) {
	switch {
	case d.exists("uv.lock"):
		return "uv run ", " (uv)"
	case d.exists("poetry.lock") || py.section("tool.poetry"):
		return "poetry run ", " (poetry)"
	}
	return "", ""
}

// source is the file that showed the project is Python.
func (py pythonFiles) source(d detector) string {
	if py.pyproject != "" {
		return "pyproject.toml"
	}
	for _, f := range pyMarkers[1:] {
		if d.exists(f) {
			return f
		}
	}
	return "pyproject.toml"
}

// hasTests reports whether tests/ or test/ holds pytest-style files.
func (d detector) hasTests() bool {
	for _, folder := range []string{"tests", "test"} {
		for _, pattern := range []string{"test_*.py", "*_test.py"} {
			if m, _ := filepath.Glob(filepath.Join(d.dir, folder, pattern)); len(m) > 0 {
				return true
			}
		}
	}
	return false
}

// rust: the tests, clippy with warnings as errors, and the formatting.
func (d detector) rust(p *Project) []candidate {
	if !d.exists("Cargo.toml") {
		return nil
	}
	p.found("rust", "Cargo.toml")
	return []candidate{
		{roleTest, "cargo test"},
		{roleLint, "cargo clippy --all-targets -- -D warnings"},
		{roleLint, "cargo fmt --check"},
	}
}

// runners: Makefile and justfile targets named test, lint and check. A
// `check` target stands for every role when there is no test target (make
// check is the GNU convention for the whole gate). A candidate with no
// command covers its role without adding a check.
func (d detector) runners(p *Project) []candidate {
	var out []candidate
	for _, r := range []struct {
		kind   string
		files  []string
		target func(text, name string) bool
	}{
		{"make", []string{"GNUmakefile", "makefile", "Makefile"}, makeTarget},
		{"just", []string{"justfile", "Justfile", ".justfile"}, justRecipe},
	} {
		for _, f := range r.files {
			text := d.read(f)
			if text == "" {
				continue
			}
			var found []candidate
			switch {
			case r.target(text, "test"):
				found = append(found, candidate{roleTest, r.kind + " test"})
			case r.target(text, "check"):
				found = append(found, candidate{roleTest, r.kind + " check"}, candidate{roleLint, ""}, candidate{roleTypes, ""})
			}
			if r.target(text, "lint") {
				found = append(found, candidate{roleLint, r.kind + " lint"})
			}
			if len(found) > 0 {
				p.found(r.kind, f)
				out = append(out, found...)
			}
			break // make reads the first of its files that exists
		}
	}
	return out
}

// makeTarget reports whether a Makefile defines target name.
func makeTarget(text, name string) bool {
	return regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + `\s*:([^=]|$)`).MatchString(text)
}

// justRecipe reports whether a justfile defines recipe name (with or
// without parameters, quiet with @).
func justRecipe(text, name string) bool {
	return regexp.MustCompile(`(?m)^@?` + regexp.QuoteMeta(name) + `(\s+[^:=]*)?:([^=]|$)`).MatchString(text)
}
