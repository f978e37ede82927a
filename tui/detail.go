package tui

import (
	"fmt"
	"strconv"
	"strings"
)

// detailView shows one iteration's sections (prompt, transcript, diff,
// checks' output), one at a time, scrolled.
type detailView struct {
	d      Detail
	loaded bool
	tab    int
	top    int
	// the current tab's text broken into lines for a width, kept until
	// the tab or the width changes
	cache      []string
	cacheTab   int
	cacheWidth int
}

func (v *detailView) load(d Detail) {
	v.d, v.loaded, v.cache = d, true, nil
}

// key handles a key in the detail view; it reports whether to close it.
func (v *detailView) key(k string, page int) (closeIt bool) {
	page = max(page-2, 1)
	switch k {
	case "esc", "q", "enter", "backspace":
		return true
	case "left", "h", "shift+tab":
		v.setTab(v.tab - 1)
	case "right", "l", "tab":
		v.setTab(v.tab + 1)
	case "up", "k":
		v.top--
	case "down", "j":
		v.top++
	case "pgup":
		v.top -= page
	case "pgdown", "space":
		v.top += page
	case "home", "g":
		v.top = 0
	case "end", "G":
		v.top = 1 << 30
	default:
		if n, err := strconv.Atoi(k); err == nil && n >= 1 && n <= 9 {
			v.setTab(n - 1)
		}
	}
	return false
}

func (v *detailView) setTab(t int) {
	if n := len(v.d.Sections); n > 0 {
		v.tab, v.top = (t+n)%n, 0
	}
}

// lines draws the view in w × h cells.
func (v *detailView) lines(w, h int) []string {
	head := fmt.Sprintf("Iteration %d", v.d.Iteration)
	if !v.loaded {
		return []string{title(head, w, true), paint(styleDim, "  loading…")}
	}
	if len(v.d.Sections) == 0 {
		return []string{title(head, w, true), paint(styleDim, "  nothing was recorded for this iteration")}
	}
	var tabs []string
	for i, s := range v.d.Sections {
		t := strconv.Itoa(i+1) + " " + s.Title
		if i == v.tab {
			t = paint(styleSelect, " "+t+" ")
		} else {
			t = paint(styleDim, " "+t+" ")
		}
		tabs = append(tabs, t)
	}
	out := []string{title(head, w, true), cut(strings.Join(tabs, " "), w)}
	body := v.text(w)
	show := max(h-len(out), 1)
	v.top = min(max(v.top, 0), max(len(body)-show, 0))
	end := min(v.top+show, len(body))
	out = append(out, body[v.top:end]...)
	if len(body) > show {
		out[0] = title(fmt.Sprintf("%s · lines %d-%d of %d", head, v.top+1, end, len(body)), w, true)
	}
	return out
}

// text is the current section broken into lines of at most w cells: a
// diff is cut (a diff line wrapped reads wrong) and coloured, other text
// is wrapped.
func (v *detailView) text(w int) []string {
	if v.cache != nil && v.cacheTab == v.tab && v.cacheWidth == w {
		return v.cache
	}
	s := v.d.Sections[v.tab]
	var out []string
	for _, l := range cleanLines(s.Text) {
		if s.Diff {
			out = append(out, diffLine(cut(l, w)))
			continue
		}
		out = append(out, wrap(l, w)...)
	}
	if len(out) == 0 || len(out) == 1 && out[0] == "" {
		out = []string{paint(styleDim, "(empty)")}
	}
	v.cache, v.cacheTab, v.cacheWidth = out, v.tab, w
	return out
}

func diffLine(l string) string {
	switch {
	case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"), strings.HasPrefix(l, "diff "):
		return paint(styleBold, l)
	case strings.HasPrefix(l, "+"):
		return paint(styleGood, l)
	case strings.HasPrefix(l, "-"):
		return paint(styleBad, l)
	case strings.HasPrefix(l, "@@"):
		return paint(styleInfo, l)
	}
	return l
}

// helpLines is the help screen.
func (m *Model) helpLines() []string {
	out := []string{title("Keys", m.w, true), ""}
	kw := 0
	for _, k := range keyHelp {
		kw = max(kw, width(k[0]))
	}
	for _, k := range keyHelp {
		for i, l := range wrap(k[1], max(m.w-kw-4, 10)) {
			key := ""
			if i == 0 {
				key = k[0]
			}
			out = append(out, "  "+paint(styleKey, fit(key, kw))+"  "+l)
		}
	}
	out = append(out, "", paint(styleDim, "  `architect pause`, `architect resume` and `architect status` work from another terminal too."),
		paint(styleDim, "  Press any key to go back."))
	return out
}
