package ghactions

import (
	"fmt"
	"io"
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

// judgeAnnotations writes, for each file that defines a check the agent
// changed, an annotation on that file: an error when the change was
// undone (the iterations that made it failed), a warning when it was kept
// (--judge warn), whether or not the run succeeded.
func judgeAnnotations(w io.Writer, res *runlog.Result) {
	for _, c := range res.JudgeChanged {
		kind, msg := "error", c.Text()+" (undone; the iteration failed)"
		if c.Kept {
			kind, msg = "warning", c.Text()+" (kept: --judge warn)"
		}
		fmt.Fprintln(w, Command(kind, map[string]string{"file": c.File, "title": "the agent changed how a check is judged"}, msg))
	}
}
