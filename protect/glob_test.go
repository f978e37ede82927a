package protect

import (
	"path"
	"strings"
	"testing"

	"github.com/matryer/is"
)

func TestMatch(t *testing.T) {
	cases := []struct {
		pat, name string
		want      bool
	}{
		{"ralph.yaml", "ralph.yaml", true},
		{"ralph.yaml", "sub/ralph.yaml", true},
		{"*_test.go", "a/b/c_test.go", true},
		{"*_test.go", "a/b/c.go", false},
		{"tests/**", "tests/a/b.py", true},
		{"tests/**", "tests", true},
		{"tests/**", "src/tests/a.py", false},
		{"**/testdata/*.txt", "testdata/x.txt", true},
		{"**/testdata/*.txt", "a/b/testdata/x.txt", true},
		{"**/testdata/*.txt", "a/b/testdata/c/x.txt", false},
		{"a/**/b", "a/b", true},
		{"a/**/b", "a/x/y/b", true},
		{"a/**/**/b", "a/x/b", true},
		{"/go.mod", "go.mod", true},
		{"./go.mod", "go.mod", true},
		{"src/*.go", "src/a/b.go", false},
		{"[", "[", false},
		// A class never crosses a "/", negated or not; "{", "}" and "[!"
		// are path.Match's: literal.
		{"a[^x]b", "a/b", false},
		{"src/a[^x]b.go", "src/a/b.go", false},
		{"{a,b}.go", "a.go", false},
		{"{a,b}.go", "{a,b}.go", true},
		{"[!a].go", "b.go", false},
		{"[!a].go", "!.go", true},
	}
	for _, c := range cases {
		if got := Match(c.pat, c.name); got != c.want {
			t.Errorf("Match(%q, %q) = %v, want %v", c.pat, c.name, got, c.want)
		}
	}
}

func TestValid(t *testing.T) {
	is := is.New(t)
	is.NoErr(Valid("tests/**/*.py"))
	is.True(Valid("a/[") != nil)
	is.True(Valid(" ") != nil)
}

func FuzzMatch(f *testing.F) {
	f.Add("**/*.go", "a/b.go")
	f.Add("a/**/b/**", "a/x/b/y/z")
	f.Add("[", "x")
	f.Add("*", "")
	f.Add("[/]", "/") // a class holding the separator: invalid here (patterns split on "/" first)
	f.Fuzz(func(t *testing.T, pat, name string) {
		got := Match(pat, name) // must not panic or hang
		if Valid(pat) != nil {
			return // rejected when the configuration is loaded; path.Match's view does not apply
		}
		if !strings.Contains(pat, "**") && strings.Contains(pat, "/") && !strings.HasPrefix(pat, "/") && !strings.HasPrefix(pat, "./") {
			// Without "**", a pattern with a slash is path.Match segment by segment.
			want, err := path.Match(pat, name)
			if err == nil && want != got && strings.Count(pat, "/") == strings.Count(name, "/") {
				t.Fatalf("Match(%q, %q) = %v, path.Match says %v", pat, name, got, want)
			}
		}
	})
}
