package tui

import (
	"charm.land/lipgloss/v2"
)

// The view uses the terminal's own sixteen colours (so it follows a light
// or dark theme) and text attributes. Under NO_COLOR the renderer drops the
// colours and keeps the attributes (bold, faint, reverse), which still show
// the selection and the structure.
var (
	styleGood   = lipgloss.NewStyle().Foreground(lipgloss.Green)
	styleBad    = lipgloss.NewStyle().Foreground(lipgloss.Red)
	styleWarn   = lipgloss.NewStyle().Foreground(lipgloss.Yellow)
	styleInfo   = lipgloss.NewStyle().Foreground(lipgloss.Cyan)
	styleDim    = lipgloss.NewStyle().Faint(true)
	styleBold   = lipgloss.NewStyle().Bold(true)
	styleSelect = lipgloss.NewStyle().Reverse(true)
	styleKey    = lipgloss.NewStyle().Bold(true)
)

// paint renders s in st; an empty s stays empty (no stray escapes).
func paint(st lipgloss.Style, s string) string {
	if s == "" {
		return s
	}
	return st.Render(s)
}
