package checks

import (
	"bytes"
	"encoding/json"
	"path"
	"slices"
	"strings"
)

// Some files define a check only in part: package.json's scripts.test, not
// its dependencies; pyproject.toml's [tool.ruff], not [project]. An agent
// that adds a dependency has not changed how the check is judged, so
// those files are compared through the parts that matter (JudgeView).

// cargoParts are what in Cargo.toml decides which tests and lints run
// (test = false, autotests, harness, [lints]); not the dependencies.
var cargoParts = []string{"package", "lib", "bin", "test", "bench", "lints", "workspace.lints", "profile"}

// partsOf names the parts of a shared configuration file that configure
// tool; nil: the whole file.
func partsOf(tool, file string) []string {
	switch file {
	case "package.json":
		switch tool {
		case "eslint":
			return []string{"eslintConfig"}
		case "jest", "mocha", "prettier":
			return []string{tool}
		}
	case "pyproject.toml":
		if tool == "py.test" {
			tool = "pytest"
		}
		if tool == "basedpyright" {
			tool = "pyright"
		}
		return []string{"tool." + tool}
	case "setup.cfg":
		switch tool {
		case "pytest", "py.test":
			return []string{"tool:pytest"}
		case "flake8", "mypy", "isort", "pylint":
			return []string{tool}
		}
	case "tox.ini":
		switch tool {
		case "pytest", "py.test":
			return []string{"pytest"}
		case "flake8", "isort":
			return []string{tool}
		}
	}
	return nil
}

// JudgeView returns the function that takes out of a file's contents the
// parts that define a check, for comparing two versions; nil when the
// whole file counts. JSON files are read as JSON (parts are key paths:
// scripts.test); TOML and INI files by their sections (parts are section
// names, which cover their sub-sections: tool.ruff covers
// [tool.ruff.lint], mypy covers [mypy-pkg.*]), along with what could set
// the same keys another way (a [tool] section, a top-level dotted key).
// Makefiles by their rules (parts are "target NAME"; see makeParts).
// Comments and blank lines do not count. A file that cannot be read as its
// format is compared whole.
func JudgeView(file string, parts []string) func([]byte) []byte {
	if len(parts) == 0 {
		return nil
	}
	if targets, ok := makeTargets(parts); ok {
		return func(data []byte) []byte { return makeParts(data, targets) }
	}
	switch path.Ext(file) {
	case ".json":
		return func(data []byte) []byte { return jsonParts(data, parts) }
	case ".toml", ".cfg", ".ini":
		return func(data []byte) []byte { return sectionParts(data, parts) }
	}
	return nil
}

func jsonParts(data []byte, parts []string) []byte {
	var doc map[string]any
	if json.Unmarshal(data, &doc) != nil {
		return data
	}
	out := make([]any, len(parts))
	for i, p := range parts {
		var v any = doc
		for _, k := range strings.Split(p, ".") {
			m, ok := v.(map[string]any)
			if !ok {
				v = nil
				break
			}
			v = m[k]
		}
		out[i] = v
	}
	b, _ := json.Marshal(out)
	return b
}

func sectionParts(data []byte, parts []string) []byte {
	var b bytes.Buffer
	section := ""
	for _, line := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(line)
		if t == "" || t[0] == '#' || t[0] == ';' {
			continue
		}
		if t[0] == '[' {
			name, _, _ := strings.Cut(strings.TrimLeft(t, "["), "]")
			section = strings.ReplaceAll(strings.TrimSpace(name), `"`, "")
			if covered(section, parts) {
				b.WriteString(t + "\n")
			}
			continue
		}
		if section == "" {
			key, _, _ := strings.Cut(t, "=")
			if covered(strings.ReplaceAll(strings.TrimSpace(key), `"`, ""), parts) {
				b.WriteString(t + "\n")
			}
			continue
		}
		if covered(section, parts) {
			b.WriteString(section + ": " + t + "\n")
		}
	}
	return b.Bytes()
}

// covered reports whether a section (or a dotted key) name is one of
// parts, inside one, or (parents) one that holds one: [tool] can set
// tool.ruff's keys as ruff.line-length.
func covered(name string, parts []string) bool {
	for _, p := range parts {
		if name == p || strings.HasPrefix(name, p) && strings.ContainsRune(".-:", rune(name[len(p)])) {
			return true
		}
		if strings.HasPrefix(p, name+".") {
			return true
		}
	}
	return false
}

// makeTarget starts the part of a Makefile that is the rule of a target
// the check runs: "target test".
const makeTarget = "target "

// makeTargets is the targets of parts when every part is a Makefile
// target.
func makeTargets(parts []string) ([]string, bool) {
	var out []string
	for _, p := range parts {
		t, ok := strings.CutPrefix(p, makeTarget)
		if !ok {
			return nil, false
		}
		out = append(out, t)
	}
	return out, true
}

// makeParts is what in a Makefile can change what `make TARGETS` runs:
// every line outside a rule (variables, include, export, conditionals:
// SHELL or MAKEFLAGS set anywhere change every recipe), and the rules,
// recipes included, of the targets, of their prerequisites found in
// turn, of special targets (.ONESHELL; .PHONY and the like only for the
// targets wanted) and of pattern rules.
// The rules of other targets (build, fmt, one added) are left out, so
// editing or adding an unrelated target does not change the judge.
func makeParts(data []byte, targets []string) []byte {
	rules, other := readMakefile(data)
	wanted := wantedTargets(rules, targets)
	var b bytes.Buffer
	for _, l := range other {
		b.WriteString(l + "\n")
	}
	for _, r := range rules {
		r.writeKept(&b, wanted)
	}
	return b.Bytes()
}

// makefileRule is one rule of a Makefile: its line, its targets and
// prerequisites, and its recipe.
type makefileRule struct {
	line    string
	targets []string
	prereqs []string
	recipe  []string
}

// readMakefile splits a Makefile into its rules and its other lines
// (trimmed; blank lines and comments left out).
func readMakefile(data []byte) (rules []*makefileRule, other []string) {
	var cur *makefileRule
	text := strings.ReplaceAll(string(data), "\\\n", " ")
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "\t") && cur != nil:
			if t != "" {
				cur.recipe = append(cur.recipe, t)
			}
			continue
		case t == "" || t[0] == '#':
			continue
		}
		m := makeRule.FindStringSubmatch(line)
		if m == nil {
			other = append(other, t)
			cur = nil
			continue
		}
		deps, _, _ := strings.Cut(m[2], ";")
		deps, _, _ = strings.Cut(deps, "#")
		cur = &makefileRule{line: t, targets: strings.Fields(m[1]), prereqs: strings.Fields(strings.ReplaceAll(deps, "|", " "))}
		rules = append(rules, cur)
	}
	return rules, other
}

// wantedTargets is the targets and, in turn, their prerequisites.
func wantedTargets(rules []*makefileRule, targets []string) map[string]bool {
	wanted := map[string]bool{}
	var queue []string
	want := func(names ...string) {
		for _, n := range names {
			if !wanted[n] {
				wanted[n] = true
				queue = append(queue, n)
			}
		}
	}
	want(targets...)
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, r := range rules {
			if slices.Contains(r.targets, n) {
				want(r.prereqs...)
			}
		}
	}
	return wanted
}

// writeKept writes the rule to b when it can change what the wanted
// targets run: a rule of a wanted target, a special target or a pattern
// rule, recipe included; of a special target with prerequisites, only the
// line with the wanted ones.
func (r *makefileRule) writeKept(b *bytes.Buffer, wanted map[string]bool) {
	special, kept := true, false
	for _, t := range r.targets {
		special = special && strings.HasPrefix(t, ".")
		kept = kept || wanted[t] || strings.HasPrefix(t, ".") || strings.ContainsAny(t, "%$")
	}
	if special && len(r.prereqs) > 0 {
		// .PHONY: build fmt test: of a special target with prerequisites
		// only the targets wanted count (adding fmt to .PHONY is fine).
		var ours []string
		for _, p := range r.prereqs {
			if wanted[p] {
				ours = append(ours, p)
			}
		}
		if len(ours) > 0 {
			b.WriteString(strings.Join(r.targets, " ") + ": " + strings.Join(ours, " ") + "\n")
		}
		return
	}
	if kept {
		b.WriteString(r.line + "\n")
		for _, l := range r.recipe {
			b.WriteString("\t" + l + "\n")
		}
	}
}
