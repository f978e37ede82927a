package starter

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"
	"go.yaml.in/yaml/v3"
)

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		name    string
		files   map[string]string
		checks  []string
		sources []string
		globs   []string
	}{
		{"go", map[string]string{"go.mod": "module x\n", "pkg/a_test.go": "package pkg\n"}, []string{"go test ./...", "go vet ./..."}, []string{"go.mod"}, []string{"**/*_test.go"}},
		{"go with golangci-lint", map[string]string{"go.mod": "module x\n", ".golangci.yml": "linters: {}\n"}, []string{"go test ./...", "golangci-lint run"}, []string{"go.mod"}, nil},
		{"go with staticcheck.conf", map[string]string{"go.mod": "module x\n", "staticcheck.conf": "checks = [\"all\"]\n"}, []string{"go test ./...", "go vet ./...", "staticcheck ./..."}, []string{"go.mod"}, nil},
		{"go with staticcheck as a tool", map[string]string{"go.mod": "module x\n\ngo 1.24\n\ntool honnef.co/go/tools/cmd/staticcheck\n"}, []string{"go test ./...", "go vet ./...", "go tool staticcheck ./..."}, []string{"go.mod"}, nil},
		{"npm with test and lint", map[string]string{"package.json": `{"scripts":{"test":"vitest","lint":"eslint ."}}`, "package-lock.json": "{}", "src/a.test.ts": "", "node_modules/x/b.spec.js": ""}, []string{"npm test", "npm run lint"}, []string{"package.json (npm)"}, []string{"**/*.test.*"}},
		{"npm placeholder test", map[string]string{"package.json": `{"scripts":{"test":"echo \"Error: no test specified\" && exit 1"}}`}, nil, []string{"package.json (npm)"}, nil},
		{"pnpm, TypeScript without a typecheck script", map[string]string{"package.json": `{"scripts":{"test":"vitest run"},"devDependencies":{"typescript":"^5"}}`, "pnpm-lock.yaml": "", "tsconfig.json": "{}"}, []string{"pnpm test", "pnpm exec tsc --noEmit"}, []string{"package.json (pnpm)"}, nil},
		{"yarn with a typecheck script", map[string]string{"package.json": `{"scripts":{"test":"jest","lint":"eslint .","typecheck":"tsc -b"},"devDependencies":{"typescript":"^5"}}`, "yarn.lock": "", "tsconfig.json": "{}"}, []string{"yarn test", "yarn run lint", "yarn run typecheck"}, []string{"package.json (yarn)"}, nil},
		{"bun: the test script, not bun's runner", map[string]string{"package.json": `{"scripts":{"test":"bun test"},"dependencies":{"typescript":"5"}}`, "bun.lockb": "", "tsconfig.json": "{}"}, []string{"bun run test", "bunx tsc --noEmit"}, []string{"package.json (bun)"}, nil},
		{"packageManager field beats the lock file", map[string]string{"package.json": `{"packageManager":"pnpm@9.1.0","scripts":{"lint":"eslint ."}}`, "package-lock.json": "{}"}, []string{"pnpm run lint"}, []string{"package.json (pnpm)"}, nil},
		{"python with uv, pytest, ruff and mypy", map[string]string{"pyproject.toml": "[project]\nname = \"x\"\n[dependency-groups]\ndev = [\"pytest>=8\", \"ruff\"]\n[tool.mypy]\nstrict = true\n", "uv.lock": "", "tests/test_a.py": ""}, []string{"uv run pytest", "uv run ruff check .", "uv run mypy ."}, []string{"pyproject.toml (uv)"}, []string{"**/test_*.py", "tests/**"}},
		{"python with poetry and pyright", map[string]string{"pyproject.toml": "[tool.poetry]\nname = \"x\"\n[tool.poetry.group.dev.dependencies]\npytest = \"^8\"\n[tool.pyright]\n", "poetry.lock": ""}, []string{"poetry run pytest", "poetry run pyright"}, []string{"pyproject.toml (poetry)"}, nil},
		{"python, ruff configured on its own", map[string]string{"pyproject.toml": "[project]\nname = \"x\"\n", "ruff.toml": "line-length = 100\n"}, []string{"ruff check ."}, []string{"pyproject.toml"}, nil},
		{"pytest.ini", map[string]string{"pytest.ini": ""}, []string{"pytest"}, []string{"pytest.ini"}, nil},
		{"requirements with pytest", map[string]string{"requirements-dev.txt": "pytest==8.2\nblack\n"}, []string{"pytest"}, []string{"requirements-dev.txt"}, nil},
		{"pytest-cov is not pytest", map[string]string{"requirements.txt": "pytest-cov\n"}, nil, []string{"requirements.txt"}, nil},
		{"rust", map[string]string{"Cargo.toml": "", "tests/it.rs": ""}, []string{"cargo test", "cargo clippy --all-targets -- -D warnings", "cargo fmt --check"}, []string{"Cargo.toml"}, []string{"tests/**"}},
		{"Makefile targets take over their roles", map[string]string{"go.mod": "module x\n", "Makefile": ".PHONY: test lint\ntest: build\n\tgo test -race ./...\nlint:\n\tgolangci-lint run\nVAR := x\n"}, []string{"make test", "make lint"}, []string{"go.mod", "Makefile"}, nil},
		{"Makefile test only: the ecosystem's linters stay", map[string]string{"go.mod": "module x\n", "Makefile": "test:\n\tgo test ./...\n"}, []string{"make test", "go vet ./..."}, []string{"go.mod", "Makefile"}, nil},
		{"justfile check is the whole gate", map[string]string{"Cargo.toml": "", "justfile": "# the gate\ncheck: fmt\n    cargo test\n\n@fmt:\n    cargo fmt\n"}, []string{"just check"}, []string{"Cargo.toml", "justfile"}, nil},
		{"justfile recipes with parameters", map[string]string{"justfile": "test *args:\n    pytest {{args}}\nlint:\n    ruff check .\n"}, []string{"just test", "just lint"}, []string{"justfile"}, nil},
		{"a variable named test is not a target", map[string]string{"Makefile": "test := yes\ntest ?= no\n"}, nil, nil, nil},
		{"nothing", map[string]string{"README.md": ""}, nil, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			dir := t.TempDir()
			write(t, dir, tc.files)
			p := Detect(dir)
			is.Equal(p.Checks, tc.checks)
			is.Equal(p.Sources, tc.sources)
			is.Equal(p.TestGlobs, tc.globs)
		})
	}
}

func TestPickAgent(t *testing.T) {
	is := is.New(t)
	on := func(bins ...string) func(string) (string, error) {
		return func(name string) (string, error) {
			for _, b := range bins {
				if b == name {
					return "/usr/bin/" + b, nil
				}
			}
			return "", os.ErrNotExist
		}
	}
	picked, found := PickAgent(on("gemini", "codex", "cursor-agent"))
	is.Equal(picked, "codex") // claude first, then codex, then gemini
	is.Equal(found, []string{"codex", "gemini", "cursor"})
	picked, found = PickAgent(on())
	is.Equal(picked, "")
	is.Equal(len(found), 0)
}

func TestRalphYAMLIsValid(t *testing.T) {
	for _, planBuild := range []bool{false, true} {
		is := is.New(t)
		p := Project{Kinds: []string{"go"}, Checks: []string{"go test ./...", "echo 'a: b' # c"}, TestGlobs: []string{"**/*_test.go"}}
		text := RalphYAML(p, planBuild)
		var doc struct {
			Loop map[string]any `yaml:"ralph_loop"`
		}
		is.NoErr(yaml.Unmarshal([]byte(text), &doc))
		is.Equal(doc.Loop["checks"], []any{"go test ./...", "echo 'a: b' # c"}) // quoted where YAML needs it
		is.True(strings.Contains(text, `# protect: ["**/*_test.go"]`))
		if planBuild {
			is.Equal(doc.Loop["mode"], "plan")
		} else {
			is.Equal(doc.Loop["spec"], "PROMPT.md")
		}
	}
}

func TestTemplatesAskForTheCompletionTag(t *testing.T) {
	is := is.New(t)
	for _, mode := range []string{"", "plan", "build"} {
		is.True(strings.Contains(Template(mode), "<promise>COMPLETE</promise>"))
	}
	is.True(strings.Contains(Template("plan"), "IMPLEMENTATION_PLAN.md"))
	is.True(Template("plan") != Template("build"))
}

func TestIsTemplate(t *testing.T) {
	is := is.New(t)
	is.True(IsTemplate(Template(""))) // the file init writes
	cases := []struct {
		spec string
		want bool
	}{
		{"\ufeff# <your task>\r\n\nwords", true},
		{"\n\n  # <your task>  \n", true},
		{"# Fix the login form\n\n" + strings.TrimPrefix(Template(""), Placeholder), false},
		{"intro\n# <your task>\n", false},
		{"", false},
	}
	for _, c := range cases {
		is.Equal(IsTemplate(c.spec), c.want) // c.spec
	}
	for _, mode := range []string{"plan", "build"} {
		is.True(!IsTemplate(Template(mode))) // the plan and build prompts are used as they are
	}
}

// Without a pyproject.toml, the first Python file present names the
// project; setup.cfg and tox.ini sections configure the tools.
func TestDetectPythonSource(t *testing.T) {
	for _, tc := range []struct {
		name    string
		files   map[string]string
		checks  []string
		sources []string
	}{
		{"setup.py before tox.ini", map[string]string{"setup.py": "", "tox.ini": "[pytest]\n"}, []string{"pytest"}, []string{"setup.py"}},
		{"setup.cfg with mypy", map[string]string{"setup.cfg": "[mypy]\nstrict = True\n"}, []string{"mypy ."}, []string{"setup.cfg"}},
		{"setup.cfg with tool:pytest", map[string]string{"setup.cfg": "[tool:pytest]\n", "poetry.lock": ""}, []string{"poetry run pytest"}, []string{"setup.cfg (poetry)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			dir := t.TempDir()
			write(t, dir, tc.files)
			p := Detect(dir)
			is.Equal(p.Checks, tc.checks)
			is.Equal(p.Sources, tc.sources)
		})
	}
}
