package preflight

import (
	"errors"
	"testing"

	"github.com/matryer/is"
)

// installed pretends only these programs are on PATH.
func installed(names ...string) func(string) (string, error) {
	return func(name string) (string, error) {
		for _, n := range names {
			if n == name {
				return "/usr/bin/" + n, nil
			}
		}
		return "", errors.New("not found")
	}
}

func TestPrograms(t *testing.T) {
	have := installed("go", "npm", "env", "timeout", "grep", "uv")
	for _, tc := range []struct {
		script  string
		missing []string
	}{
		{"go test ./...", nil},
		{"pytest tests/", []string{"pytest"}},
		{"cd web && npm test && pytest -q | tee out.txt", []string{"pytest", "tee"}},
		{"FOO=1 ruff check .", []string{"ruff"}},
		{`"pytest" -q; 'mypy' .`, []string{"pytest", "mypy"}},
		{"env -i A=b mypy src", []string{"mypy"}},
		{"timeout -k 5 60 cargo test", []string{"cargo"}},
		{"exec nosuch", []string{"nosuch"}},
		{"test -f x && true && : && [ -d y ]", nil},
		{"./gradlew test && bin/check", nil},                             // paths may be built by the check
		{"$PYTHON -m pytest", nil},                                       // not a plain word
		{"go vet $(nosuch-tool --flags) ./...", []string{"nosuch-tool"}}, // substitutions run too
		{"check() { go test; }; check", nil},                             // a function
		{". .venv/bin/activate && pytest", nil},                          // PATH may change
		{"PATH=$PWD/bin:$PATH; mytool", nil},
		{"export PATH=/opt/bin:$PATH && mytool", nil},
		{"command -v golangci-lint >/dev/null && golangci-lint run || echo skipped", nil}, // it tests itself
		{"which ruff && ruff check", nil},
		{"uv run pytest", nil},                 // uv provides pytest
		{"if [ -f x ; then", nil},              // unparsable: sh will say so
		{"pytest; pytest", []string{"pytest"}}, // named once
	} {
		is.New(t).Equal(Programs(tc.script, have), tc.missing) // tc.script
	}
}
