package prompt

import (
	"bytes"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits of the Detector, which reads final messages of any size in
// bounded memory.
const (
	// detectLine is how much of a line the Detector holds; a longer line is
	// searched in overlapping segments of this size.
	detectLine = 64 << 10
	// detectOverlap is how much of a segment is searched again with the
	// next one, so that a declaration across the cut is found: longer than
	// any declaration with its surrounding context.
	detectOverlap = 1 << 10
	// detectSpan bounds a declaration spread over several lines.
	detectSpan = 1 << 10
	// quoteContext is how many letters and digits of the text around a
	// declaration must be the same as around one in the prompt for the
	// line to count as a copy of the prompt.
	quoteContext = 8
)

// HasCompletion reports whether an agent's final message declares the task
// complete with tag ("" means DefaultTag; surrounding spaces are ignored).
// prompt is the prompt the agent was given: a declaration that only copies
// one of its lines does not count. See Detector for the rules.
func HasCompletion(finalMessage, tag, prompt string) bool {
	d := NewDetector(tag, prompt)
	d.Write([]byte(finalMessage))
	return d.Found()
}

// Detector finds a declaration of completion in an agent's final message,
// fed to it as it streams (Write), in bounded memory however large the
// message is.
//
// A declaration is either
//   - <promise>TAG</promise>, matched without regard to case, with any
//     whitespace (line breaks too) between the tags and TAG, or
//   - a line that is exactly TAG (case-sensitive) once surrounding
//     whitespace is trimmed.
//
// A tag merely mentioned in prose ("not COMPLETE yet") is neither. A
// declaration does not count when it is a copy of the prompt the agent was
// given rather than the agent's own word:
//   - a <promise> declaration whose surrounding text on its line (or lines)
//     is the same as around a declaration in a line of the prompt, for at
//     least quoteContext letters and digits (case, spacing and Markdown
//     emphasis aside): "print <promise>COMPLETE</promise> in your final
//     message" copies the prompt's instruction, "Done: <promise>COMPLETE
//     </promise>" does not;
//   - any declaration inside a fenced code block (``` or ~~~) that holds
//     such a copy: that block is a copy of the prompt.
//
// Which words the agent uses does not matter: "Tests pass, output checked:
// <promise>COMPLETE</promise>" is a declaration.
type Detector struct {
	tag    string         // for the bare-line form
	decl   *regexp.Regexp // one <promise>TAG</promise>, on one line or several
	prefix *regexp.Regexp // an unfinished declaration at the end of a text
	quotes []context      // around each declaration in the prompt

	found   bool
	line    []byte // the current line, at most detectLine bytes
	segment bool   // the current line is being searched in segments

	// The fenced block the message is in, if any.
	fence      byte
	fenceN     int
	blockDecl  bool // a declaration in the block
	blockQuote bool // a copy of the prompt in the block

	// A declaration possibly spread over several lines: the lines so far,
	// joined, and whether it started in a fenced block.
	pending      string
	pendingFence bool
}

// context is the normalised text around a declaration in a line.
type context struct{ before, after string }

// NewDetector returns a Detector for tag ("" means DefaultTag) and the
// prompt the agent was given.
func NewDetector(tag, prompt string) *Detector {
	tag = strings.TrimSpace(tag)
	if tag == "" {
		tag = DefaultTag
	}
	q := regexp.QuoteMeta(strings.Map(func(r rune) rune { return r }, tag)) // each invalid byte as U+FFFD, as the regexp reads the message
	d := &Detector{
		tag:    tag,
		decl:   regexp.MustCompile(`(?i)<promise>\s*` + q + `\s*</promise>`),
		prefix: regexp.MustCompile(`(?i)<promise>\s*(?:` + q + `\s*)?$`),
	}
	for l := range strings.Lines(prompt) {
		for _, m := range d.decl.FindAllStringIndex(l, -1) {
			d.quotes = append(d.quotes, context{normalize(l[:m[0]]), normalize(l[m[1]:])})
		}
	}
	return d
}

// Found ends the message and reports whether it declares completion. (A
// declaration in a fenced block counts once the block is known not to be a
// copy of the prompt: at its end, or at the end of the message.)
func (d *Detector) Found() bool {
	if !d.found {
		d.flush()
	}
	return d.found
}

// Write feeds the next part of the message. It never fails.
func (d *Detector) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			d.add(p)
			break
		}
		d.add(p[:i])
		d.endLine()
		p = p[i+1:]
	}
	return n, nil
}

// add appends to the current line; a line too long to hold is searched in
// overlapping segments.
func (d *Detector) add(p []byte) {
	for len(d.line)+len(p) > detectLine {
		k := detectLine - len(d.line)
		d.line = append(d.line, p[:k]...)
		p = p[k:]
		d.searchSegment(d.line)
		d.segment = true
		d.line = append(d.line[:0], d.line[len(d.line)-detectOverlap:]...)
	}
	d.line = append(d.line, p...)
}

// flush ends the message: a last line without a newline, an open block.
func (d *Detector) flush() {
	if len(d.line) > 0 || d.segment {
		d.endLine()
	}
	d.pending = ""
	if d.fenceN > 0 && d.blockDecl && !d.blockQuote {
		d.found = true
	}
}

// endLine handles a complete line.
func (d *Detector) endLine() {
	raw := bytes.TrimSuffix(d.line, []byte("\r"))
	defer func() { d.line = d.line[:0] }()
	if d.segment {
		d.segment = false
		d.searchSegment(raw)
		return
	}
	if d.found {
		return
	}
	// Most lines hold no declaration and open or close no block: they are
	// passed over without a copy or a regular expression.
	trimmed := bytes.TrimSpace(raw)
	fence := len(trimmed) > 0 && (trimmed[0] == '`' || trimmed[0] == '~')
	bare := string(trimmed) == d.tag
	if !fence && !bare && d.pending == "" && !mayDeclare(raw) {
		return
	}
	line := string(raw)
	if fence && d.fenceLine(line) {
		d.pending = ""
		return
	}
	inBlock := d.fenceN > 0
	if bare && d.pending == "" {
		d.declared(inBlock, false)
		return
	}
	// A declaration on this line alone.
	for _, m := range d.decl.FindAllStringIndex(line, -1) {
		d.declared(inBlock, d.copies(line[:m[0]], line[m[1]:]))
	}
	if d.pending != "" && d.continuePending(line, inBlock) {
		return
	}
	// One that starts here and goes on on the next lines.
	if d.prefix.MatchString(line) {
		d.pending, d.pendingFence = line, inBlock
	}
}

// continuePending reads line after the start of a declaration on earlier
// lines (d.pending): the declaration ends here, or goes on (then it
// reports true: line is read), or was none.
func (d *Detector) continuePending(line string, inBlock bool) bool {
	joined := d.pending + "\n" + line
	if m := d.decl.FindStringIndex(joined); m != nil && m[1] > len(d.pending) {
		d.declared(d.pendingFence || inBlock, d.copies(joined[:m[0]], joined[m[1]:]))
		d.pending = ""
		return false
	}
	if len(joined) <= detectSpan && d.prefix.MatchString(joined) {
		d.pending = joined
		return true
	}
	d.pending = ""
	return false
}

// mayDeclare reports whether line holds "<promise>" or "</promise>", in any
// case: a quick test before the regular expressions.
func mayDeclare(line []byte) bool {
	for {
		i := bytes.IndexByte(line, '<')
		if i < 0 {
			return false
		}
		line = line[i+1:]
		rest := bytes.TrimPrefix(line, []byte("/"))
		if len(rest) >= 8 && bytes.EqualFold(rest[:8], []byte("promise>")) {
			return true
		}
	}
}

// searchSegment searches part of a line too long to hold. Such a line is
// no fence and no copy of a line of the prompt.
func (d *Detector) searchSegment(b []byte) {
	if !d.found && d.decl.Match(b) {
		d.declared(d.fenceN > 0, false)
	}
}

// declared notes a declaration, which counts unless it copies the prompt
// or lies in a block that does.
func (d *Detector) declared(inBlock, copied bool) {
	if !inBlock {
		d.found = d.found || !copied
		return
	}
	d.blockDecl = true
	d.blockQuote = d.blockQuote || copied
}

// fenceLine tracks fenced blocks; it reports whether line opens or closes
// one. A block opens with a line of three or more backticks or tildes
// (after indentation) and closes with a line of at least as many of the
// same character and nothing else; an unclosed block runs to the end.
func (d *Detector) fenceLine(line string) bool {
	t := strings.TrimLeft(line, " \t")
	c, n := fenceRun(t)
	switch {
	case d.fenceN == 0 && n >= 3:
		d.fence, d.fenceN = c, n
		d.blockDecl, d.blockQuote = false, false
		return true
	case d.fenceN > 0 && c == d.fence && n >= d.fenceN && strings.TrimSpace(t[n:]) == "":
		if d.blockDecl && !d.blockQuote {
			d.found = true
		}
		d.fenceN = 0
		return true
	}
	return false
}

// copies reports whether a declaration with before and after around it
// copies one of the prompt's.
func (d *Detector) copies(before, after string) bool {
	b, a := normalize(before), normalize(after)
	for _, q := range d.quotes {
		if alnum(commonSuffix(b, q.before))+alnum(commonPrefix(a, q.after)) >= quoteContext {
			return true
		}
	}
	return false
}

// normalize lower-cases s, drops Markdown emphasis and quotes, and reduces
// every run of whitespace to one space.
func normalize(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case strings.ContainsRune("`*_\"'>", r):
			continue
		case unicode.IsSpace(r):
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(unicode.ToLower(r))
	}
	if space && b.Len() > 0 {
		b.WriteByte(' ')
	}
	return b.String()
}

func commonSuffix(a, b string) string {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return a[len(a)-n:]
}

func commonPrefix(a, b string) string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return a[:n]
}

// alnum counts the letters and digits of s.
func alnum(s string) int {
	n := 0
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			n++
		}
		s = s[size:]
	}
	return n
}

// fenceRun returns the fence character s starts with and how many times it
// repeats, or 0, 0.
func fenceRun(s string) (byte, int) {
	if s == "" || s[0] != '`' && s[0] != '~' {
		return 0, 0
	}
	n := 0
	for n < len(s) && s[n] == s[0] {
		n++
	}
	return s[0], n
}
