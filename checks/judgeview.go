package checks

import (
	"bytes"
	"encoding/json"
	"path"
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
// Comments and blank lines do not count. A file that cannot be read as its
// format is compared whole.
func JudgeView(file string, parts []string) func([]byte) []byte {
	if len(parts) == 0 {
		return nil
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
