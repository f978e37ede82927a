package ghactions

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Annotation is one file:line location that a failing check's output
// names, with the message printed there.
type Annotation struct {
	File    string // as printed, or relative to the workspace after Resolve
	Line    int
	Col     int // 0 when not printed
	Message string
}

// maxParsed bounds the annotations read from one check's output.
const maxParsed = 200

// Parse reads a check's output with the named formats (see Detect and
// FormatNames), in turn, and returns the locations they find, in order,
// without duplicates, at most maxParsed of them. An unknown name reads
// nothing.
func Parse(names []string, output string) []Annotation {
	output = strings.ReplaceAll(output, "\r\n", "\n")
	var out []Annotation
	seen := map[Annotation]bool{}
	for _, name := range names {
		f := formatNamed(name)
		if f == nil {
			continue
		}
		for _, a := range parseFormat(f, output) {
			if len(out) >= maxParsed {
				return out
			}
			if a.Message == "" {
				a.Message = "check failed here"
			}
			if !seen[a] {
				seen[a] = true
				out = append(out, a)
			}
		}
	}
	return out
}

// skipDirs are not searched when Resolve looks a file up by name.
var skipDirs = map[string]bool{".git": true, "node_modules": true, ".architect": true, "target": true, "vendor": true, ".venv": true}

// maxWalk bounds the files Resolve looks at when searching by name.
const maxWalk = 20000

// Resolve rewrites each annotation's file relative to root, the
// workspace, so that GitHub can place it. An absolute path under root is
// made relative; a path that does not exist under root (go test prints
// only the file's base name) is replaced by the one file under root with
// that name, if there is exactly one. A location that cannot be placed
// keeps no file: its location moves into the message.
func Resolve(root string, anns []Annotation) []Annotation {
	var byName map[string][]string
	out := make([]Annotation, 0, len(anns))
	for _, a := range anns {
		f := filepath.Clean(filepath.FromSlash(a.File))
		if filepath.IsAbs(f) {
			if rel, err := filepath.Rel(root, f); err == nil && filepath.IsLocal(rel) {
				f = rel
			}
		}
		if !filepath.IsLocal(f) || !exists(filepath.Join(root, f)) {
			if byName == nil {
				byName = filesByName(root)
			}
			if c := byName[filepath.Base(f)]; len(c) == 1 {
				f = c[0]
			} else {
				a.Message = a.File + ":" + strconv.Itoa(a.Line) + ": " + a.Message
				a.File, a.Line, a.Col = "", 0, 0
				out = append(out, a)
				continue
			}
		}
		a.File = filepath.ToSlash(f)
		out = append(out, a)
	}
	return out
}

func exists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir()
}

func filesByName(root string) map[string][]string {
	m := map[string][]string{}
	n := 0
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if path != root && (skipDirs[d.Name()] || strings.HasPrefix(d.Name(), ".architect")) {
				return filepath.SkipDir
			}
			return nil
		}
		if n++; n > maxWalk {
			return filepath.SkipAll
		}
		if rel, err := filepath.Rel(root, path); err == nil {
			m[d.Name()] = append(m[d.Name()], rel)
		}
		return nil
	})
	return m
}

// Command renders a as a workflow command of kind (error, warning)
// titled title; without a file it has no location.
func (a Annotation) Command(kind, title string) string {
	props := map[string]string{"title": title, "file": a.File}
	if a.Line > 0 && a.File != "" {
		props["line"] = strconv.Itoa(a.Line)
		if a.Col > 0 {
			props["col"] = strconv.Itoa(a.Col)
		}
	}
	return Command(kind, props, a.Message)
}

// ErrorCommand renders a as an ::error:: command titled title.
func (a Annotation) ErrorCommand(title string) string { return a.Command("error", title) }
