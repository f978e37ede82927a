package report

import (
	"fmt"
	"strings"

	"github.com/architect-dev/architect/prompt"
)

// head keeps the first limit bytes of s; cut says what was left out.
func head(s string, limit int) (text, cut string) {
	text, rest := prompt.Truncate(s, limit)
	if rest > 0 {
		cut = fmt.Sprintf("the first %s of %s are shown; the rest is in the run's .architect/ folder", size(int64(len(text))), size(int64(len(s))))
	}
	return text, cut
}

func size(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// diffFile is one file of a diff, its lines classed for colour.
type diffFile struct {
	Name           string
	Added, Deleted int
	Lines          []diffLine
}

type diffLine struct {
	Class, Text string
}

// diffFiles splits a unified diff (git's format) into files, each line
// classed: add, del, hunk, meta or plain context. Comment lines before the
// first file (architect's note on what the diff is) come back as note.
func diffFiles(diff string) (files []diffFile, note string) {
	lines := strings.Split(strings.TrimRight(diff, "\n"), "\n")
	for len(lines) > 0 && (strings.HasPrefix(lines[0], "# ") || lines[0] == "") {
		note = strings.TrimSpace(note + "\n" + lines[0])
		lines = lines[1:]
	}
	for _, line := range lines {
		if strings.HasPrefix(line, "diff --git ") || len(files) == 0 {
			name := line
			if rest, ok := strings.CutPrefix(line, "diff --git a/"); ok {
				if i := strings.Index(rest, " b/"); i >= 0 {
					name = rest[:i]
				}
			}
			files = append(files, diffFile{Name: name})
		}
		f := &files[len(files)-1]
		class := ""
		switch {
		case strings.HasPrefix(line, "diff --git "), strings.HasPrefix(line, "index "), strings.HasPrefix(line, "--- "),
			strings.HasPrefix(line, "+++ "), strings.HasPrefix(line, "new file"), strings.HasPrefix(line, "deleted file"),
			strings.HasPrefix(line, "similarity"), strings.HasPrefix(line, "rename "), strings.HasPrefix(line, "old mode"),
			strings.HasPrefix(line, "new mode"), strings.HasPrefix(line, "Binary files"):
			class = "meta"
		case strings.HasPrefix(line, "@@"):
			class = "hunk"
		case strings.HasPrefix(line, "+"):
			class = "add"
			f.Added++
		case strings.HasPrefix(line, "-"):
			class = "del"
			f.Deleted++
		}
		f.Lines = append(f.Lines, diffLine{Class: class, Text: line})
	}
	return files, note
}
