package changes

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// fileParse reads one file's part of a patch (from its "diff --git" line to
// the next), line by line, for its stat line and for what Changes needs to
// know about it: its paths, and whether it adds, deletes or renames a file.
type fileParse struct {
	f      fileStat
	path   string // from the "diff --git" line: the file's path unless renamed
	inHunk bool
}

type fileStat struct {
	name           string
	from, to       string // from the ---, +++ and rename lines
	ins, del       int64
	binary, rename bool
	added, deleted bool // "new file mode", "deleted file mode"
}

// lineKeep is how much of a line is read for the stat: the start of a
// header line (names are shorter); a patch line only needs its first byte.
const lineKeep = 8 << 10

// start begins a file with its "diff --git " line, given without that prefix.
func (p *fileParse) start(rest string) {
	p.path = gitLineName(rest)
	p.f, p.inHunk = fileStat{name: p.path}, false
}

// line reads one line of the file's part after the "diff --git" line,
// without its newline, cut at lineKeep bytes.
func (p *fileParse) line(l []byte) {
	f := &p.f
	if p.inHunk {
		switch {
		case len(l) > 0 && l[0] == '+':
			f.ins++
		case len(l) > 0 && l[0] == '-':
			f.del++
		case len(l) > 0 && (l[0] == ' ' || l[0] == '\\') || len(l) == 0:
		default:
			p.inHunk = bytes.HasPrefix(l, []byte("@@"))
		}
		return
	}
	switch line := string(l); {
	case strings.HasPrefix(line, "@@"):
		p.inHunk = true
	case strings.HasPrefix(line, "--- "):
		f.from = stripPrefix(unquote(line[4:]), "a/")
	case strings.HasPrefix(line, "+++ "):
		f.to = stripPrefix(unquote(line[4:]), "b/")
	case strings.HasPrefix(line, "rename from "):
		f.from, f.rename = unquote(line[len("rename from "):]), true
	case strings.HasPrefix(line, "rename to "):
		f.to, f.rename = unquote(line[len("rename to "):]), true
	case strings.HasPrefix(line, "Binary files "):
		f.binary = true
	case strings.HasPrefix(line, "new file mode "):
		f.added = true
	case strings.HasPrefix(line, "deleted file mode "):
		f.deleted = true
	}
}

// done returns the file's stat, named as git's --stat names it.
func (p *fileParse) done() fileStat {
	f := p.f
	switch {
	case f.rename && f.from != "" && f.to != "":
		f.name = f.from + " => " + f.to
	case f.to != "" && f.to != "/dev/null":
		f.name = f.to
	case f.from != "" && f.from != "/dev/null":
		f.name = f.from
	}
	return f
}

// statSummary is `git diff --stat`, built file by file: at most statFiles
// files are kept, the rest only counted.
type statSummary struct {
	files  []fileStat
	more   bool // files beyond those
	nfiles int
	ins    int64
	del    int64
}

func (s *statSummary) add(f fileStat) {
	s.nfiles++
	s.ins += f.ins
	s.del += f.del
	if len(s.files) < statFiles {
		s.files = append(s.files, f)
	} else {
		s.more = true
	}
}

// String formats the summary as git does.
func (s *statSummary) String() string {
	if s.nfiles == 0 {
		return ""
	}
	nameW, maxChange := 0, int64(0)
	for i := range s.files {
		f := &s.files[i]
		if utf8.RuneCountInString(f.name) > statNameMax {
			f.name = "..." + lastRunes(f.name, statNameMax-3)
		}
		nameW = max(nameW, utf8.RuneCountInString(f.name))
		maxChange = max(maxChange, f.ins+f.del)
	}
	countW := len(strconv.FormatInt(maxChange, 10))
	if countW < 3 && s.hasBinary() {
		countW = 3 // "Bin"
	}
	barW := max(statWidth-nameW-countW-5, 10)
	var b strings.Builder
	for _, f := range s.files {
		pad := strings.Repeat(" ", nameW-utf8.RuneCountInString(f.name))
		if f.binary {
			fmt.Fprintf(&b, " %s%s | %*s\n", f.name, pad, countW, "Bin")
			continue
		}
		ins, del := f.ins, f.del
		if maxChange > int64(barW) { // scale, keeping every non-zero side visible
			ins, del = scale(ins, maxChange, barW), scale(del, maxChange, barW)
		}
		bar := strings.Repeat("+", int(ins)) + strings.Repeat("-", int(del))
		fmt.Fprintf(&b, " %s%s | %*d %s", f.name, pad, countW, f.ins+f.del, bar)
		b.WriteString("\n")
	}
	if s.more {
		b.WriteString(" ...\n")
	}
	fmt.Fprintf(&b, " %d file%s changed", s.nfiles, plural(int64(s.nfiles)))
	if s.ins > 0 || s.del == 0 {
		fmt.Fprintf(&b, ", %d insertion%s(+)", s.ins, plural(s.ins))
	}
	if s.del > 0 || s.ins == 0 {
		fmt.Fprintf(&b, ", %d deletion%s(-)", s.del, plural(s.del))
	}
	return strings.ReplaceAll(b.String(), " \n", "\n")
}

func (s *statSummary) hasBinary() bool {
	for _, f := range s.files {
		if f.binary {
			return true
		}
	}
	return false
}

// statWidth bounds a stat line; statNameMax, a file name in it.
const (
	statWidth   = 120
	statNameMax = 60
)

func scale(n, maxChange int64, width int) int64 {
	if n == 0 {
		return 0
	}
	return 1 + n*int64(width-1)/maxChange
}

func plural(n int64) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func lastRunes(s string, n int) string {
	r := []rune(s)
	return string(r[max(0, len(r)-n):])
}

// gitLineName reads the name from "a/NAME b/NAME", the rest of a
// "diff --git" line, where both names are the same (the --- and +++ lines,
// or the rename lines, name the others).
func gitLineName(rest string) string {
	if strings.HasPrefix(rest, `"`) {
		if q, err := strconv.QuotedPrefix(rest); err == nil {
			return stripPrefix(unquote(q), "a/")
		}
	}
	if len(rest)%2 == 1 {
		half := (len(rest) - 1) / 2
		if a, b := rest[:half], rest[half+1:]; rest[half] == ' ' && strings.HasPrefix(a, "a/") && strings.HasPrefix(b, "b/") && a[2:] == b[2:] {
			return a[2:]
		}
	}
	return strings.TrimPrefix(rest, "a/")
}

// unquote undoes git's C-style quoting of a name with unusual characters
// (core.quotePath=false leaves UTF-8 alone).
func unquote(s string) string {
	s = strings.TrimSuffix(s, "\t")
	if strings.HasPrefix(s, `"`) {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	return s
}

func stripPrefix(s, prefix string) string {
	if s == "/dev/null" {
		return s
	}
	return strings.TrimPrefix(s, prefix)
}
