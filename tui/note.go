package tui

import (
	"strings"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
)

// The n key writes a note for the agent, as `architect say` does: a line
// typed in the header, sent with enter (Controls.Say), the next
// iteration's prompt carrying it. While the line is open every key is
// text, except enter, esc, backspace and ctrl+c.

// maxNoteInput bounds what the line takes; the loop's own limit on a
// note (runlog.MaxNoteBytes) is larger, so a typed note is never refused.
const maxNoteInput = 2000

// noteInput is the note being typed; open says the line is open.
type noteInput struct {
	open bool
	text []rune
}

// startNote opens the note line.
func (m *Model) startNote() {
	if m.controls.Say == nil || m.run.finished {
		return
	}
	m.input = noteInput{open: true}
}

// noteKey handles a key while the note line is open.
func (m *Model) noteKey(k tea.KeyPressMsg) {
	switch k.String() {
	case "esc":
		m.input = noteInput{}
		m.say("note not sent")
	case "enter":
		m.sendNote()
	case "backspace":
		if n := len(m.input.text); n > 0 {
			m.input.text = m.input.text[:n-1]
		}
	case "ctrl+u":
		m.input.text = nil
	default:
		if k.Text != "" {
			m.typeNote(k.Text)
		}
	}
}

// typeNote adds text (a key, or a paste: its lines joined by spaces, runs
// of spaces made one) to the note.
func (m *Model) typeNote(s string) {
	for _, r := range clean(s) {
		n := len(m.input.text)
		if n >= maxNoteInput {
			return
		}
		if r == ' ' && (n == 0 || m.input.text[n-1] == ' ') {
			continue
		}
		m.input.text = append(m.input.text, r)
	}
}

// sendNote hands the note to the loop.
func (m *Model) sendNote() {
	text := strings.TrimSpace(string(m.input.text))
	m.input = noteInput{}
	if text == "" {
		m.say("note not sent: it is empty")
		return
	}
	if err := m.controls.Say(text); err != nil {
		m.say("cannot send the note: " + clean(err.Error()))
		return
	}
	m.say("note queued: the next iteration's prompt carries it")
}

// inputLine is the note line while it is open: what was typed (its end,
// when longer than the terminal), a cursor, and what the keys do.
func (m *Model) inputLine() string {
	prompt, help := "note for the agent: ", "  (enter sends · esc cancels)"
	text := string(m.input.text)
	room := m.w - len(prompt) - len(help) - 1
	for room > 0 && utf8.RuneCountInString(text) > room {
		_, size := utf8.DecodeRuneInString(text)
		text = text[size:]
	}
	return paint(styleKey, prompt) + text + "▏" + paint(styleDim, help)
}
