//go:build unix

package main

import (
	"path/filepath"
	"strings"
)

// A value is one generated input: its text and a label for the row's name.
// fileOnly values cannot be passed as an argument or a variable (a NUL
// byte; more than the 128 KiB Linux allows one argument), only in a file.
type value struct {
	label    string
	text     string
	fileOnly bool
	// yaml, when set, is written into a YAML file as is (a tagged or
	// structured value) instead of text as a quoted string.
	yaml string
}

// Kinds of value, from the option table (config.Options) and the flags'
// value names: the option's own kind, refined to path and command.
const (
	kindString   = "string"
	kindInt      = "int"
	kindNumber   = "number"
	kindBool     = "bool"
	kindList     = "list"
	kindDuration = "duration"
	kindPath     = "path"    // a file or folder name
	kindCommand  = "command" // a shell command, meant to be run
	kindEnum     = "enum"    // one of a fixed set of words
)

// pwned is the file the shell metacharacters would create if a value that
// is not a command were ever given to a shell.
const pwned = "pwned"

var shellMeta = "$(touch " + pwned + ") `touch " + pwned + "`; touch " + pwned + " | & > " + pwned + " * ? ~ ' \" \\"

func numberValues() []value {
	return []value{
		{label: "NaN", text: "NaN"}, {label: "Inf", text: "Inf"}, {label: "-Inf", text: "-Inf"},
		{label: "-0", text: "-0"}, {label: "negative", text: "-1"}, {label: "0", text: "0"}, {label: "1.5", text: "1.5"},
		{label: "1e309", text: "1e309"}, {label: "2^63", text: "9223372036854775808"}, {label: "2^63-1", text: "9223372036854775807"},
		{label: "word", text: "lots"}, {label: "empty", text: ""}, {label: "spaces", text: " 7 "}, {label: "hex", text: "0x10"},
		{label: "yaml-nan", yaml: ".nan"}, {label: "yaml-inf", yaml: ".inf"},
	}
}

func durationValues() []value {
	return append(numberValues(),
		value{label: "0s", text: "0s"}, value{label: "1ns", text: "1ns"}, value{label: "90s", text: "90s"}, value{label: "1h30m", text: "1h30m"},
		value{label: "fortnights", text: "2fortnights"}, value{label: "days", text: "1d"}, value{label: "-1s", text: "-1s"},
		value{label: "overflow", text: "2562048h"}, value{label: "huge", text: "99999999999999h"}, value{label: "tiny", text: "1e-12"},
		value{label: "seconds-overflow", text: "9300000000"}, value{label: "yaml-float-nan", yaml: "!!float .nan"},
	)
}

func boolValues() []value {
	return []value{
		{label: "true", text: "true"}, {label: "false", text: "false"}, {label: "maybe", text: "maybe"},
		{label: "empty", text: ""}, {label: "2", text: "2"},
	}
}

// Long texts, made once: rows share them.
var (
	text100KiB = strings.Repeat("a", 100<<10)
	text10MB   = strings.Repeat("b", 10<<20)
)

// stringValues are the hostile texts every string option gets.
func stringValues() []value {
	return []value{
		{label: "empty", text: ""},
		{label: "spaces", text: "   "},
		{label: "100KiB", text: text100KiB},
		{label: "10MB", text: text10MB, fileOnly: true},
		{label: "NUL", text: "a\x00b", fileOnly: true},
		{label: "bad-utf8", text: "a\xffb\xc3"},
		{label: "ansi", text: "\x1b[31mred\x1b[0m\x1b]0;title\x07"},
		{label: "newlines", text: "line one\nline two\r\n"},
		{label: "shell", text: shellMeta},
		{label: "dash", text: "-x"},
		{label: "unicode", text: "héllo ✓ 中文"},
	}
}

func commandValues() []value {
	return append(stringValues(), value{label: "exit-3", text: "exit 3"}, value{label: "not-found", text: "no-such-program-xyz"})
}

func enumValues(words []string) []value {
	out := []value{{label: "upper", text: strings.ToUpper(words[0])}, {label: "nosuch", text: "nosuch"}}
	for _, w := range words {
		out = append(out, value{label: w, text: w})
	}
	for _, v := range stringValues() {
		if v.label != "unicode" && v.label != "100KiB" {
			out = append(out, v)
		}
	}
	return out
}

func listValues() []value {
	return append(stringValues(), value{label: "yaml-list", yaml: "[\"true\", \"\"]"}, value{label: "yaml-map", yaml: "{a: 1}"},
		value{label: "yaml-nested", yaml: "[[a]]"})
}

// pathValues are names of things in the row's fixture folder (see
// makeFixtures), fx relative to the folder the command runs in and to the
// file a value is written in, which are both beside it.
func pathValues(fx string) []value {
	p := func(name string) string { return filepath.Join(fx, name) }
	return []value{
		{label: "workspace", text: "."},
		{label: "base-yaml", text: p("base.yaml")},
		{label: "missing", text: p("missing")},
		{label: "folder", text: p("folder")},
		{label: "file", text: p("file.md")},
		{label: "file-as-folder", text: p("file.md/sub")},
		{label: "fifo", text: p("fifo")},
		{label: "symlink-loop", text: p("loop")},
		{label: "dangling", text: p("dangling")},
		{label: "unreadable", text: p("unreadable")},
		{label: "bad-utf8-name", text: p("bad\xffname.md")},
		{label: "newline-name", text: p("new\nline.md")},
		{label: "ansi-name", text: p("\x1b[31mred.md")},
		{label: "empty", text: ""},
		{label: "dash", text: "-"},
		{label: "too-long", text: p(strings.Repeat("x", 5000))},
	}
}

// valuesFor is every value a kind gets.
func valuesFor(kind string, enum []string, fx string) []value {
	switch kind {
	case kindInt, kindNumber:
		return numberValues()
	case kindDuration:
		return durationValues()
	case kindBool:
		return boolValues()
	case kindPath:
		return pathValues(fx)
	case kindCommand:
		return commandValues()
	case kindEnum:
		return enumValues(enum)
	case kindList:
		return listValues()
	}
	return stringValues()
}
