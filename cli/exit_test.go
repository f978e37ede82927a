package cli

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/merge"
	"github.com/architect-dev/architect/usererr"
	"github.com/matryer/is"
)

// An error that carries its cause is printed and ends as itself, whatever
// the cause is: "msg: cause" and its hint, its own exit status; the cause
// stays reachable with errors.Is.
func TestExitCodeOfWrappingErrors(t *testing.T) {
	cause := errors.New("disk full")
	for _, tc := range []struct {
		name  string
		err   error
		code  int
		lines string
	}{
		{"failure with a cause", &failure{msg: "could not x", err: cause, hint: "free space", code: ExitUsage}, ExitUsage,
			"architect: error: could not x: disk full\narchitect: hint: free space\n"},
		{"failure that is its cause", &failure{err: cause, hint: "h", code: ExitUsage}, ExitUsage,
			"architect: error: disk full\narchitect: hint: h\n"},
		{"failure wrapping a usage error", &failure{msg: "outer", err: &usererr.Error{Msg: "inner", Hint: "inner hint"}, hint: "outer hint", code: ExitNoSuccess}, ExitNoSuccess,
			"architect: error: outer: inner\narchitect: hint: outer hint\n"},
		{"failure wrapping configuration errors", &failure{msg: "outer", err: config.Errors{{Key: "k", Msg: "bad"}}, code: ExitNoSuccess}, ExitNoSuccess,
			"architect: error: outer: k: bad\narchitect: hint: " + genericHint + "\n"},
		{"a merge that failed", &merge.Error{What: "merging architect/x", Err: cause, Hint: "merge by hand", Merge: true}, ExitNoSuccess,
			"architect: error: merging architect/x: disk full\narchitect: hint: merge by hand\n"},
		{"a merge step the user can fix", &merge.Error{What: "could not keep the run's records", Err: cause, Hint: "copy them"}, ExitUsage,
			"architect: error: could not keep the run's records: disk full\narchitect: hint: copy them\n"},
		{"merge.Error wrapping a usage error", fmt.Errorf("at the top: %w", &merge.Error{Err: &usererr.Error{Msg: "inner"}, Hint: "outer hint"}), ExitUsage,
			"architect: error: inner\narchitect: hint: outer hint\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			var stderr bytes.Buffer
			is.Equal(exitCode(&env{stderr: &stderr}, tc.err), tc.code)
			is.Equal(stderr.String(), tc.lines)
			if !errors.Is(tc.err, cause) {
				var ue *usererr.Error
				var ce config.Errors
				is.True(errors.As(tc.err, &ue) || errors.As(tc.err, &ce)) // the cause is kept
			}
		})
	}
}
