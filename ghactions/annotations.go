package ghactions

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Annotation is one file:line location that a failing check's output
// names, with the message printed there.
type Annotation struct {
	File    string // as printed, or relative to the workspace after Resolve
	Line    int
	Col     int // 0 when not printed
	Message string
}

// MaxPerCheck bounds the annotations taken from one check's output: GitHub
// shows at most 10 error annotations per step.
const MaxPerCheck = 10

// The shapes of file:line locations in compiler, linter and test output.
var (
	// Go (go build, go vet, go test), mypy, flake8, ruff, pytest's
	// "path.py:12: AssertionError", gcc, tsc --pretty ("a.ts:3:7 - error").
	reGeneric = lazyRegexp(`^\s*([^\s:()"'<>|,]*[^\s:()"'<>|,.]\.[A-Za-z][A-Za-z0-9]*):(\d+)(?::(\d+))?(?::| +- )[ \t]*(.*)$`)
	// tsc --pretty false: "src/a.ts(12,5): error TS2322: …".
	reTSC = lazyRegexp(`^\s*([^\s()"'<>|,]+\.[cm]?[jt]sx?)\((\d+),(\d+)\): *(.*)$`)
	// rustc and cargo: "error[E0308]: mismatched types" then "  --> src/main.rs:4:5".
	reRustMsg = lazyRegexp(`^(error(?:\[\w+\])?): (.*)$`)
	reRustLoc = lazyRegexp(`^\s*--> ([^\s:]+):(\d+):(\d+)\s*$`)
	// Rust test panics: "thread 't' panicked at src/lib.rs:10:5:" (message on
	// the next line) or the older "panicked at 'msg', src/lib.rs:10:5".
	rePanicNew = lazyRegexp(`panicked at ([^\s:']+\.rs):(\d+):(\d+):\s*$`)
	rePanicOld = lazyRegexp(`panicked at '(.*)', ([^\s:']+\.rs):(\d+):(\d+)`)
	// Python tracebacks: `  File "pkg/mod.py", line 12, in f`.
	rePyFrame = lazyRegexp(`^\s*File "([^"]+)", line (\d+)`)
)

// Parse finds the file:line locations in a check's output, in order,
// without duplicates, at most MaxPerCheck of them. It knows the formats of
// Go, TypeScript (tsc), Python (tracebacks, pytest, mypy, flake8) and Rust
// (rustc, cargo, panics), and the common path:line:col: message shape.
func Parse(output string) []Annotation {
	lines := strings.Split(strings.ReplaceAll(output, "\r\n", "\n"), "\n")
	var out []Annotation
	seen := map[Annotation]bool{}
	add := func(file, line, col, msg string) {
		n, err := strconv.Atoi(line)
		if err != nil || n <= 0 || len(out) >= MaxPerCheck {
			return
		}
		c, _ := strconv.Atoi(col)
		a := Annotation{File: file, Line: n, Col: c, Message: strings.TrimSpace(msg)}
		if a.Message == "" {
			a.Message = "check failed here"
		}
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	rustMsg := ""
	var pyFrame []string // file, line of the innermost frame so far
	for i, l := range lines {
		if pyFrame != nil && l != "" && l[0] != ' ' && l[0] != '\t' {
			// The unindented line after a traceback's frames is the exception.
			add(pyFrame[0], pyFrame[1], "", l)
			pyFrame = nil
		}
		switch {
		case rePyFrame().MatchString(l):
			m := rePyFrame().FindStringSubmatch(l)
			pyFrame = []string{m[1], m[2]}
		case reRustMsg().MatchString(l):
			rustMsg = l
		case reRustLoc().MatchString(l):
			m := reRustLoc().FindStringSubmatch(l)
			add(m[1], m[2], m[3], rustMsg)
		case rePanicOld().MatchString(l):
			m := rePanicOld().FindStringSubmatch(l)
			add(m[2], m[3], m[4], "panicked: "+m[1])
		case rePanicNew().MatchString(l):
			m := rePanicNew().FindStringSubmatch(l)
			msg := "panicked"
			if i+1 < len(lines) {
				msg += ": " + lines[i+1]
			}
			add(m[1], m[2], m[3], msg)
		case reTSC().MatchString(l):
			m := reTSC().FindStringSubmatch(l)
			add(m[1], m[2], m[3], m[4])
		case reGeneric().MatchString(l):
			m := reGeneric().FindStringSubmatch(l)
			add(m[1], m[2], m[3], m[4])
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

// ErrorCommand renders a as an ::error:: command titled title.
func (a Annotation) ErrorCommand(title string) string {
	props := map[string]string{"title": title, "file": a.File}
	if a.Line > 0 && a.File != "" {
		props["line"] = strconv.Itoa(a.Line)
		if a.Col > 0 {
			props["col"] = strconv.Itoa(a.Col)
		}
	}
	return Command("error", props, a.Message)
}

// lazyRegexp compiles expr on first use, keeping it out of architect's
// start-up time.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
