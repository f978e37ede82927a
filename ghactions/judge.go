package ghactions

import (
	"fmt"
	"strings"

	"github.com/architect-dev/architect/runlog"
)

// judgeSection is the summary's part on the files that define a check
// (--judge) the agent changed: "" when it changed none.
func judgeSection(r *runlog.Result) string {
	if len(r.JudgeChanged) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("### ⚠️ The agent changed how the checks are judged\n\n")
	for _, c := range r.JudgeChanged {
		what := "undone, and the iteration failed"
		if c.Kept {
			what = "**kept** (`--judge warn`)"
		}
		var its []string
		for _, it := range r.Iterations {
			for _, ic := range it.JudgeChanged {
				if ic.File == c.File {
					its = append(its, fmt.Sprint(it.Iteration))
				}
			}
		}
		fmt.Fprintf(&b, "- %s (iteration %s): %s\n", cell(c.Text()), strings.Join(its, ", "), what)
	}
	b.WriteString("\n")
	return b.String()
}
