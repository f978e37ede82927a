package merge

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/prompt"
	"github.com/architect-dev/architect/report"
	"github.com/architect-dev/architect/runlog"
)

// message is the merge commit's message: a title from the task, then the
// result, the checks and where the work came from. st is the run's state
// (nil when the branch has no run recorded), ws its workspace.
func message(branch string, commits int, st *runlog.State, ws string) string {
	if st == nil {
		return fmt.Sprintf("architect: merge %s\n\n%d commit%s from the loop's branch %s.", branch, commits, plural(commits), branch)
	}
	var cfg config.Config
	_ = st.DecodeConfig(&cfg) // what can be read of it
	res, err := runlog.ReadResult(ws)
	if err != nil {
		res = nil
	}
	var b strings.Builder
	b.WriteString("architect: " + TaskTitle(cfg.Task, cfg.Spec) + "\n\n")
	b.WriteString(outcome(st, res))
	if res != nil && len(res.Iterations) > 0 {
		b.WriteString(lastChecks(res.Iterations[len(res.Iterations)-1]))
		fmt.Fprintf(&b, "\nCost: %s.\n", res.Cost())
	}
	fmt.Fprintf(&b, "\nBranch %s (%d commit%s), agent %s.", branch, commits, plural(commits), cfg.Agent)
	if cfg.Task != "" && strings.Contains(strings.TrimSpace(cfg.Task), "\n") {
		b.WriteString("\n\nTask:\n" + clip(strings.TrimSpace(cfg.Task), 2000))
	}
	return b.String()
}

// outcome is the line saying how the run ended: from its result res, or
// without one (nil) from its state.
func outcome(st *runlog.State, res *runlog.Result) string {
	switch {
	case res != nil && res.Success:
		return fmt.Sprintf("Succeeded after %d iteration%s: every check passed and the agent declared completion.\n", res.TotalIterations, plural(res.TotalIterations))
	case res != nil:
		s := fmt.Sprintf("Stopped on %s after %d iteration%s, without success", res.StopReason, res.TotalIterations, plural(res.TotalIterations))
		if res.StopDetail != "" {
			s += " (" + res.StopDetail + ")"
		}
		return s + ".\n"
	}
	return fmt.Sprintf("Status: %s after %d iteration%s.\n", st.Status, st.Iteration, plural(st.Iteration))
}

// lastChecks lists the checks of the run's last iteration, "" when it ran
// none.
func lastChecks(last runlog.Iteration) string {
	if len(last.CheckResults) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nChecks in the last iteration:\n")
	for _, c := range last.CheckResults {
		status := "passed"
		if !c.Passed {
			status = "failed (" + c.Status() + ")"
		}
		fmt.Fprintf(&b, "- %s: %s\n", c.Name, status)
	}
	return b.String()
}

// TaskTitle is a one-line title for the task or the spec (the report's).
func TaskTitle(task, spec string) string {
	text, fallback := "", "loop result"
	if spec != "" {
		fallback = "work from " + filepath.Base(spec)
		if data, err := os.ReadFile(spec); err == nil {
			text = string(data)
		}
	}
	return clip(report.Title(task, text, fallback), 72)
}

// clip cuts s to n bytes at a character boundary, marking the cut.
func clip(s string, n int) string {
	head, rest := prompt.Truncate(s, n)
	if rest > 0 {
		head += "…"
	}
	return head
}
