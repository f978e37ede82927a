package tui

import (
	"strings"

	"github.com/architect-dev/architect/runlog"
)

// judgeText says in a few words which files that define a check the
// iteration's agent changed (--judge), and whether the changes were kept
// (--judge warn) rather than undone.
func judgeText(cs []runlog.JudgeChange) (text string, kept bool) {
	if len(cs) == 0 {
		return "", false
	}
	kept = true
	files := make([]string, 0, len(cs))
	for _, c := range cs {
		files = append(files, c.File)
		kept = kept && c.Kept
	}
	what := "changed the judge, undone: "
	if kept {
		what = "changed the judge, kept: "
	}
	return what + strings.Join(files, ", "), kept
}
