package starter

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/architect-dev/architect/usererr"
	"github.com/matryer/is"
	"go.yaml.in/yaml/v3"
)

// Every built-in preset reads, renders with its example parameters, and
// gives a layer whose ralph_loop has the task and the detected checks.
func TestBuiltinPresetsRender(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	write(t, dir, map[string]string{"go.mod": "module x\n", "a_test.go": "package x\n", "SPEC.md": "# spec\n"})
	all, err := Presets()
	is.NoErr(err)
	var names []string
	for _, p := range all {
		names = append(names, p.Name)
		var params []string
		for _, prm := range p.Params {
			if prm.Required {
				params = append(params, prm.Name+"="+prm.example())
			}
		}
		r, err := p.Render(params, dir)
		is.NoErr(err)
		is.True(strings.Contains(r.Task, "<promise>COMPLETE</promise>")) // every prompt says how to finish
		is.True(!strings.Contains(r.Task, "{{"))                         // every placeholder filled
		var doc struct {
			Loop map[string]any `yaml:"ralph_loop"`
		}
		is.NoErr(yaml.Unmarshal(r.YAML, &doc))
		is.Equal(doc.Loop["task"], r.Task)
		is.True(len(r.Checks) > 0)
		is.True(doc.Loop["max_iterations"] != nil) // every preset bounds its run
	}
	is.Equal(names, []string{"coverage", "fix-tests", "implement-spec", "lint", "review-fix", "upgrade-dependency"})
}

// A preset's checks are the project's: detected for Go, npm and Python,
// per kind where the preset names one.
func TestPresetChecksFollowTheProject(t *testing.T) {
	for _, tc := range []struct {
		name   string
		files  map[string]string
		preset string
		params []string
		want   []string // a substring of each check, in order
	}{
		{"go coverage", map[string]string{"go.mod": "module x\n"}, "coverage", []string{"target=75"}, []string{"go tool cover -func"}},
		{"python coverage", map[string]string{"pyproject.toml": "[tool.pytest.ini_options]\n"}, "coverage", []string{"target=75"}, []string{"coverage report --fail-under=75"}},
		{"npm lint", map[string]string{"package.json": `{"scripts":{"test":"vitest","lint":"eslint ."}}`}, "lint", nil, []string{"npm run lint", "npm test"}},
		{"go fix-tests", map[string]string{"go.mod": "module x\n"}, "fix-tests", nil, []string{"go test ./..."}},
		{"go upgrade", map[string]string{"go.mod": "module x\n"}, "upgrade-dependency", []string{"dependency=golang.org/x/mod"}, []string{"go test ./...", "go vet ./...", "go list -m -u -f '{{if .Update}}{{.Update.Version}}{{end}}' golang.org/x/mod"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			dir := t.TempDir()
			write(t, dir, tc.files)
			p, err := FindPreset(tc.preset)
			is.NoErr(err)
			r, err := p.Render(tc.params, dir)
			is.NoErr(err)
			is.Equal(len(r.Checks), len(tc.want))
			for i, w := range tc.want {
				is.True(strings.Contains(r.Checks[i], w)) // check i
			}
		})
	}
}

// Parameters: required, checked against the pattern or the safe default,
// unknown ones refused, defaults filled.
func TestPresetParams(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"go.mod": "module x\n"})
	for _, tc := range []struct {
		preset string
		params []string
		err    string // "" for none
	}{
		{"coverage", nil, "preset coverage needs the parameter target"},
		{"coverage", []string{"target=80"}, ""},
		{"coverage", []string{"target=80.5"}, ""},
		{"coverage", []string{"target=eighty"}, `preset coverage: target="eighty" is not a valid value`},
		{"coverage", []string{"target=80; rm -rf /"}, `preset coverage: target="80; rm -rf /" is not a valid value`},
		{"coverage", []string{"target"}, `preset coverage: parameter "target" is not KEY=VALUE`},
		{"coverage", []string{"target=80", "goal=3"}, `preset coverage has no parameter "goal"`},
		{"fix-tests", []string{"x=1"}, `preset fix-tests takes no parameters, and "x" was given`},
		{"upgrade-dependency", []string{"dependency=a b"}, `preset upgrade-dependency: dependency="a b" is not a valid value`},
		{"upgrade-dependency", []string{"dependency=$(id)"}, `preset upgrade-dependency: dependency="$(id)" is not a valid value`},
		{"upgrade-dependency", []string{"dependency='x'"}, `preset upgrade-dependency: dependency="'x'" is not a valid value`},
		{"upgrade-dependency", []string{"dependency=github.com/a/b", "version=v1.2.3-rc.1"}, ""},
	} {
		t.Run(tc.preset+" "+strings.Join(tc.params, " "), func(t *testing.T) {
			is := is.New(t)
			p, err := FindPreset(tc.preset)
			is.NoErr(err)
			_, err = p.Render(tc.params, dir)
			if tc.err == "" {
				is.NoErr(err)
				return
			}
			var ue *usererr.Error
			is.True(errors.As(err, &ue))
			is.Equal(ue.Msg, tc.err)
			is.True(ue.Hint != "")
		})
	}
}

// The task is data: a parameter value reaches the prompt as it is written,
// and the default fills an unset one.
func TestPresetDefaults(t *testing.T) {
	is := is.New(t)
	p, err := FindPreset("implement-spec")
	is.NoErr(err)
	r, err := p.Render(nil, t.TempDir())
	is.NoErr(err)
	is.True(strings.HasPrefix(r.Task, "# Implement SPEC.md\n"))
	r, err = p.Render([]string{"spec=specs/auth.md"}, t.TempDir())
	is.NoErr(err)
	is.True(strings.HasPrefix(r.Task, "# Implement specs/auth.md\n"))
	is.True(strings.Contains(r.Checks[len(r.Checks)-1], "test -f specs/auth.md"))
}

// The project's folder beats the user's, which beats the built-in ones; a
// broken preset file is an error naming it.
func TestPresetFolders(t *testing.T) {
	is := is.New(t)
	project, user := t.TempDir(), t.TempDir()
	write(t, user, map[string]string{
		"coverage.yaml": "description: the user's coverage\nchecks: [{run: make cover}]\n",
		"coverage.md":   "user prompt\n",
		"docs.yaml":     "description: write the docs\nprompt: write the docs\nchecks: [{run: make docs}]\n",
	})
	write(t, project, map[string]string{"docs.yaml": "description: the project's docs\nprompt: project docs\n"})
	p, err := FindPreset("coverage", project, user)
	is.NoErr(err)
	is.Equal(p.Description, "the user's coverage")
	is.Equal(p.Source, filepath.Join(user, "coverage.yaml"))
	r, err := p.Render(nil, t.TempDir())
	is.NoErr(err)
	is.Equal(r.Task, "user prompt\n")
	is.Equal(r.Checks, []string{"make cover"})
	p, err = FindPreset("docs", project, user)
	is.NoErr(err)
	is.Equal(p.Description, "the project's docs")
	p, err = FindPreset("fix-tests", project, user)
	is.NoErr(err)
	is.Equal(p.Source, "built-in")

	for _, tc := range []struct{ files map[string]string }{
		{map[string]string{"bad.yaml": "descripton: typo\nprompt: x\n"}},
		{map[string]string{"bad.yaml": "description: no prompt\n"}},
		{map[string]string{"Bad Name.yaml": "prompt: x\n"}},
		{map[string]string{"bad.yaml": "prompt: x\nparams: [{name: n, pattern: '('}]\n"}},
	} {
		dir := t.TempDir()
		write(t, dir, tc.files)
		_, err := Presets(dir)
		var ue *usererr.Error
		is.True(errors.As(err, &ue))
		is.True(strings.Contains(ue.Msg, dir)) // names the folder's file
	}
	_, err = FindPreset("nope")
	is.True(err != nil)
	is.True(strings.Contains(err.(*usererr.Error).Hint, "coverage, fix-tests"))
}

// The Go coverage check measures with the real tools and compares to the
// target: below it fails with the figure, at it passes.
func TestGoCoverageCheckIsReal(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not on PATH")
	}
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"go.mod":    "module demo\n\ngo 1.22\n",
		"c.go":      "package demo\n\nfunc A() int { return 1 }\n\nfunc B() int { return 2 }\n",
		"c_test.go": "package demo\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {\n\tif A() != 1 {\n\t\tt.Fatal()\n\t}\n}\n",
	})
	p, err := FindPreset("coverage")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		target string
		pass   bool
		out    string
	}{
		{"60", false, "coverage 50.0% is below the target 60%"},
		{"50", true, "coverage 50.0% (target 50%)"},
	} {
		r, err := p.Render([]string{"target=" + tc.target}, dir)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("bash", "-o", "pipefail", "-c", r.Checks[0])
		cmd.Dir = dir
		cmd.Env = append(cmd.Environ(), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
		out, err := cmd.CombinedOutput()
		if (err == nil) != tc.pass || !strings.Contains(string(out), tc.out) {
			t.Fatalf("target %s: err %v, output:\n%s", tc.target, err, out)
		}
	}
}
