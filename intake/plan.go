// Package intake turns work written elsewhere into batch tasks: the
// checklist items of a Markdown plan or PRD (as ralphex and ralph-tui
// users write them), and the open GitHub issues with a label. Each task
// gets a stable ID, so that a second run of the same plan or label finds
// the tasks of the first (their worktrees, branches and records) and runs
// only what is new or unfinished; a plan's finished items are ticked in
// the file. It sits above batch and github, which never import it.
package intake

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Item is one top-level checklist item of a plan.
type Item struct {
	ID   string // stable: a slug of its first line and a hash of its text (see itemID)
	Text string // its first line, then its sub-items and continuation lines, dedented
	Line int    // its line in the file, from 1
	Done bool   // ticked: [x]
	// Box is the byte offset, in the file, of the character between the
	// brackets: the one byte Tick changes.
	Box int
	// Heading is the last Markdown heading above it ("" for none).
	Heading string
}

// checkbox is a list item that starts with a task box: its indent, its
// marker (-, *, + or a number with . or )), the box's character and the
// rest of the line.
var checkbox = regexp.MustCompile(`^([ \t]*)([-*+]|[0-9]{1,9}[.)])[ \t]+\[([ xX])\](?:[ \t]+(.*))?$`)

// listMarker is a list marker with an optional task box at the start of
// a (trimmed) line, which the hash of an item's text leaves out.
var listMarker = regexp.MustCompile(`^(?:[-*+]|[0-9]{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]*)?`)

var heading = regexp.MustCompile(`^ {0,3}#{1,6}[ \t]+(.*?)[ \t#]*$`)

// line is a line of the file without its ending, and where it starts.
type line struct {
	text  string
	start int
}

// Parse finds the top-level checklist items of a Markdown plan: lines
// `- [ ] text`, `* [ ]`, `+ [ ]`, `1. [ ]` or `1) [ ]` at any indent that
// are not inside another item. An item goes on over the lines indented
// deeper than its marker (its sub-items, checklists included, and its
// continuation lines) and the blank lines between them; it ends at the
// first line indented no deeper. Items inside fenced code blocks are not
// items. Ticked items ([x]) are returned with Done set. Line endings
// (LF or CRLF) and a UTF-8 byte order mark are taken as they come.
func Parse(data []byte) []Item {
	ps := &parser{seen: map[string]int{}}
	for _, l := range lines(data) {
		t := l.text
		ind := indent(t)
		if ps.cur != nil && (strings.TrimSpace(t) == "" || ind > ps.indent) {
			ps.body = append(ps.body, l)
			continue
		}
		ps.finish()
		if ps.fenced(t) {
			continue
		}
		if m := heading.FindStringSubmatch(t); m != nil {
			ps.heading = m[1]
			continue
		}
		m := checkbox.FindStringSubmatchIndex(t)
		if m == nil {
			continue
		}
		text := ""
		if m[8] >= 0 {
			text = strings.TrimSpace(t[m[8]:m[9]])
		}
		ps.indent = ind
		ps.cur = &Item{Text: text, Line: l.no, Done: t[m[6]] != ' ', Box: l.start + m[6], Heading: ps.heading}
	}
	ps.finish()
	return ps.items
}

// parser is Parse's state between lines.
type parser struct {
	items   []Item
	cur     *Item      // the item being read, nil between items
	body    []numbered // cur's lines after its first
	indent  int        // cur's marker's indent
	fence   string     // the open fence at top level ("" for none)
	heading string     // the last heading seen
	seen    map[string]int
}

// finish ends the item being read: its text, its ID. An item with no
// words is no task.
func (ps *parser) finish() {
	cur, body := ps.cur, ps.body
	ps.cur, ps.body = nil, nil
	if cur == nil {
		return
	}
	for len(body) > 0 && strings.TrimSpace(body[len(body)-1].text) == "" {
		body = body[:len(body)-1]
	}
	var b strings.Builder
	b.WriteString(cur.Text)
	for _, l := range body {
		b.WriteString("\n")
		b.WriteString(dedent(l.text, ps.indent+2))
	}
	cur.Text = b.String()
	if strings.TrimSpace(cur.Text) == "" {
		return
	}
	cur.ID = itemID(cur.Text)
	ps.seen[cur.ID]++
	if k := ps.seen[cur.ID]; k > 1 {
		cur.ID += "-" + strconv.Itoa(k) // the same text again: told apart by order
	}
	ps.items = append(ps.items, *cur)
}

// fenced says whether line t, outside any item, is a fence or inside a
// fenced block, and follows the block's opening and closing.
func (ps *parser) fenced(t string) bool {
	if f := fenceOf(t); f != "" {
		switch {
		case ps.fence == "":
			ps.fence = f
			return true
		case f[0] == ps.fence[0] && len(f) >= len(ps.fence) && strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(t), f[:1])) == "":
			ps.fence = ""
			return true
		}
	}
	return ps.fence != ""
}

type numbered struct {
	line
	no int
}

// lines splits data at LF, dropping a CR before it and a byte order mark
// at the start, and keeps where each line starts.
func lines(data []byte) []numbered {
	start := 0
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		start = 3
	}
	var out []numbered
	for no := 1; start <= len(data); no++ {
		end := bytes.IndexByte(data[start:], '\n')
		next := start + end + 1
		if end < 0 {
			end = len(data) - start
			next = len(data) + 1
		}
		text := string(data[start : start+end])
		text = strings.TrimSuffix(text, "\r")
		if !(end == 0 && next > len(data)) { // no empty last line after the final LF
			out = append(out, numbered{line{text, start}, no})
		}
		start = next
	}
	return out
}

// indent is the width of t's leading white space, a tab reaching the
// next multiple of 4.
func indent(t string) int {
	w := 0
	for _, c := range t {
		switch c {
		case ' ':
			w++
		case '\t':
			w += 4 - w%4
		default:
			return w
		}
	}
	return w
}

// dedent removes up to n columns of leading white space from t.
func dedent(t string, n int) string {
	w := 0
	for i, c := range t {
		if w >= n || (c != ' ' && c != '\t') {
			return t[i:]
		}
		if c == ' ' {
			w++
		} else {
			w += 4 - w%4
		}
	}
	return ""
}

// fenceOf is the fence (``` or ~~~, or longer) a line opens or closes,
// "" when it is none.
func fenceOf(t string) string {
	if indent(t) > 3 {
		return ""
	}
	s := strings.TrimLeft(t, " \t")
	for _, c := range []string{"`", "~"} {
		n := len(s) - len(strings.TrimLeft(s, c))
		if n >= 3 {
			return strings.Repeat(c, n)
		}
	}
	return ""
}

// itemID is an item's ID: a slug of its first line (at most 40
// characters, "item" when it has no letters or digits), a dash, and the
// first 8 hex digits of the SHA-256 of its text with the white space, the
// list markers and the boxes' ticks of its lines left out. So the ID stays
// when items are added, removed or moved around it, when the file's line
// endings, indentation or numbering change, and when a sub-item is ticked;
// it changes when a word of the item changes, which makes the edited item
// a new task.
func itemID(text string) string {
	var norm []string
	for i, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if i > 0 {
			l = listMarker.ReplaceAllString(l, "")
		}
		if f := strings.Fields(l); len(f) > 0 {
			norm = append(norm, strings.Join(f, " "))
		}
	}
	sum := sha256.Sum256([]byte(strings.Join(norm, "\n")))
	first, _, _ := strings.Cut(text, "\n")
	return slug(first, 40) + "-" + hex.EncodeToString(sum[:])[:8]
}

// slug is s in lower-case ASCII letters and digits, every other run of
// characters one dash, cut to at most n at a dash where one is near.
func slug(s string, n int) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(s) {
		if (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(c)
			dash = false
			continue
		}
		dash = true
	}
	out := b.String()
	if len(out) > n {
		out = out[:n]
		if i := strings.LastIndexByte(out, '-'); i > n/2 {
			out = out[:i]
		}
		out = strings.TrimRight(out, "-")
	}
	if out == "" {
		return "item"
	}
	return out
}

// TaskText is what the agent gets for item of the plan at path: the
// item's text, then where it comes from.
func TaskText(path string, it Item) string {
	where := fmt.Sprintf("(An item of the plan %s, line %d", path, it.Line)
	if it.Heading != "" {
		where += fmt.Sprintf(", under %q", it.Heading)
	}
	return it.Text + "\n\n" + where + ". Do this item only: the plan's other items are other tasks.)"
}
