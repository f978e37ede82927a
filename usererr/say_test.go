package usererr

import (
	"bytes"
	"errors"
	"testing"

	"github.com/matryer/is"
)

func TestSay(t *testing.T) {
	is := is.New(t)
	var b bytes.Buffer
	Say(&b, LevelWarning, "could not write %s: %v", "the report", "disk full")
	Say(&b, LevelError, "100%% sure") // no arguments: the text is written as it is
	Say(&b, LevelHint, "use --force")
	is.Equal(b.String(), "architect: warning: could not write the report: disk full\narchitect: error: 100%% sure\narchitect: hint: use --force\n")
}

func TestErrorKeepsItsCause(t *testing.T) {
	is := is.New(t)
	cause := errors.New("permission denied")
	var err error = &Error{Msg: "cannot read ralph.yaml: permission denied", Hint: "fix its mode", Err: cause}
	is.True(errors.Is(err, cause))
	is.Equal(err.Error(), "cannot read ralph.yaml: permission denied")
	is.True(errors.Unwrap(&Error{Msg: "no cause"}) == nil)
}
