// Package ghactions speaks to GitHub Actions when architect runs on a
// runner (GITHUB_ACTIONS=true): workflow commands (groups, annotations,
// masks) escaped as the Actions toolkit escapes them, error annotations
// found in failing checks' output, the step summary and the step outputs.
// cli.drive wires a Reporter in as an observer of the loop's events and
// calls it once more with the result.
package ghactions

import (
	"sort"
	"strings"
)

// Enabled reports whether lookup describes a GitHub Actions runner.
func Enabled(lookup func(string) (string, bool)) bool {
	v, _ := lookup("GITHUB_ACTIONS")
	return v == "true"
}

// EscapeData escapes a workflow command's message as @actions/core does.
func EscapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// EscapeProperty escapes a workflow command's property value as
// @actions/core does: like data, plus the separators : and ,.
func EscapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// Inert makes s safe to print as a plain log line, one line that the
// runner reads as no workflow command: escaped as a command's message,
// with "::" (a command of the current syntax) and "##[" (of the old one,
// which the runner looks for anywhere in a line) broken up.
func Inert(s string) string {
	return strings.NewReplacer("::", ": :", "##[", "# #[").Replace(EscapeData(s))
}

// Command renders one workflow command line (without the newline):
// ::name key=value,...::message. Properties are written in key order and
// empty values are left out.
func Command(name string, props map[string]string, msg string) string {
	var b strings.Builder
	b.WriteString("::")
	b.WriteString(name)
	keys := make([]string, 0, len(props))
	for k, v := range props {
		if v != "" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for i, k := range keys {
		if i == 0 {
			b.WriteByte(' ')
		} else {
			b.WriteByte(',')
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(EscapeProperty(props[k]))
	}
	b.WriteString("::")
	b.WriteString(EscapeData(msg))
	return b.String()
}

// secretWords mark the environment variables whose values are masked.
var secretWords = []string{"TOKEN", "KEY", "SECRET", "PASSWORD"}

// minMaskLen: shorter values (KEY_COUNT=1) would mask ordinary text.
const minMaskLen = 4

// Masks returns the ::add-mask:: commands for the values of the variables
// in environ (KEY=VALUE) whose names contain TOKEN, KEY, SECRET or
// PASSWORD. A multi-line value is masked whole and line by line, since the
// runner masks a log line at a time.
func Masks(environ []string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(v string) {
		v = strings.TrimRight(v, "\r")
		if len(strings.TrimSpace(v)) < minMaskLen || seen[v] {
			return
		}
		seen[v] = true
		out = append(out, Command("add-mask", nil, v))
	}
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || !secretName(name) {
			continue
		}
		add(value)
		if strings.Contains(value, "\n") {
			for _, line := range strings.Split(value, "\n") {
				add(line)
			}
		}
	}
	return out
}

func secretName(name string) bool {
	up := strings.ToUpper(name)
	for _, w := range secretWords {
		if strings.Contains(up, w) {
			return true
		}
	}
	return false
}
