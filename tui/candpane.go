package tui

// The candidates' pane of the view: a round's candidates side by side, or
// a line each on a narrow terminal, and the phase line's count of them.

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// roundWord is a history row's note on its round.
func (r Row) roundWord() string {
	if r.Candidates == 0 {
		return ""
	}
	if r.Kept == 0 {
		return fmt.Sprintf("none kept of %d", r.Candidates)
	}
	return fmt.Sprintf("kept #%d of %d", r.Kept, r.Candidates)
}

// candMark is a candidate's state as a sign and a colour.
func (m *Model) candMark(c cand) string {
	switch c.state {
	case candRunning, candChecks:
		return paint(styleInfo, spinner[m.tick%len(spinner)])
	case candPassed:
		return paint(styleGood, "✓")
	case candIncomplete:
		return paint(styleWarn, "✓")
	case candStopped:
		return paint(styleDim, "■")
	case candTimedOut:
		return paint(styleWarn, "⏱")
	}
	return paint(styleBad, "✗")
}

// candFacts are a candidate's checks and cost: "checks 3/5 · $0.0300".
func candFacts(c cand) string {
	checks := "checks -"
	if c.total > 0 {
		checks = fmt.Sprintf("checks %d/%d", c.passed, c.total)
	}
	cost := "cost ?"
	switch {
	case c.cost != nil:
		cost = money(*c.cost)
	case !c.finished:
		cost = ""
	}
	if cost == "" {
		return checks
	}
	return checks + " · " + cost
}

// candidatesHeight is the rows the candidates' pane takes: none without
// a round, else a title and three rows side by side (four once one is
// kept, five once a loser's reason is known), or a row per candidate when
// the columns would be too narrow.
func (m *Model) candidatesHeight() int {
	rd := m.run.round
	if !rd.active(m.run.iteration) {
		return 0
	}
	if m.candColumn(len(rd.cands)) > 0 {
		h := 4 // a title, then each one's name, state, checks and cost
		for _, c := range rd.cands {
			switch {
			case c.why != "":
				h = 6 // "not kept:" and why
			case c.kept:
				h = max(h, 5)
			}
		}
		return h
	}
	return len(rd.cands) + 1
}

// minCandColumn is the narrowest a candidate's column may be.
const minCandColumn = 28

// candColumn is the width of each candidate's column side by side, or 0
// when n columns do not fit the terminal.
func (m *Model) candColumn(n int) int {
	if n == 0 {
		return 0
	}
	w := (m.w - 2 - (n - 1)) / n
	if w < minCandColumn {
		return 0
	}
	return w
}

// candidatesPane is the round's candidates in h rows, the title included.
func (m *Model) candidatesPane(h int) []string {
	rd := m.run.round
	if h <= 0 || !rd.active(m.run.iteration) {
		return nil
	}
	t := fmt.Sprintf("Candidates, iteration %d (%d at once)", rd.iteration, len(rd.cands))
	if rd.ended {
		kept := "none kept"
		for _, c := range rd.cands {
			if c.kept {
				kept = "#" + strconv.Itoa(c.n) + " kept"
			}
		}
		t = fmt.Sprintf("Candidates, iteration %d: %s", rd.iteration, kept)
	}
	out := []string{title(t, m.w, false)}
	if cw := m.candColumn(len(rd.cands)); cw > 0 {
		cols := make([][]string, len(rd.cands))
		for i, c := range rd.cands {
			cols[i] = m.candColumnLines(c, cw)
		}
		for row := 0; row < h-1; row++ {
			parts := make([]string, len(cols))
			for i, col := range cols {
				if row < len(col) {
					parts[i] = fit(col[row], cw)
				} else {
					parts[i] = fit("", cw)
				}
			}
			out = append(out, "  "+strings.Join(parts, " "))
		}
		return out
	}
	for i := 0; i < len(rd.cands) && i < h-1; i++ {
		out = append(out, m.candLine(rd.cands[i]))
	}
	return out
}

// candColumnLines is a candidate's column: its number and agent, its
// state, its checks and cost, kept or not, and why it lost.
func (m *Model) candColumnLines(c cand, w int) []string {
	head := paint(styleBold, "#"+strconv.Itoa(c.n)) + " " + c.agent
	lines := []string{cut(head, w), cut(m.candMark(c)+" "+c.state, w), cut(candFacts(c), w)}
	switch {
	case c.kept:
		lines = append(lines, paint(styleGood, "★ kept"))
	case c.why != "":
		lines = append(lines, paint(styleDim, "not kept:"), cut(c.why, w))
	}
	return lines
}

// candLine is a candidate on one line, for a narrow terminal.
func (m *Model) candLine(c cand) string {
	line := "  " + paint(styleBold, "#"+strconv.Itoa(c.n)) + " " + m.candMark(c) + " " + fit(c.state, 10) + " " + candFacts(c)
	if c.agent != "" {
		line += " · " + c.agent
	}
	switch {
	case c.kept:
		line += " " + paint(styleGood, "★ kept")
	case c.why != "":
		line += " · " + paint(styleDim, c.why)
	}
	return cut(line, m.w)
}

// roundLine is the phase line while a round's candidates run (where is
// the run's place); ok is false when no round runs.
func (m *Model) roundLine(spin, where string, now time.Time) (string, bool) {
	r := m.run
	round, ok := m.roundPhase()
	if !ok || r.phase != phaseAgent && r.phase != phaseChecks {
		return "", false
	}
	line := spin + " " + round + " · " + clock(now.Sub(r.phaseStart))
	if r.iterCost > 0 {
		line += " · " + money(r.iterCost) + " so far"
	}
	return joinFit([]part{{line, 0}, {where, 1}}, paint(styleDim, " · "), m.w), true
}

// roundPhase is what the phase line says while a round's agents run: how
// many candidates, and how many are running, checking, done.
func (m *Model) roundPhase() (string, bool) {
	r := m.run
	if !r.round.active(r.iteration) || r.round.ended {
		return "", false
	}
	var running, checking, done int
	for _, c := range r.round.cands {
		switch c.state {
		case candRunning:
			running++
		case candChecks:
			checking++
		default:
			done++
		}
	}
	var parts []string
	for _, p := range []struct {
		n    int
		word string
	}{{running, "running"}, {checking, "checking"}, {done, "done"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.word))
		}
	}
	return fmt.Sprintf("%d candidates: %s", len(r.round.cands), strings.Join(parts, ", ")), true
}

// candidatesShown is the rows the candidates' pane gets: what it needs,
// or none when that would leave the other panes fewer than six rows (the
// phase line still counts the candidates).
func (m *Model) candidatesShown() int {
	h := m.candidatesHeight()
	if m.bodyHeight()-h < 6 {
		return 0
	}
	return h
}
