package ghactions

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/architect-dev/architect/proc"
	"github.com/matryer/is"
)

// Each fixture is a real tool's output (testdata/errorformat/README.md
// says how each was made); its format reads the expected locations.
func TestFormatsReadRealOutput(t *testing.T) {
	eslintDir, err := filepath.Abs("testdata/errorformat/inputs/eslint")
	if err != nil {
		t.Fatal(err)
	}
	app, util := eslintDir+"/src/app.js", eslintDir+"/src/util.js"
	tests := []struct {
		fixture, format string
		want            []Annotation
	}{
		{"go-build", "go", []Annotation{
			{"build/main.go", 4, 2, "declared and not used: x"},
			{"build/main.go", 5, 10, "undefined: undefinedName"},
			{"build/main.go", 6, 6, "declared and not used: s"},
			{"build/main.go", 6, 17, "cannot use 5 (untyped int constant) as string value in variable declaration"},
		}},
		{"go-vet", "go", []Annotation{{"vet/vet.go", 6, 22, "fmt.Sprintf format %s has arg n of wrong type int"}}},
		{"go-test", "go", []Annotation{{"add_test.go", 7, 0, "Add(1, 2) = -1, want 3"}, {"add_test.go", 13, 0, "Add(0, 5) = -5, want 5"}}},
		{"tsc", "tsc", []Annotation{
			{"src/calc.ts", 5, 30, "TS2345: Argument of type 'string' is not assignable to parameter of type 'number'."},
			{"src/calc.ts", 6, 7, "TS2322: Type 'number' is not assignable to type 'string'."},
			{"src/calc.ts", 7, 19, "TS2551: Property 'toFixed' does not exist on type 'string'. Did you mean 'fixed'?"},
		}},
		{"tsc-pretty", "tsc", []Annotation{
			{"src/calc.ts", 5, 30, "TS2345: Argument of type 'string' is not assignable to parameter of type 'number'."},
			{"src/calc.ts", 6, 7, "TS2322: Type 'number' is not assignable to type 'string'."},
			{"src/calc.ts", 7, 19, "TS2551: Property 'toFixed' does not exist on type 'string'. Did you mean 'fixed'?"},
		}},
		{"eslint-stylish", "eslint", []Annotation{ // errors only: the warning (no-console) is left out
			{app, 3, 9, "'unused' is assigned a value but never used (no-unused-vars)"},
			{app, 5, 11, "Expected '===' and instead saw '==' (eqeqeq)"},
			{app, 9, 10, "'summ' is not defined (no-undef)"},
			{util, 2, 4, "'undefinedThing' is not defined (no-undef)"},
		}},
		{"eslint-unix", "eslint-unix", []Annotation{
			{app, 3, 9, "'unused' is assigned a value but never used."},
			{app, 5, 11, "Expected '===' and instead saw '=='."},
			{app, 9, 10, "'summ' is not defined."},
			{util, 2, 4, "'undefinedThing' is not defined."},
		}},
		{"pytest", "pytest", []Annotation{
			{"tests/test_calc.py", 5, 0, "assert -1 == 3\n+  where -1 = add(1, 2)\nAssertionError"},
			{"tests/test_calc.py", 9, 0, "check failed here"},
			{"app/calc.py", 9, 0, "ZeroDivisionError: division by zero"},
		}},
		{"mypy", "mypy", []Annotation{
			{"app/calc.py", 9, 0, `Incompatible return value type (got "float", expected "int")  [return-value]`},
			{"app/calc.py", 13, 0, `Incompatible types in assignment (expression has type "str", variable has type "int")  [assignment]`},
			{"app/calc.py", 14, 0, `Name "undefined_name" is not defined  [name-defined]`},
		}},
		{"ruff-full", "ruff", []Annotation{
			{"app/calc.py", 1, 8, "F401 [*] `os` imported but unused"},
			{"app/calc.py", 13, 5, "F841 Local variable `count` is assigned to but never used"},
			{"app/calc.py", 14, 27, "F821 Undefined name `undefined_name`"},
		}},
		{"ruff-concise", "ruff", []Annotation{
			{"app/calc.py", 1, 8, "F401 [*] `os` imported but unused"},
			{"app/calc.py", 13, 5, "F841 Local variable `count` is assigned to but never used"},
			{"app/calc.py", 14, 27, "F821 Undefined name `undefined_name`"},
		}},
		{"cargo-build", "rust", []Annotation{
			{"src/main.rs", 6, 18, "error[E0308]: mismatched types"},
			{"src/main.rs", 8, 20, "error[E0061]: this function takes 1 argument but 2 arguments were supplied"},
		}},
		{"cargo-test", "rust", []Annotation{
			{"src/lib.rs", 20, 9, "assertion `left == right` failed: parse of junk"},
			{"src/lib.rs", 15, 9, "assertion `left == right` failed"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			is := is.New(t)
			raw, err := os.ReadFile("testdata/errorformat/" + tt.fixture + ".txt")
			is.NoErr(err)
			out := strings.ReplaceAll(proc.Clean(raw), "/tmp/fx/es", eslintDir)
			is.Equal(Parse([]string{tt.format}, out), tt.want)
		})
	}
}

// Every format's patterns compile.
func TestFormatsCompile(t *testing.T) {
	for _, f := range formats {
		if _, err := efmOf(&f); err != nil {
			t.Errorf("%s: %v", f.name, err)
		}
	}
}

func TestDetect(t *testing.T) {
	tests := []struct {
		command string
		want    []string
	}{
		{"go test ./...", []string{"go"}},
		{"go vet ./... && go test -race ./...", []string{"go"}},
		{"golangci-lint run", []string{"go"}},
		{"npx tsc --noEmit", []string{"tsc"}},
		{"./node_modules/.bin/eslint src", []string{"eslint"}},
		{"npx eslint --format unix .", []string{"eslint-unix"}},
		{"python -m pytest -q", []string{"pytest"}},
		{"mypy src", []string{"mypy"}},
		{"ruff check . && mypy . && pytest", []string{"pytest", "mypy", "ruff"}},
		{"cargo test", []string{"rust"}},
		{"cargo clippy -- -D warnings", []string{"rust"}},
		{"npm test", []string{Generic}},
		{"make gopher", []string{Generic}},
		{"echo go", []string{Generic}}, // go alone is not a go command
	}
	for _, tt := range tests {
		t.Run(tt.command, func(t *testing.T) {
			is.New(t).Equal(Detect(tt.command), tt.want)
		})
	}
}

// Formats named for a check replace detection; detection reads the
// output of a command with no configured format.
func TestFormatsFor(t *testing.T) {
	is := is.New(t)
	r := &Reporter{Formats: map[string][]string{"npm run lint": {"eslint-unix"}}}
	is.Equal(r.FormatsFor("npm run lint"), []string{"eslint-unix"})
	is.Equal(r.FormatsFor("npm test"), []string{Generic})
	is.Equal(r.FormatsFor("pytest"), []string{"pytest"})
}

// BenchmarkParse reads 16 KiB of compiler-like output (a location every
// other line: the most of a check's output the records keep, checks'
// DefaultTailBytes) with every format, as a check whose command names
// every tool would be read.
func BenchmarkParse(b *testing.B) {
	var sb strings.Builder
	for i := 0; sb.Len() < 16<<10; i++ {
		fmt.Fprintf(&sb, "pkg/file%d.go:%d:%d: something went wrong here\n  some context line\n", i%50, i, i%80+1)
	}
	out := sb.String()
	names := FormatNames()
	b.SetBytes(int64(len(out)))
	b.ResetTimer()
	for b.Loop() {
		Parse(names, out)
	}
}
