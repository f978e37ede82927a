package config

import (
	"errors"
	"testing"

	"github.com/matryer/is"
)

// A problem that an error caused keeps it, for errors.Is and errors.As,
// and its text stays what it was: the file, the line, the key, the
// message.
func TestErrorKeepsItsCause(t *testing.T) {
	for _, tc := range []struct{ name, text string }{
		{"a value", "ralph_loop:\n  max_iterations: many\n"},
		{"a hook", "ralph_loop:\n  hooks:\n    on_finish: [a, b]\n"},
		{"the syntax", "ralph_loop:\n\ttask: x\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			_, err := loadFileOnly(writeFile(t, "ralph.yaml", tc.text))
			es, ok := err.(Errors)
			is.True(ok)
			cause := errors.Unwrap(es[0])
			is.True(cause != nil) // the cause is kept
			is.True(es[0].Msg != "")
		})
	}
	_, _, _, err := LoadSources("", "t", envOf(map[string]string{"ARCHITECT_MAX_ITERATIONS": "many"}), nil, nil)
	es, ok := err.(Errors)
	is.New(t).True(ok)
	is.New(t).Equal(es[0].Err.Error(), es[0].Msg) // the variable's problem is its cause's text
}
