package cli

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/architect-dev/architect/report"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/tui"
)

// loader reads what the terminal view shows on demand from the run's
// records in .architect/: an iteration's detail, a check's output.
type loader struct{ run *runFiles }

// record is iteration n's record.
func (l loader) record(n int) (runlog.Iteration, string, error) {
	ws := l.run.workspace()
	if ws == "" {
		return runlog.Iteration{}, "", errors.New("the loop has not started yet")
	}
	its, err := report.ReadIterations(ws)
	if err != nil {
		return runlog.Iteration{}, ws, err
	}
	for _, it := range its {
		if it.Iteration == n {
			return it, ws, nil
		}
	}
	return runlog.Iteration{}, ws, fmt.Errorf("iteration %d is not recorded yet", n)
}

// CheckOutput is the output the check at index had in iteration n: the
// end of its file (written as the check ends), else the record's tail.
func (l loader) CheckOutput(n, index int) (string, error) {
	ws := l.run.workspace()
	if ws == "" {
		return "", errors.New("the loop has not started yet")
	}
	if data, err := runlog.ReadEnd(filepath.Join(ws, runlog.StateDir, runlog.TranscriptDir(n), runlog.CheckFile(index)), 64<<10); err == nil {
		return string(data), nil
	}
	it, _, err := l.record(n)
	if err != nil {
		return "", err
	}
	if index < 0 || index >= len(it.CheckResults) {
		return "", fmt.Errorf("iteration %d has no check %d", n, index+1)
	}
	return it.CheckResults[index].Output, nil
}

// Detail is iteration n: what the agent said and did, its diff, the
// checks' output, its prompt; for a round, each candidate.
func (l loader) Detail(n int) (tui.Detail, error) {
	it, ws, err := l.record(n)
	if err != nil {
		return tui.Detail{}, err
	}
	dir := filepath.Join(ws, runlog.StateDir, runlog.TranscriptDir(n))
	d := tui.Detail{Iteration: n}
	d.Sections = append(d.Sections, tui.Section{Title: "Transcript", Text: summary(n, &it, false) + "\n" + transcriptText(dir)})
	diff := readOr(filepath.Join(dir, runlog.DiffFile), "")
	if diff == "" {
		diff = "(no diff was kept for this iteration; the changes so far:)\n" + it.DiffStat
	}
	d.Sections = append(d.Sections, tui.Section{Title: "Diff", Text: diff, Diff: true})
	d.Sections = append(d.Sections, tui.Section{Title: "Checks", Text: checksText(dir, &it)})
	prompt := readOr(filepath.Join(ws, runlog.StateDir, "prompts", "iteration-"+strconv.Itoa(n)+".md"), "(the prompt was not found)")
	d.Sections = append(d.Sections, tui.Section{Title: "Prompt", Text: prompt})
	d.Sections = append(d.Sections, candidateSections(ws, n, &it)...)
	return d, nil
}
