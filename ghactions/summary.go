package ghactions

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/architect-dev/architect/runlog"
)

// Summary renders a run's result as the step summary's markdown: the
// outcome, one table row per iteration (checks passed, completion, cost,
// duration) and stat, the final `git diff --stat`.
func Summary(r *runlog.Result, stat string) string {
	var b strings.Builder
	b.WriteString(outcomeHeading(r))
	fmt.Fprintf(&b, "**Cost:** %s · **Duration:** %s", r.Cost(), seconds(r.TotalDuration))
	if r.Branch != "" {
		fmt.Fprintf(&b, " · **Branch:** `%s`", strings.ReplaceAll(r.Branch, "`", ""))
	}
	b.WriteString("\n\n")
	if len(r.Iterations) > 0 {
		b.WriteString("| Iteration | Checks passed | Completion | Cost | Duration |\n|---:|:---|:---:|---:|---:|\n")
		for _, it := range r.Iterations {
			fmt.Fprintf(&b, "| %d | %s | %s | %s | %s |\n", it.Iteration, checksCell(r, it), completionCell(it), costCell(it), seconds(it.Duration))
		}
		b.WriteString("\n")
	}
	b.WriteString(candidatesSection(r))
	b.WriteString(judgeSection(r))
	b.WriteString(testsSection(r))
	if fc := r.FinalCheck; fc != nil {
		mark := "✅"
		if fc.Failed() {
			mark = "❌"
		}
		fmt.Fprintf(&b, "**Last look:** %s %s\n\n", mark, cell(fc.Text()))
	}
	b.WriteString(changesSection(stat))
	return b.String()
}

// outcomeHeading is the summary's heading and first sentence: success,
// success without checks, or where the run stopped.
func outcomeHeading(r *runlog.Result) string {
	switch {
	case r.Success && r.NoChecks:
		return fmt.Sprintf("## ☑️ architect: done, unchecked\n\nThe agent declared completion after %d iteration%s. **No check was run** (`--no-checks`): nothing here was verified.\n\n", r.TotalIterations, plural(r.TotalIterations))
	case r.Success:
		return fmt.Sprintf("## ✅ architect: success\n\nAll checks passed and the agent declared completion after %d iteration%s.\n\n", r.TotalIterations, plural(r.TotalIterations))
	}
	detail := ""
	if r.StopDetail != "" {
		detail = ": " + cell(r.StopDetail)
	}
	return fmt.Sprintf("## ❌ architect: no success\n\nStopped on `%s`%s after %d iteration%s.\n\n", r.StopReason, detail, r.TotalIterations, plural(r.TotalIterations))
}

// checksCell says what an iteration's checks gave: how many passed, the
// failing ones by name, or why none ran; then the tests' count.
func checksCell(r *runlog.Result, it runlog.Iteration) string {
	passed := 0
	var failed []string
	for _, c := range it.CheckResults {
		if c.Passed {
			passed++
		} else {
			failed = append(failed, "`"+strings.ReplaceAll(cell(c.Name), "`", "'")+"`")
		}
	}
	checks := fmt.Sprintf("%d/%d", passed, len(it.CheckResults))
	switch {
	case it.Interrupted != "":
		checks = "⏹ not run (interrupted: " + it.Interrupted + ")"
	case r.NoChecks:
		checks = "none (no checks)"
	case it.AllChecksPassed:
		checks = "✅ " + checks
	case len(failed) > 0:
		checks = "❌ " + checks + " (failing: " + strings.Join(failed, ", ") + ")"
	}
	return checks + testsCell(it)
}

// completionCell says whether the agent declared completion, and whether
// the last look took the success back.
func completionCell(it runlog.Iteration) string {
	if it.FinalCheck.Failed() {
		return "yes, ❌ last look " + it.FinalCheck.Status
	}
	if it.CompletionTagFound || it.CompletionSignal != "" {
		return "yes"
	}
	return "no"
}

func costCell(it runlog.Iteration) string {
	if it.Cost != nil {
		return fmt.Sprintf("$%.4f", *it.Cost)
	}
	return "unknown"
}

// changesSection is the final `git diff --stat` in a fence longer than any
// run of backquotes in it.
func changesSection(stat string) string {
	s := strings.TrimRight(stat, "\n")
	if s == "" {
		return "### Changes\n\nNo changes.\n"
	}
	fence := "```"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	return fmt.Sprintf("### Changes\n\n%stext\n%s\n%s\n", fence, s, fence)
}

// cell keeps text on one table row.
func cell(s string) string {
	s = strings.NewReplacer("\r", " ", "\n", " ", "|", `\|`).Replace(s)
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

func seconds(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) + "s" }

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Output is one step output.
type Output struct{ Name, Value string }

// Outputs are the step outputs for a run: success, stop-reason,
// iterations, total-cost, branch, worktree-path and result-json (the
// --json document).
func Outputs(r *runlog.Result, resultJSON []byte) []Output {
	return []Output{
		{"success", strconv.FormatBool(r.Success)},
		{"stop-reason", r.StopReason},
		{"iterations", strconv.Itoa(r.TotalIterations)},
		{"total-cost", totalCost(r)},
		{"no-checks", strconv.FormatBool(r.NoChecks)},
		{"branch", r.Branch},
		{"worktree-path", r.WorktreePath},
		{"result-json", string(resultJSON)},
	}
}

// totalCost is the total cost for an output: empty when unknown.
func totalCost(r *runlog.Result) string {
	if r.TotalCost == nil {
		return ""
	}
	return strconv.FormatFloat(*r.TotalCost, 'f', -1, 64)
}

// FormatOutputs renders outputs in $GITHUB_OUTPUT's heredoc form, each
// with a random delimiter that its value does not contain, as
// @actions/core does.
func FormatOutputs(outs []Output) string {
	var b strings.Builder
	for _, o := range outs {
		delim := delimiter()
		for strings.Contains(o.Value, delim) {
			delim = delimiter()
		}
		fmt.Fprintf(&b, "%s<<%s\n%s\n%s\n", o.Name, delim, o.Value, delim)
	}
	return b.String()
}

func delimiter() string {
	var p [16]byte
	_, _ = rand.Read(p[:])
	return "ghadelimiter_" + hex.EncodeToString(p[:])
}

// AppendFile appends text to the file at path, as the runner expects of
// $GITHUB_STEP_SUMMARY and $GITHUB_OUTPUT.
func AppendFile(path, text string) error { return runlog.AppendFileMode(path, text, 0o644) }
