package ghactions

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/reviewdog/errorformat"
)

// format is a named set of errorformat patterns (Vim's 'errorformat'
// syntax, parsed by github.com/reviewdog/errorformat) for one tool's
// output, and the words of a check's command that select it.
type format struct {
	name  string
	words []string // a command word (or two-word phrase) that selects it
	efm   []string
	// message renders an entry's message, from its text (%m), its error
	// number (%n) and the lines it was read from; nil: the text.
	message func(e *errorformat.Entry) string
	// loose formats match shapes common to many tools: a match counts
	// only when its file looks like a source file (see plausibleFile).
	loose bool
}

// formats are the known formats, in the order Detect tries them. Every
// list ends with %-G%.%#: a line that is not a location is ignored.
var formats = []format{
	{
		// go build, go vet and go test output (file:line:col: message; a test's indented file:line: message)
		name:  "go",
		words: []string{"go build", "go vet", "go test", "go run", "go install", "golangci-lint", "staticcheck", "gotestsum"},
		efm: []string{
			`%-G#%.%#`,             // # package headers
			`%-G%[-]%[-]%[-] %.%#`, // --- FAIL: TestX (0.00s)
			`%f:%l:%c: %m`,
			`%\s%#%f:%l: %m`,
			`%-G%.%#`,
		},
	},
	{
		// TypeScript's tsc, plain (file(line,col): error TSn: message) or --pretty (file:line:col - error TSn: message)
		name:  "tsc",
		words: []string{"tsc", "vue-tsc", "tsgo"},
		efm: []string{
			`%f(%l,%c): %trror TS%n: %m`,
			`%f(%l,%c): %tarning TS%n: %m`,
			`%f:%l:%c - %trror TS%n: %m`,
			`%f:%l:%c - %tarning TS%n: %m`,
			`%-G%.%#`,
		},
		message: func(e *errorformat.Entry) string { return fmt.Sprintf("TS%d: %s", e.Nr, e.Text) },
	},
	{
		// ESLint's default stylish output (a file's path, then line:col severity message rule)
		name:  "eslint",
		words: []string{"eslint"},
		efm: []string{
			`%-P%f`,
			` %#%l:%c %# %trror  %m`,
			` %#%l:%c %# %tarning  %m`,
			`%-Q`,
			`%-G%.%#`,
		},
		// "message  rule", aligned with spaces: "message (rule)".
		message: func(e *errorformat.Entry) string {
			t := strings.TrimSpace(e.Text)
			if i := strings.LastIndex(t, "  "); i > 0 {
				return strings.TrimSpace(t[:i]) + " (" + strings.TrimSpace(t[i:]) + ")"
			}
			return t
		},
	},
	{
		// ESLint with --format unix (eslint-formatter-unix: file:line:col: message [Severity/rule])
		name: "eslint-unix",
		efm: []string{
			`%f:%l:%c: %m [%trror/%r]`,
			`%f:%l:%c: %m [%tarning/%r]`,
			`%-G%.%#`,
		},
	},
	{
		// pytest's default tracebacks (the > line, its E lines, then file:line: exception)
		name:  "pytest",
		words: []string{"pytest", "py.test"},
		efm: []string{
			`%E>%.%#`,
			`%Z%f:%l: %m`,
			`%Z%f:%l:%.%#`, // a frame between the test and the raise
			`%CE %#%m`,
			`%-C%.%#`,
			`%-G%.%#`,
		},
		message: func(e *errorformat.Entry) string {
			lines := strings.Split(strings.TrimSpace(e.Text), "\n")
			if n := len(lines); n > 1 {
				for _, l := range lines[:n-1] {
					if strings.HasPrefix(l, lines[n-1]) {
						return strings.Join(lines[:n-1], "\n")
					}
				}
			}
			return strings.Join(lines, "\n")
		},
	},
	{
		// mypy (file:line: error: message [code])
		name:  "mypy",
		words: []string{"mypy", "dmypy"},
		efm: []string{
			`%f:%l:%c: %trror: %m`,
			`%f:%l: %trror: %m`,
			`%f:%l:%c: %tarning: %m`,
			`%f:%l: %tarning: %m`,
			`%-G%.%#`,
		},
	},
	{
		// ruff check, its default full output (CODE message, then --> file:line:col) or --output-format concise
		name:  "ruff",
		words: []string{"ruff"},
		efm: []string{
			`%f:%l:%c: %m`,
			`%E%*[A-Z]%*[0-9] %m`,
			`%Z%\s%#--> %f:%l:%c`,
			`%-G%.%#`,
		},
		// The full output's first line, "F401 [*] message", keeps its code.
		message: func(e *errorformat.Entry) string {
			if len(e.Lines) > 1 {
				return strings.TrimSpace(e.Lines[0])
			}
			return e.Text
		},
	},
	{
		// rustc and cargo (build, check, clippy, test): error[En]: message then --> file:line:col; a test's panic at file:line:col
		name:  "rust",
		words: []string{"cargo", "rustc", "clippy-driver"},
		efm: []string{
			`%-Gerror: aborting %.%#`,
			`%-Gerror: could not compile %.%#`,
			`%-Gerror: test failed%.%#`,
			`%Eerror[E%n]: %m`,
			`%Eerror: %m`,
			`%Wwarning: %m`,
			`%Z%\s%#--> %f:%l:%c`,
			`%Ethread '%.%#' %.%#panicked at %f:%l:%c:`,
			`%Z%m`,
			`%-G%.%#`,
		},
		message: func(e *errorformat.Entry) string {
			if e.Nr > 0 {
				return fmt.Sprintf("error[E%04d]: %s", e.Nr, e.Text)
			}
			return e.Text
		},
	},
	{
		// any tool printing file:line:col: message, file:line: message or file(line,col): message
		name:  "generic",
		loose: true,
		efm: []string{
			`%\s%#%f:%l:%c: %m`,
			`%\s%#%f:%l: %m`,
			`%\s%#%f(%l,%c): %m`,
			`%-G%.%#`,
		},
	},
}

// Generic is the format used when a check's command names no known tool.
const Generic = "generic"

// FormatNames lists the known format names.
func FormatNames() []string {
	names := make([]string, len(formats))
	for i, f := range formats {
		names[i] = f.name
	}
	return names
}

func formatNamed(name string) *format {
	for i := range formats {
		if formats[i].name == name {
			return &formats[i]
		}
	}
	return nil
}

// Detect returns the formats a check's command selects: one for every
// known tool named among its words (go test, tsc, eslint, pytest, mypy,
// ruff, cargo, …), in the order of the formats; Generic when none is.
// ESLint run with --format unix (or -f unix) selects eslint-unix.
func Detect(command string) []string {
	words := strings.FieldsFunc(strings.ToLower(command), func(r rune) bool {
		return strings.ContainsRune(" \t\n;&|()`'\"", r)
	})
	for i, w := range words {
		words[i] = w[strings.LastIndexByte(w, '/')+1:] // ./node_modules/.bin/eslint
	}
	has := func(phrase string) bool {
		first, second, two := strings.Cut(phrase, " ")
		for i, w := range words {
			if w == first && (!two || i+1 < len(words) && words[i+1] == second) {
				return true
			}
		}
		return false
	}
	var out []string
	for _, f := range formats {
		for _, w := range f.words {
			if has(w) {
				out = append(out, f.name)
				break
			}
		}
	}
	if i := slices.Index(out, "eslint"); i >= 0 && (has("--format unix") || has("-f unix") || has("--format=unix")) {
		out[i] = "eslint-unix"
	}
	if len(out) == 0 {
		out = []string{Generic}
	}
	return out
}

// compiled holds each format's compiled patterns, built on first use so
// that architect's start-up does not pay for them.
var compiled sync.Map // name → *errorformat.Errorformat

func efmOf(f *format) (*errorformat.Errorformat, error) {
	if v, ok := compiled.Load(f.name); ok {
		return v.(*errorformat.Errorformat), nil
	}
	e, err := errorformat.NewErrorformat(f.efm)
	if err != nil {
		return nil, fmt.Errorf("errorformat %s: %w", f.name, err)
	}
	compiled.Store(f.name, e)
	return e, nil
}

// parseFormat reads output with one format: its valid entries with a file
// and a line, errors first (a failing check's warnings only when it
// printed no error), in order.
func parseFormat(f *format, output string) []Annotation {
	e, err := efmOf(f)
	if err != nil {
		return nil // the patterns are fixed; a test compiles every one
	}
	var errs, others []Annotation
	s := e.NewScanner(strings.NewReader(output))
	for s.Scan() {
		en := s.Entry()
		if !en.Valid || en.Filename == "" || en.Lnum <= 0 {
			continue
		}
		file := strings.TrimSpace(en.Filename)
		if file == "" || (f.loose && !plausibleFile(file)) { // a name of only spaces is none
			continue
		}
		msg := en.Text
		if f.message != nil {
			msg = f.message(en)
		}
		msg = strings.TrimSpace(msg)
		a := Annotation{File: file, Line: en.Lnum, Col: max(en.Col, 0), Message: msg}
		switch en.Type {
		case 'w', 'W', 'i', 'I', 'n', 'N':
			others = append(others, a)
		default:
			errs = append(errs, a)
		}
	}
	if len(errs) == 0 {
		return others
	}
	return errs
}

// plausibleFile: a path whose base name has an extension of letters and
// digits starting with a letter (main.go, a.test.ts), and no scheme or
// space: "https", "12" and "version 1.2.3" are not files.
func plausibleFile(p string) bool {
	if p == "" || strings.ContainsAny(p, " \t\"'<>|,()") || strings.Contains(p, "://") {
		return false
	}
	base := p[strings.LastIndexAny(p, `/\`)+1:]
	dot := strings.LastIndexByte(base, '.')
	if dot <= 0 || dot == len(base)-1 {
		return false
	}
	ext := base[dot+1:]
	if ext[0] < 'A' || ext[0] > 'z' || (ext[0] > 'Z' && ext[0] < 'a') {
		return false
	}
	for _, r := range ext {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// SplitFormatChoice reads an errorformat setting, FORMAT=COMMAND (several
// formats joined with commas): the formats that read the output of the
// check COMMAND. The first '=' ends the formats: a command may hold '='.
func SplitFormatChoice(entry string) (names []string, command string, err error) {
	list, command, ok := strings.Cut(entry, "=")
	command = strings.TrimSpace(command)
	if !ok || command == "" || strings.TrimSpace(list) == "" {
		return nil, "", fmt.Errorf("%q is not FORMAT=COMMAND", entry)
	}
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if formatNamed(n) == nil {
			return nil, "", fmt.Errorf("%q: unknown format %q", entry, n)
		}
		names = append(names, n)
	}
	return names, command, nil
}

// FormatChoices turns errorformat settings into Reporter.Formats; a
// setting that does not read is left out (config validation reports it).
func FormatChoices(entries []string) map[string][]string {
	m := map[string][]string{}
	for _, e := range entries {
		if names, cmd, err := SplitFormatChoice(e); err == nil {
			m[cmd] = append(m[cmd], names...)
		}
	}
	return m
}
