package tui

import (
	tea "charm.land/bubbletea/v2"
)

// keyHelp is the help screen: every key, what it does.
var keyHelp = [][2]string{
	{"p", "pause the loop before its next step, or resume it (as `architect pause` / `architect resume`)"},
	{"s", "stop once the current iteration is recorded"},
	{"n", "write a note for the agent: the next iteration's prompt carries it (as `architect say`); while the agent's question waits, the answer (as `architect answer`)"},
	{"q, ctrl+c", "stop now, gracefully (state saved); press again to kill the agent and checks"},
	{"tab, shift+tab", "move between history, agent activity and checks"},
	{"↑ ↓, j k", "select an iteration or a check; scroll the activity"},
	{"pgup pgdn", "a page up or down"},
	{"home end, g G", "the first or the newest (end follows the run again)"},
	{"enter", "the selected iteration in detail: prompt, transcript, diff, check output"},
	{"in detail: ← →, 1-9", "the sections; esc or q goes back"},
	{"?", "this help; any key closes it"},
}

// key handles a key press: ctrl+c always interrupts; an open note, help
// screen or detail takes the key before the main screen.
func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	s := k.String()
	if s == "ctrl+c" {
		return m.interrupt()
	}
	if m.input.open {
		m.noteKey(k)
		return nil
	}
	if m.help {
		m.help = false
		return nil
	}
	if m.detail != nil {
		if m.detail.key(s, m.h-1) {
			m.detail = nil
		}
		return nil
	}
	return m.mainKey(s)
}

// mainKey handles a key pressed on the main screen, with no note, help
// or detail open.
func (m *Model) mainKey(s string) tea.Cmd {
	switch s {
	case "q":
		return m.interrupt()
	case "p":
		return m.pause()
	case "s":
		return m.stopAfter()
	case "n":
		m.startNote()
	case "?":
		m.help = true
	case "tab":
		m.focus = (m.focus + 1) % focusCount
	case "shift+tab":
		m.focus = (m.focus + focusCount - 1) % focusCount
	case "esc":
		m.sel, m.back, m.checkSel = -1, 0, -1
		return m.wantOutput()
	case "up", "k":
		return m.move(-1)
	case "down", "j":
		return m.move(1)
	case "pgup":
		return m.move(-m.page())
	case "pgdown", "space":
		return m.move(m.page())
	case "home", "g":
		return m.move(-maxRows * 10)
	case "end", "G":
		return m.move(maxRows * 10)
	case "enter":
		return m.open()
	}
	return nil
}

// page is how far PgUp and PgDn move in the focused pane.
func (m *Model) page() int {
	l := m.layout()
	switch m.focus {
	case focusHistory:
		return max(l.history-1, 1)
	case focusActivity:
		return max(l.activity-1, 1)
	}
	return max(l.checks-1, 1)
}

// move moves the focused pane's selection or scroll by d.
func (m *Model) move(d int) tea.Cmd {
	switch m.focus {
	case focusHistory:
		n := len(m.run.rows)
		if n == 0 {
			return nil
		}
		sel := m.sel
		if sel < 0 {
			sel = n - 1
			if d < 0 {
				sel++ // the first step up selects the newest
			}
		}
		sel = min(max(sel+d, 0), n-1)
		m.sel = sel
		if sel == n-1 && d > 0 {
			m.sel = -1 // back at the newest: follow it
		}
	case focusActivity:
		m.back = min(max(m.back-d, 0), max(len(m.run.activity.lines)-1, 0))
	case focusChecks:
		n := len(m.run.checks)
		if n == 0 {
			return nil
		}
		sel := m.checkSel
		if sel < 0 {
			_, sel = m.outputTarget()
			if sel < 0 {
				sel = 0
				if d > 0 {
					d--
				}
			}
		}
		m.checkSel = min(max(sel+d, 0), n-1)
		return m.wantOutput()
	}
	return nil
}

// open shows the selected iteration (or the newest) in detail.
func (m *Model) open() tea.Cmd {
	n := len(m.run.rows)
	if n == 0 || m.loader == nil {
		m.say("no iteration has finished yet")
		return nil
	}
	row := m.run.rows[n-1]
	if m.sel >= 0 && m.sel < n {
		row = m.run.rows[m.sel]
	}
	m.detail = &detailView{d: Detail{Iteration: row.N}}
	l, it := m.loader, row.N
	return func() tea.Msg {
		d, err := l.Detail(it)
		d.Iteration = it
		return detailMsg{d: d, err: err}
	}
}

func (m *Model) interrupt() tea.Cmd {
	m.interrupts++
	switch {
	case m.run.finished:
	case m.interrupts == 1:
		m.say("stopping: the agent and the checks get SIGTERM, the state is saved (press q or ctrl+c again to kill them at once)")
	default:
		m.say("killing the agent and the checks now")
	}
	if m.controls.Interrupt != nil {
		m.controls.Interrupt()
	}
	return nil
}

func (m *Model) pause() tea.Cmd {
	if m.controls.Pause == nil || m.run.finished {
		return nil
	}
	if m.stopAsked {
		m.say("the loop stops once this iteration is recorded: nothing to pause")
		return nil
	}
	resume := m.run.paused || m.pauseAsked
	if err := m.controls.Pause(!resume); err != nil {
		m.say("cannot pause: " + clean(err.Error()))
		return nil
	}
	if resume {
		m.pauseAsked = false
		m.say("resuming")
		return nil
	}
	m.pauseAsked = true
	m.say("pausing before the next step (press p again to go on)")
	return nil
}

func (m *Model) stopAfter() tea.Cmd {
	if m.controls.StopAfter == nil || m.run.finished || m.stopAsked {
		return nil
	}
	if err := m.controls.StopAfter(); err != nil {
		m.say("cannot ask the loop to stop: " + clean(err.Error()))
		return nil
	}
	m.stopAsked = true
	m.say("the loop stops once this iteration is recorded")
	return nil
}

// say shows text in the header's note line for a few seconds.
func (m *Model) say(text string) { m.note, m.noteAt = text, m.now() }
