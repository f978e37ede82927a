package tui

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
)

// View draws the whole screen: the header, the history of iterations, the
// agent's activity, the checks with the output of the one that failed,
// and a line of keys. Every line is exactly the terminal's width.
func (m *Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "architect: " + m.stateWord()
	return v
}

// render is the screen as text, one line per terminal row.
func (m *Model) render() string {
	if m.w < 1 || m.h < 1 {
		return ""
	}
	var lines []string
	switch {
	case m.help:
		lines = m.helpLines()
	case m.detail != nil:
		lines = m.detail.lines(m.w, m.h-1)
	default:
		lines = append(m.header(), m.body()...)
	}
	// The keys stay on the last line.
	if len(lines) > m.h-1 {
		lines = lines[:max(m.h-1, 0)]
	}
	for len(lines) < m.h-1 {
		lines = append(lines, "")
	}
	if !m.help && m.h > 1 {
		lines = append(lines, m.footer())
	}
	for len(lines) < m.h {
		lines = append(lines, "")
	}
	for i, l := range lines {
		lines[i] = fit(l, m.w)
	}
	return strings.Join(lines, "\n")
}

// layout is how many rows each pane gets (titles included).
type layout struct {
	history, activity, checks, output int
	side                              bool // activity beside checks and output
	left                              int  // the activity's width when side
}

func (m *Model) headerHeight() int { return len(m.header()) }

// bodyHeight is the rows between the header and the key line.
func (m *Model) bodyHeight() int { return max(m.h-m.headerHeight()-1, 0) }

func (m *Model) layout() layout {
	var l layout
	avail := m.bodyHeight() - m.candidatesShown()
	if avail <= 0 {
		return l
	}
	nChecks := len(m.run.checks)
	l.checks = min(max(nChecks, 1), 12) + 1
	l.history = min(len(m.run.rows)+2, max(4, avail*3/10))
	if len(m.run.rows) == 0 {
		l.history = 2
	}
	if it, _ := m.outputTarget(); it > 0 {
		l.output = min(max(len(m.output.lines), 1), 10) + 1
	}
	l.side = m.w >= 110
	if l.side {
		l.left = m.w * 55 / 100
		right := l.checks + l.output
		l.activity = max(avail-l.history, 2)
		if right > l.activity {
			l.output = max(l.activity-l.checks, 0)
			if l.output < 2 {
				l.output = 0
			}
			l.checks = min(l.checks, l.activity)
		}
		return l
	}
	rest := avail - l.history - l.checks - l.output
	for rest < 3 && l.output > 0 { // the activity needs a title and two lines
		l.output--
		rest++
	}
	if l.output == 1 {
		l.output, rest = 0, rest+1
	}
	for rest < 3 && l.history > 2 {
		l.history--
		rest++
	}
	for rest < 3 && l.checks > 2 {
		l.checks--
		rest++
	}
	l.activity = max(rest, 0)
	if l.history+l.checks+l.output+l.activity > avail { // a tiny terminal: the activity first
		l.history, l.checks, l.output, l.activity = 0, 0, 0, avail
	}
	return l
}

// body is the panes, laid out for the terminal's size.
func (m *Model) body() []string {
	l := m.layout()
	out := m.historyPane(l.history)
	out = append(out, m.candidatesPane(m.candidatesShown())...)
	if l.side {
		left := m.activityPane(l.left, l.activity)
		right := append(m.checksPane(m.w-l.left-1, l.checks), m.outputPane(m.w-l.left-1, l.output)...)
		for i := 0; i < l.activity; i++ {
			var a, b string
			if i < len(left) {
				a = left[i]
			}
			if i < len(right) {
				b = right[i]
			}
			out = append(out, fit(a, l.left)+" "+b)
		}
		return out
	}
	out = append(out, m.activityPane(m.w, l.activity)...)
	out = append(out, m.checksPane(m.w, l.checks)...)
	return append(out, m.outputPane(m.w, l.output)...)
}

// title is a pane's title rule: "── History (3) ─────", bold when focused.
func title(text string, w int, focused bool) string {
	head := "── " + text + " "
	line := cut(head, w)
	if n := w - width(line); n > 0 {
		line += strings.Repeat("─", n)
	}
	if focused {
		return paint(styleBold, line)
	}
	return paint(styleDim, line)
}

// stateWord is the run's state in one word.
func (m *Model) stateWord() string {
	r := m.run
	switch {
	case r.finished && r.success:
		return "success"
	case r.finished:
		return "stopped"
	case m.interrupts > 0:
		return "stopping"
	case r.paused:
		return "paused"
	case m.pauseAsked:
		return "pausing"
	case r.phase == phaseUsage:
		return "waiting"
	case r.phase == phaseBackoff:
		return "backing off"
	case r.phase == phaseStarting:
		return "starting"
	}
	return "running"
}

// header is the run at a glance: state, iteration, cost and time first
// (kept on the narrowest terminal), then the task, then what happens now.
func (m *Model) header() []string {
	r, now := m.run, m.now()
	word := m.stateWord()
	var badge string
	switch word {
	case "success":
		badge = paint(styleGood, "✓ success")
	case "stopped":
		badge = paint(styleBad, "✗ stopped: "+r.stopReason)
	case "running", "starting":
		badge = paint(styleInfo, "● "+word)
	default:
		badge = paint(styleWarn, "‖ "+word)
	}
	iter := fmt.Sprintf("iteration %d/%d", r.iteration, r.info.MaxIterations)
	cost := money(r.cost + r.iterCost)
	if r.costGaps {
		cost += "+"
	}
	if r.info.Budget > 0 {
		cost += " of " + money(r.info.Budget)
	}
	el := r.elapsed(now)
	var left string
	if r.info.MaxTime > 0 && !r.finished {
		left = clock(r.info.MaxTime-el) + " left"
	}
	l1 := joinFit([]part{
		{paint(styleBold, "architect"), 5},
		{badge, 0},
		{iter, 2},
		{cost, 1},
		{clock(el), 3},
		{left, 4},
	}, paint(styleDim, " · "), m.w)

	task := r.info.Task
	if task == "" {
		task = "(no task)"
	}
	l2 := "task: " + clean(firstLine(task))

	lines := []string{l1, l2, m.phaseLine(now)}
	if note := m.noteLine(); note != "" {
		lines = append(lines, note)
	}
	return lines
}

// phaseLine says what happens now: the agent (with its time and cost so
// far), the checks, a wait; or how the run ended.
func (m *Model) phaseLine(now time.Time) string {
	r := m.run
	spin := paint(styleInfo, spinner[m.tick%len(spinner)])
	who := r.current()
	where := m.place()
	if line, ok := m.roundLine(spin, where, now); ok {
		return line
	}
	var now1 string
	switch r.phase {
	case phaseAgent:
		now1 = spin + " agent " + who + " " + clock(now.Sub(r.phaseStart))
		if r.iterCost > 0 {
			now1 += " · " + money(r.iterCost) + " so far"
		}
		if r.switched != "" && r.switchedFor == r.iteration {
			now1 += " · " + paint(styleWarn, r.switched)
		}
	case phaseChecks:
		done := 0
		for _, c := range r.checks {
			if c.state == checkPassed || c.state == checkFailed {
				done++
			}
		}
		now1 = fmt.Sprintf("%s checks %d/%d done · %s", spin, done, len(r.checks), clock(now.Sub(r.phaseStart)))
	case phaseBackoff:
		who := "the agent"
		if r.waitFor != "" {
			who = r.waitFor
		}
		now1 = paint(styleWarn, fmt.Sprintf("backoff: %s failed %d times in a row; retrying in %s", who, max(r.attempt, 1), clock(r.until.Sub(now))))
	case phaseUsage:
		of := ""
		if r.waitFor != "" {
			of = " of " + r.waitFor
		}
		now1 = paint(styleWarn, fmt.Sprintf("usage limit%s: waiting %s, until %s", of, clock(r.until.Sub(now)), r.until.Local().Format("15:04:05")))
	case phaseBetween:
		now1 = fmt.Sprintf("iteration %d recorded", r.iteration)
		if r.paused {
			now1 = paint(styleWarn, "paused: p or `architect resume` goes on")
		}
	case phaseFinished:
		now1 = fmt.Sprintf("finished after %d iteration%s", r.iteration, plural(r.iteration))
		if r.stopDetail != "" {
			now1 += ": " + r.stopDetail
		}
	default:
		now1 = spin + " starting " + who
	}
	return joinFit([]part{{now1, 0}, {where, 1}}, paint(styleDim, " · "), m.w)
}

// place is where the run works: "on BRANCH", "in FOLDER", or "".
func (m *Model) place() string {
	switch r := m.run; {
	case r.info.Branch != "":
		return "on " + r.info.Branch
	case r.info.Workspace != "":
		return "in " + filepath.Base(r.info.Workspace)
	}
	return ""
}

// noteLine is the note being typed, else the answer to the last key, else
// the loop's last message.
func (m *Model) noteLine() string {
	if m.input.open {
		return m.inputLine()
	}
	if m.note != "" && m.now().Sub(m.noteAt) < noteFor {
		return paint(styleWarn, m.note)
	}
	if m.stopAsked && !m.run.finished {
		return paint(styleWarn, "stopping once this iteration is recorded")
	}
	if n := len(m.run.messages.lines); n > 0 {
		return paint(styleDim, strings.TrimPrefix(m.run.messages.lines[n-1], "architect: "))
	}
	return ""
}

// footer is the line of keys.
func (m *Model) footer() string {
	if m.detail != nil {
		return paint(styleDim, "← → section · ↑ ↓ pgup pgdn scroll · esc back · ctrl+c stop the run")
	}
	pause := "pause"
	if m.run.paused || m.pauseAsked {
		pause = "resume"
	}
	keys := []string{"p " + pause, "s stop after this iteration", "q stop", "n note", "tab pane", "↑↓ select", "enter detail", "? help"}
	ranks := []int{1, 3, 0, 4, 6, 7, 5, 2}
	if m.run.finished {
		keys, ranks = []string{"? help"}, []int{0}
	}
	parts := make([]part, len(keys))
	for i, k := range keys {
		key, what, _ := strings.Cut(k, " ")
		parts[i] = part{paint(styleKey, key) + " " + paint(styleDim, what), ranks[i]}
	}
	return joinFit(parts, paint(styleDim, " · "), m.w)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
