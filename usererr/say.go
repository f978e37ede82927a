package usererr

import (
	"fmt"
	"io"
)

// Level is the word after `architect:` on a line written for the user.
type Level string

// The three lines architect writes about a problem: what went wrong (the
// run stops), what looks wrong (the run goes on), and what to do about it.
const (
	LevelError   Level = "error"
	LevelWarning Level = "warning"
	LevelHint    Level = "hint"
)

// Say writes one line for the user: `architect: LEVEL: ` and the message
// formatted as fmt.Sprintf would, ended by a newline. Every such line goes
// through here, so that scripts that read them see one shape.
func Say(w io.Writer, l Level, format string, a ...any) {
	if len(a) > 0 {
		format = fmt.Sprintf(format, a...)
	}
	fmt.Fprintf(w, "architect: %s: %s\n", l, format)
}
