package usererr

import (
	"bytes"
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
