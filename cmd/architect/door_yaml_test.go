//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/architect-dev/architect/config"
	"github.com/spf13/cobra"
)

// A leaf is a key of ralph.yaml that holds a value, by its path:
// [ralph_loop max_cost], [ralph_loop hooks on_finish], [prices m input].
type leaf struct {
	path []string
	kind string
	enum []string
	flag string // the option's flag, which the pre-flight names ("check `CMD`")
}

// yamlLeaves walks ralph.yaml's JSON Schema, which config generates from
// its option table: every key there is, sections added later included.
// Maps of names (prices) are entered with the name "m".
func yamlLeaves(loop *cobra.Command) []leaf {
	var schema map[string]any
	if err := json.Unmarshal(config.Schema(), &schema); err != nil {
		panic(err)
	}
	defs, _ := schema["$defs"].(map[string]any)
	resolve := func(n map[string]any) map[string]any {
		for {
			if ref, ok := n["$ref"].(string); ok {
				n, _ = defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
				continue
			}
			// A nullable reference: {anyOf: [{$ref}, {type: null}]}.
			if alts, ok := n["anyOf"].([]any); ok && len(alts) == 2 {
				if first, ok := alts[0].(map[string]any); ok && first["$ref"] != nil {
					n = first
					continue
				}
			}
			return n
		}
	}
	opts := map[string]config.OptionInfo{}
	for _, o := range config.Options() {
		opts[o.Key] = o
	}
	var out []leaf
	var walk func(path []string, n map[string]any)
	walk = func(path []string, n map[string]any) {
		n = resolve(n)
		if props, ok := n["properties"].(map[string]any); ok {
			keys := make([]string, 0, len(props))
			for k := range props {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				p, _ := props[k].(map[string]any)
				walk(append(append([]string(nil), path...), k), p)
			}
			return
		}
		if each, ok := n["additionalProperties"].(map[string]any); ok {
			walk(append(append([]string(nil), path...), "m"), each)
			return
		}
		l := leaf{path: path, kind: schemaKind(n)}
		if o, ok := opts[path[len(path)-1]]; ok && path[0] == "ralph_loop" {
			l.kind, l.enum = optionKind(loop, o)
			l.flag = o.Flag
		}
		out = append(out, l)
	}
	props, _ := schema["properties"].(map[string]any)
	for _, top := range []string{"ralph_loop", "prices"} {
		p, _ := props[top].(map[string]any)
		walk([]string{top}, p)
	}
	return out
}

func schemaKind(n map[string]any) string {
	t := fmt.Sprint(n["type"])
	switch {
	case strings.Contains(t, "integer"):
		return kindInt
	case strings.Contains(t, "number"):
		return kindNumber
	case strings.Contains(t, "boolean"):
		return kindBool
	}
	return kindString
}

// yamlRows is a row for every value of every key of ralph.yaml, read by
// `architect loop -c`, and a row for every key of a batch file's task,
// read by `architect batch --matrix`: one task per value (t0, t1, …), each
// judged by the errors that name it. A value that makes the whole file
// unreadable (bytes that are not UTF-8) gets a file of its own.
func yamlRows(loop *cobra.Command) []row {
	var rows []row
	batchSeen := map[string]bool{}
	for _, l := range yamlLeaves(loop) {
		// In a batch file, a task holds the keys of ralph_loop: and prices:.
		inTask := l.path[1:]
		if l.path[0] == "prices" {
			inTask = l.path
		}
		dotted := strings.Join(inTask, ".")
		names := []string{dotted, inTask[len(inTask)-1], l.flag}
		values := valuesFor(l.kind, l.enum, fxRel)
		for _, v := range values {
			scalar := yamlScalar(l.kind, v)
			rows = append(rows, row{
				name: "ralph.yaml " + strings.Join(l.path, ".") + "=" + v.label, names: names, kind: l.kind, v: v,
				file:  func() string { return ralphYAML(l.path, scalar) },
				judge: judgeDryRun, args: []string{"loop", "-c", fxRel + "/row.yaml", "--dry-run", "--json"},
			})
		}
		if batchSeen[dotted] {
			continue
		}
		batchSeen[dotted] = true
		var group []value
		for _, v := range values {
			if scalar := yamlScalar(l.kind, v); !utf8.ValidString(scalar) {
				rows = append(rows, row{
					name: "batch tasks.r." + dotted + "=" + v.label, names: append(names, "tasks.r."+dotted), kind: l.kind, v: v,
					file:  func() string { return batchYAML(inTask, scalar) },
					judge: judgeMatrix, args: []string{"batch", fxRel + "/row.yaml", "--matrix"},
				})
				continue
			}
			group = append(group, v)
		}
		rows = append(rows, row{
			name: "batch tasks.*." + dotted, names: names, kind: l.kind, group: group,
			file:  func() string { return batchGroupYAML(inTask, l.kind, group) },
			judge: judgeGroup, args: []string{"batch", fxRel + "/row.yaml", "--matrix"},
		})
	}
	for _, v := range stringValues() {
		rows = append(rows, row{
			name: "batch tasks[0].id=" + v.label, names: []string{"tasks[0].id", "id"}, kind: kindString, v: v,
			file: func() string {
				return strings.TrimSuffix(baseBatch, "  - id: r\n") + "  - id: " + yamlScalar(kindString, v) + "\n"
			},
			judge: judgeMatrix, args: []string{"batch", fxRel + "/row.yaml", "--matrix"},
		})
	}
	return rows
}

// batchGroupYAML is baseBatch with one task per value, t0, t1, …, each
// with the key at path set to its value.
func batchGroupYAML(path []string, kind string, group []value) string {
	var b strings.Builder
	b.WriteString(strings.TrimSuffix(baseBatch, "  - id: r\n"))
	for i, v := range group {
		fmt.Fprintf(&b, "  - id: t%d\n", i)
		nest(&b, path, 2, yamlScalar(kind, v))
	}
	return b.String()
}

// ralphYAML is baseYAML with the key at path set to scalar.
func ralphYAML(path []string, scalar string) string {
	var b strings.Builder
	b.WriteString("ralph_loop:\n")
	for _, line := range strings.Split(strings.TrimPrefix(baseYAML, "ralph_loop:\n"), "\n") {
		if line != "" && !(path[0] == "ralph_loop" && strings.HasPrefix(line, "  "+path[1]+":")) {
			b.WriteString(line + "\n")
		}
	}
	if path[0] == "ralph_loop" {
		nest(&b, path[1:], 1, scalar)
	} else {
		nest(&b, path, 0, scalar)
	}
	return b.String()
}

// batchYAML is baseBatch with the key at path set to scalar in its task.
func batchYAML(path []string, scalar string) string {
	var b strings.Builder
	b.WriteString(baseBatch)
	nest(&b, path, 2, scalar)
	return b.String()
}

// nest writes path: scalar as nested mappings, depth levels in.
func nest(b *strings.Builder, path []string, depth int, scalar string) {
	for i, k := range path {
		b.WriteString(strings.Repeat("  ", depth+i) + k + ":")
		if i == len(path)-1 {
			b.WriteString(" " + scalar)
		}
		b.WriteString("\n")
	}
}

var plainScalar = regexp.MustCompile(`^[A-Za-z0-9.+\-_^]+$`)

// yamlScalar writes a value as YAML: numbers, durations and booleans
// plainly when they can be, everything else double-quoted, escaped as YAML
// allows (its invalid UTF-8 left raw: YAML has no escape for it).
func yamlScalar(kind string, v value) string {
	if v.yaml != "" {
		return v.yaml
	}
	switch kind {
	case kindInt, kindNumber, kindDuration, kindBool:
		if plainScalar.MatchString(v.text) {
			return v.text
		}
	}
	if strings.IndexFunc(v.text, func(r rune) bool { return r < ' ' || r > '~' || r == '"' || r == '\\' }) < 0 {
		return `"` + v.text + `"` // plain ASCII: nothing to escape (10 MB of it, quickly)
	}
	var b strings.Builder
	b.WriteByte('"')
	for s := v.text; s != ""; {
		r, size := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteByte(s[0])
		case r == '"' || r == '\\':
			b.WriteString(`\` + string(r))
		case r == 0:
			b.WriteString(`\0`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == 0x1b:
			b.WriteString(`\e`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteString(s[:size])
		}
		s = s[size:]
	}
	b.WriteByte('"')
	return b.String()
}
