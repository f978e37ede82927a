package tui

import (
	"fmt"
	"strconv"
	"strings"
)

// historyPane is the iterations, newest last, h rows with the title and
// the column heads. Only the rows on screen are drawn, so its cost does
// not grow with the run.
func (m *Model) historyPane(h int) []string {
	if h <= 0 {
		return nil
	}
	rows := m.run.rows
	out := []string{title(fmt.Sprintf("History (%d)", len(rows)), m.w, m.focus == focusHistory)}
	if h == 1 {
		return out
	}
	if len(rows) == 0 {
		return append(out, paint(styleDim, "  no iteration has finished yet"))
	}
	nw := len(strconv.Itoa(rows[len(rows)-1].N)) + 1
	diff := false
	for _, r := range rows {
		diff = diff || r.DiffKnown
	}
	out = append(out, historyHead(nw, diff))
	show := h - 2
	sel := m.sel
	if sel < 0 || sel >= len(rows) {
		sel = len(rows) - 1
	}
	// Keep the selection on screen, scrolling as little as possible.
	top := min(m.top, max(len(rows)-show, 0))
	if sel < top {
		top = sel
	}
	if sel >= top+show {
		top = sel - show + 1
	}
	m.top = top
	for i := top; i < len(rows) && i < top+show; i++ {
		line := m.historyRow(rows[i], nw, diff)
		if m.sel == i {
			line = paint(styleSelect, fit(line, m.w))
		}
		out = append(out, line)
	}
	return out
}

// historyHead names the history's columns (nw wide for the iteration
// numbers, with the diff column when diff): the view's pane and the recap
// left in the scrollback share it.
func historyHead(nw int, diff bool) string {
	head := "  " + right("#", nw) + "  " + fit("checks", 7) + "  " + right("time", 7) + "  " + right("agent", 7) + "  " + right("cost", 9)
	if diff {
		head += "  " + fit("diff", 13)
	}
	return paint(styleDim, head+"  done")
}

// historyRow is one iteration: checks passing, time, agent time, cost,
// diff size, completion, error.
func (m *Model) historyRow(r Row, nw int, diff bool) string {
	checks := "-"
	if r.ChecksRun || r.Total > 0 {
		checks = fmt.Sprintf("%d/%d", r.Passing, r.Total)
	}
	cost := "?"
	if r.Cost != nil {
		cost = money(*r.Cost)
	}
	line := "  " + right("#"+strconv.Itoa(r.N), nw) + "  " + r.mark() + " " + fit(checks, 5) + "  " + right(secs(r.Duration), 7) +
		"  " + right(secs(r.Agent), 7) + "  " + right(cost, 9)
	if diff {
		d := ""
		if r.DiffKnown {
			d = paint(styleGood, fmt.Sprintf("+%d", r.Added)) + " " + paint(styleBad, fmt.Sprintf("-%d", r.Deleted))
		}
		line += "  " + fit(d, 13)
	}
	line += "  " + r.done()
	if w := r.roundWord(); w != "" {
		line += "  " + paint(styleInfo, w)
	}
	if r.Ran != "" && r.Ran != label(m.run.info.Agent, m.run.info.Model) {
		line += "  " + paint(styleWarn, "on "+clean(r.Ran))
	}
	if r.TestsRemoved > 0 {
		st := styleWarn
		if r.TestsFailed {
			st = styleBad
		}
		line += "  " + paint(st, fmt.Sprintf("%d test%s removed", r.TestsRemoved, plural(r.TestsRemoved)))
	}
	if note, ok := r.note(); ok {
		line += "  " + note
	}
	return line
}

// mark is the row's sign: ✓ green for a success, ✓ yellow for checks that
// passed without a completion, ◌ for an interrupted iteration, ✗ for a
// failure.
func (r Row) mark() string {
	switch {
	case r.FinalFailed:
		return paint(styleBad, "✗")
	case r.AllPassed && r.Completion != "":
		return paint(styleGood, "✓")
	case r.Interrupted != "":
		return paint(styleWarn, "◌")
	case r.TestsFailed:
		return paint(styleBad, "✗")
	case r.AllPassed:
		return paint(styleWarn, "✓")
	default:
		return paint(styleBad, "✗")
	}
}

// done is the row's "done" column: the completion, or a declaration that
// did not count and why.
func (r Row) done() string {
	switch {
	case r.Completion != "":
		return fit(r.Completion, 4)
	case r.Declared != "" && !r.AllPassed:
		// Declared while the checks failed: shown, and why it did not count.
		return paint(styleWarn, r.Declared+" (checks failed)")
	case r.Declared != "":
		return paint(styleWarn, r.Declared+" (not accepted)")
	default:
		return fit("", 4)
	}
}

// note is what ended or spoiled the iteration, if anything did: its
// interruption, the judge's finding, a failed last look, or its error.
func (r Row) note() (string, bool) {
	switch {
	case r.Interrupted != "":
		return paint(styleWarn, clean(r.Interrupted)), true
	case r.Judge != "" && r.JudgeKept:
		return paint(styleWarn, clean(r.Judge)), true
	case r.Judge != "":
		return paint(styleBad, clean(r.Judge)), true
	case r.FinalFailed:
		// A look that passed says nothing: the row's ✓ and the header
		// say it.
		return paint(styleBad, clean("last look "+r.FinalText)), true
	case r.Error != "":
		return paint(styleBad, clean(firstLine(r.Error))), true
	}
	return "", false
}

// activityPane is the agent's latest activity, newest at the bottom,
// scrolled up by m.back lines.
func (m *Model) activityPane(w, h int) []string {
	if h <= 0 {
		return nil
	}
	lines := m.run.activity.lines
	label := "Agent activity"
	if m.back > 0 {
		label += fmt.Sprintf(" (%d lines up; end follows)", m.back)
	}
	out := []string{title(label, w, m.focus == focusActivity)}
	show := h - 1
	end := max(len(lines)-m.back, 0)
	start := max(end-show, 0)
	if len(lines) == 0 {
		return append(out, paint(styleDim, "  nothing yet"))
	}
	for _, l := range lines[start:end] {
		if strings.HasPrefix(l, "── iteration ") {
			out = append(out, paint(styleDim, cut(l, w)))
			continue
		}
		out = append(out, cut("  "+l, w))
	}
	return out
}

// checksPane is the checks of the current iteration: status, duration,
// the slowest marked.
func (m *Model) checksPane(w, h int) []string {
	if h <= 0 {
		return nil
	}
	r := m.run
	out := []string{title(fmt.Sprintf("Checks, iteration %d", r.iteration), w, m.focus == focusChecks)}
	if len(r.checks) == 0 {
		return append(out, paint(styleDim, "  no checks"))
	}
	slow := r.slowest(m.now())
	_, shown := m.outputTarget()
	show := h - 1
	first := 0
	if m.checkSel >= show {
		first = m.checkSel - show + 1
	}
	for i := first; i < len(r.checks) && i < first+show; i++ {
		c := r.checks[i]
		var mark, detail string
		switch c.state {
		case checkPending:
			mark = paint(styleDim, "·")
		case checkRunning:
			mark, detail = paint(styleInfo, spinner[m.tick%len(spinner)]), clock(m.now().Sub(c.started))
		case checkPassed:
			mark, detail = paint(styleGood, "✓"), secs(c.duration)
		case checkFailed:
			mark, detail = paint(styleBad, "✗"), secs(c.duration)
			if c.timedOut {
				mark, detail = paint(styleWarn, "⏱"), detail+" timed out"
			}
		}
		if i == slow {
			detail += " slowest"
		}
		pointer := "  "
		if i == shown && m.focus == focusChecks {
			pointer = "▸ "
		}
		name := cut(c.name, max(w-width(detail)-6, 8))
		line := pointer + mark + " " + name
		if detail != "" {
			line += "  " + paint(styleDim, detail)
		}
		if i == m.checkSel && m.focus == focusChecks {
			line = paint(styleSelect, fit(line, w))
		}
		out = append(out, cut(line, w))
	}
	return out
}

// outputPane is the end of the last failing output of the selected check.
func (m *Model) outputPane(w, h int) []string {
	if h <= 0 {
		return nil
	}
	it, idx := m.outputTarget()
	if it <= 0 || idx < 0 || idx >= len(m.run.checks) {
		return nil
	}
	c := m.run.checks[idx]
	label := fmt.Sprintf("Output: %s (failed in iteration %d)", c.name, it)
	out := []string{title(label, w, false)}
	lines := m.output.lines
	switch {
	case !m.output.loaded:
		lines = []string{paint(styleDim, "loading…")}
	case m.output.failed:
		lines = []string{paint(styleDim, "(shown once the iteration is recorded)")}
	case len(lines) == 0 || len(lines) == 1 && lines[0] == "":
		lines = []string{paint(styleDim, "(no output)")}
	}
	if n := h - 1; len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	for _, l := range lines {
		out = append(out, cut("  "+l, w))
	}
	return out
}
