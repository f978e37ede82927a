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
		name   string
		files  map[string]string
		checks []string
		globs  []string
	}{
		{"go", map[string]string{"go.mod": "module x\n", "pkg/a_test.go": "package pkg\n"}, []string{"go test ./...", "go vet ./..."}, []string{"**/*_test.go"}},
		{"node with test and lint", map[string]string{"package.json": `{"scripts":{"test":"vitest","lint":"eslint ."}}`, "src/a.test.ts": "", "node_modules/x/b.spec.js": ""}, []string{"npm test", "npm run lint"}, []string{"**/*.test.*"}},
		{"node placeholder test", map[string]string{"package.json": `{"scripts":{"test":"echo \"Error: no test specified\" && exit 1"}}`}, nil, nil},
		{"python", map[string]string{"pyproject.toml": "", "tests/test_a.py": ""}, []string{"pytest"}, []string{"**/test_*.py", "tests/**"}},
		{"pytest.ini", map[string]string{"pytest.ini": ""}, []string{"pytest"}, nil},
		{"rust", map[string]string{"Cargo.toml": "", "tests/it.rs": ""}, []string{"cargo test"}, []string{"tests/**"}},
		{"nothing", map[string]string{"README.md": ""}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			dir := t.TempDir()
			write(t, dir, tc.files)
			p := Detect(dir)
			is.Equal(p.Checks, tc.checks)
			is.Equal(p.TestGlobs, tc.globs)
		})
	}
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
