package ghactions

import (
	"fmt"
	"strings"

	"github.com/architect-dev/architect/runlog"
)

// candidatesSection is the summary's table of the rounds' candidates
// (--candidates): per candidate its agent, checks, cost, time and
// transcript folder, the kept one marked and why each other lost. It is
// "" for a run without candidates.
func candidatesSection(r *runlog.Result) string {
	var b strings.Builder
	for _, it := range r.Iterations {
		for _, c := range it.Candidates {
			if b.Len() == 0 {
				b.WriteString("### Candidates\n\nEach round ran its candidates at once; the checks picked the one kept.\n\n")
				b.WriteString("| Iteration | Candidate | Agent | Checks passed | Cost | Duration | Kept, or why not |\n|---:|---:|:---|:---|---:|---:|:---|\n")
			}
			agent := c.Agent
			if c.Model != "" {
				agent += " (" + c.Model + ")"
			}
			checks := "-"
			if c.ChecksTotal > 0 {
				checks = fmt.Sprintf("%d/%d", c.ChecksPassed, c.ChecksTotal)
			}
			if len(c.Failing) > 0 {
				failing := make([]string, len(c.Failing))
				for i, f := range c.Failing {
					failing[i] = "`" + strings.ReplaceAll(cell(f), "`", "'") + "`"
				}
				checks += " (failing: " + strings.Join(failing, ", ") + ")"
			}
			kept := "✅ kept"
			if !c.Kept {
				kept = "not kept: " + cell(c.Why)
				if c.Why == "" {
					kept = "not kept"
				}
			}
			if c.Transcript != "" {
				kept += " · `" + strings.ReplaceAll(cell(runlog.StateDir+"/"+c.Transcript), "`", "'") + "`"
			}
			cost := "unknown"
			if c.Cost != nil {
				cost = fmt.Sprintf("$%.4f", *c.Cost)
			}
			fmt.Fprintf(&b, "| %d | %d | %s | %s | %s | %s | %s |\n", it.Iteration, c.N, cell(agent), checks, cost, seconds(c.Duration), kept)
		}
	}
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	return b.String()
}
