package redact

import (
	"strings"
	"testing"

	"github.com/matryer/is"
)

func TestString(t *testing.T) {
	env := []string{
		"GITHUB_TOKEN=ghp_abcdef123456",
		"MY_API_KEY=sk-live-999",
		"DB_PASSWORD=hunter22",
		"client_secret=s3cr3t-value",
		"SHORT_KEY=abc",      // too short
		"EMPTY_TOKEN=",       // empty
		"PATH=/usr/bin:/bin", // not a secret name
		"TASK_KEY=fix-login", // appears in the task
		"LONG_TOKEN=ghp_abcdef123456-and-more",
	}
	r, err := New(env, []string{`AKIA[0-9A-Z]{8}`}, "please fix-login now")
	is := is.New(t)
	is.NoErr(err)
	cases := []struct{ in, want string }{
		{"token ghp_abcdef123456 here", "token *** here"},
		{"ghp_abcdef123456-and-more", "***"},
		{"key=sk-live-999;pw=hunter22", "key=***;pw=***"},
		{"s3cr3t-value", "***"},
		{"abc /usr/bin:/bin", "abc /usr/bin:/bin"},
		{"fix-login", "fix-login"},
		{"aws AKIAABCDEFGH!", "aws ***!"},
		{"", ""},
	}
	for _, c := range cases {
		is.Equal(r.String(c.in), c.want) // c.in
	}
}

func TestNilAndEmpty(t *testing.T) {
	is := is.New(t)
	var r *Redactor
	is.Equal(r.String("x"), "x")
	is.True(r.Empty())
	r, err := New(nil, nil)
	is.NoErr(err)
	is.True(r.Empty())
}

func TestBadPatterns(t *testing.T) {
	is := is.New(t)
	_, err := New(nil, []string{"("})
	is.True(err != nil)
	_, err = New(nil, []string{"x*"})
	is.True(err != nil && strings.Contains(err.Error(), "empty"))
}

func FuzzString(f *testing.F) {
	f.Add("secret-value-1", "text with secret-value-1 in it")
	f.Add("ab", "ab ab")
	f.Add("\xff\xfe\x00x", "\xff\xfe\x00x\xff")
	f.Fuzz(func(t *testing.T, value, text string) {
		r, err := New([]string{"X_TOKEN=" + value}, nil)
		if err != nil {
			t.Fatal(err)
		}
		out := r.String(text)
		if len(strings.TrimSpace(value)) >= MinLen && !strings.Contains(value, "*") && strings.Contains(out, value) {
			t.Fatalf("String(%q) = %q still holds %q", text, out, value)
		}
	})
}
