package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/architect-dev/architect/loop"
	"github.com/architect-dev/architect/report"
	"github.com/architect-dev/architect/tui"
)

// loader reads what the terminal view shows on demand from the run's
// records in .architect/: an iteration's detail, a check's output.
type loader struct{ run *runFiles }

// record is iteration n's record.
func (l loader) record(n int) (loop.Iteration, string, error) {
	ws := l.run.workspace()
	if ws == "" {
		return loop.Iteration{}, "", errors.New("the loop has not started yet")
	}
	its, err := report.ReadIterations(ws)
	if err != nil {
		return loop.Iteration{}, ws, err
	}
	for _, it := range its {
		if it.Iteration == n {
			return it, ws, nil
		}
	}
	return loop.Iteration{}, ws, fmt.Errorf("iteration %d is not recorded yet", n)
}

// CheckOutput is the output the check at index had in iteration n.
func (l loader) CheckOutput(n, index int) (string, error) {
	it, _, err := l.record(n)
	if err != nil {
		return "", err
	}
	if index < 0 || index >= len(it.CheckResults) {
		return "", fmt.Errorf("iteration %d has no check %d", n, index+1)
	}
	return it.CheckResults[index].Output, nil
}

// Detail is iteration n: its prompt, what the agent said, the checks'
// output and the changes.
func (l loader) Detail(n int) (tui.Detail, error) {
	it, ws, err := l.record(n)
	if err != nil {
		return tui.Detail{}, err
	}
	d := tui.Detail{Iteration: n}
	prompt, err := os.ReadFile(filepath.Join(ws, loop.StateDir, "prompts", "iteration-"+strconv.Itoa(n)+".md"))
	if err != nil {
		prompt = []byte("(the prompt was not found: " + unwrapPath(err) + ")")
	}
	d.Sections = append(d.Sections, tui.Section{Title: "Prompt", Text: string(prompt)})
	var agent strings.Builder
	fmt.Fprintf(&agent, "exit %d · %d steps · %.1fs", it.ExitCode, it.StepsTaken, it.AgentDuration)
	if it.Cost != nil {
		fmt.Fprintf(&agent, " · $%.4f", *it.Cost)
	}
	if it.Tokens != nil {
		fmt.Fprintf(&agent, " · %d tokens in (%d cached), %d out", it.Tokens.Input, it.Tokens.CachedInput, it.Tokens.Output)
	}
	if it.Error != nil {
		fmt.Fprintf(&agent, "\n\nerror (%s): %s", it.ErrorKind, *it.Error)
	}
	fmt.Fprintf(&agent, "\n\nfinal message:\n%s", it.FinalMessage)
	d.Sections = append(d.Sections, tui.Section{Title: "Agent", Text: agent.String()})
	var checks strings.Builder
	for i, c := range it.CheckResults {
		status := "passed"
		if !c.Passed {
			status = c.Status()
		}
		if i > 0 {
			checks.WriteString("\n\n")
		}
		fmt.Fprintf(&checks, "$ %s\n%s in %.1fs\n%s", c.Name, status, c.Duration, c.Output)
	}
	if len(it.CheckResults) == 0 {
		checks.WriteString("no checks ran")
	}
	d.Sections = append(d.Sections, tui.Section{Title: "Checks", Text: checks.String()})
	d.Sections = append(d.Sections, tui.Section{Title: "Changes so far", Text: it.DiffStat, Diff: true})
	return d, nil
}
