package starter

import (
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/architect-dev/architect/usererr"
	"go.yaml.in/yaml/v3"
)

// A preset is a ready job: a prompt template (the task), checks and limits,
// written as NAME.yaml (and its prompt as NAME.md beside it, unless the
// YAML has prompt:). The built-in ones are embedded; a user's are read from
// the project's PresetDir and the user's folder (UserPresetDir), the
// project's first, and replace a built-in of the same name.
//
//go:embed presets/*.yaml presets/*.md
var builtin embed.FS

// PresetDir is the project's folder of presets, relative to the workspace:
// committed with the project, so the team shares them.
const PresetDir = ".architect-presets"

// UserPresetDir is the user's folder of presets:
// $XDG_CONFIG_HOME/architect/presets, else ~/.config/architect/presets; ""
// when neither is known.
func UserPresetDir(lookup func(string) (string, bool)) string {
	if x, ok := lookup("XDG_CONFIG_HOME"); ok && x != "" {
		return filepath.Join(x, "architect", "presets")
	}
	if h, ok := lookup("HOME"); ok && h != "" {
		return filepath.Join(h, ".config", "architect", "presets")
	}
	return ""
}

// Preset is one preset as read from its files.
type Preset struct {
	Name        string  `yaml:"-"`
	Source      string  `yaml:"-"` // "built-in", or the path of its YAML file
	Description string  `yaml:"description"`
	Params      []Param `yaml:"params"`
	// Prompt is the task's template: {{name}} is the parameter's value.
	Prompt string      `yaml:"prompt"`
	Checks []CheckSpec `yaml:"checks"`
	// ProtectTests protects the test files found in the project (protect:).
	ProtectTests bool `yaml:"protect_tests"`
	// Loop holds any other ralph_loop keys: limits, mode.
	Loop yaml.Node `yaml:"ralph_loop"`
}

// Param is one parameter of a preset.
type Param struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Required    bool   `yaml:"required"`
	Default     string `yaml:"default"`
	// Pattern is the regular expression a value must match; when empty,
	// safeValue. Values go into check commands as they are, so a pattern
	// must not let in what a shell reads (spaces, quotes, $, ;).
	Pattern string `yaml:"pattern"`
	Example string `yaml:"example"`
}

// safeValue is what a parameter's value may hold by default: a word a shell
// reads as it is in or out of quotes.
// Compiled on first use, as the other patterns of presets are: a command
// that reads no preset pays nothing for them at start-up.
var safeValue = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9@._/:+~^=,-]+$`) })

// CheckSpec is one item of a preset's checks: detected commands (detect:
// test, lint, types), a command (run:), or one command per kind of
// project (go:, node:, python:, rust:, the first kind the project is).
type CheckSpec struct {
	Detect []string `yaml:"detect"`
	// Require makes a detect: or per-kind item that finds nothing an error.
	Require bool              `yaml:"require"`
	Run     string            `yaml:"run"`
	What    string            `yaml:"what"` // what the check is, for the error when nothing fits
	ByKind  map[string]string `yaml:",inline"`
}

var presetName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,63}$`) })

// Presets lists every preset, by name, from the built-in ones and the
// folders given (the project's, then the user's; "" is skipped); a
// preset in an earlier folder hides those of the same name after it. A
// file that does not read is an error naming it.
func Presets(dirs ...string) ([]Preset, error) {
	byName := map[string]Preset{}
	if err := readPresets(builtin, "presets", "built-in", byName); err != nil {
		return nil, err
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if dirs[i] == "" {
			continue
		}
		if _, err := os.Stat(dirs[i]); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err := readPresets(os.DirFS(dirs[i]), ".", dirs[i], byName); err != nil {
			return nil, err
		}
	}
	out := make([]Preset, 0, len(byName))
	for _, p := range byName {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func readPresets(fsys fs.FS, dir, source string, into map[string]Preset) error {
	names, err := fs.Glob(fsys, dir+"/*.yaml")
	if err != nil {
		return err
	}
	for _, name := range names {
		base := strings.TrimSuffix(filepath.Base(name), ".yaml")
		where := source
		if source != "built-in" {
			where = filepath.Join(source, base+".yaml")
		}
		fail := func(msg, hint string) error {
			return &usererr.Error{Msg: "preset " + where + ": " + msg, Hint: hint}
		}
		if !presetName().MatchString(base) {
			return fail("the name is not lower-case letters, digits and dashes", "rename the file, e.g. my-job.yaml")
		}
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return fail(err.Error(), "check the file")
		}
		var p Preset
		dec := yaml.NewDecoder(strings.NewReader(string(data)))
		dec.KnownFields(true)
		if err := dec.Decode(&p); err != nil && !errors.Is(err, io.EOF) {
			return fail("not a preset: "+strings.TrimPrefix(err.Error(), "yaml: "), "its keys are description, params, prompt, checks, protect_tests and ralph_loop (docs/presets.md)")
		}
		if p.Loop.Kind != 0 && p.Loop.Kind != yaml.MappingNode {
			return fail("ralph_loop must be a mapping of ralph.yaml keys", "e.g. ralph_loop: {max_iterations: 10}")
		}
		if p.Prompt == "" {
			text, err := fs.ReadFile(fsys, strings.TrimSuffix(name, ".yaml")+".md")
			if err != nil {
				return fail("no prompt: neither prompt: nor "+base+".md beside it", "write the task's template in "+base+".md")
			}
			p.Prompt = string(text)
		}
		for _, prm := range p.Params {
			if prm.Pattern != "" {
				if _, err := regexp.Compile(prm.Pattern); err != nil {
					return fail("parameter "+prm.Name+": pattern: "+err.Error(), "write a Go regular expression")
				}
			}
		}
		p.Name, p.Source = base, where
		into[base] = p
	}
	return nil
}

// FindPreset is the preset name among Presets(dirs...).
func FindPreset(name string, dirs ...string) (Preset, error) {
	all, err := Presets(dirs...)
	if err != nil {
		return Preset{}, err
	}
	names := make([]string, len(all))
	for i, p := range all {
		if p.Name == name {
			return p, nil
		}
		names[i] = p.Name
	}
	return Preset{}, &usererr.Error{Msg: fmt.Sprintf("unknown preset %q", name), Hint: "the presets are " + strings.Join(names, ", ") + " (architect presets describes them)"}
}

// Rendered is a preset applied to a project with its parameters.
type Rendered struct {
	Task    string
	Checks  []string
	Protect []string
	// YAML is a ralph.yaml whose ralph_loop holds the task, the checks, the
	// protected files and the preset's other keys: the layer under the
	// user's configuration.
	YAML []byte
}

// Render applies the preset to the project in dir with params (KEY=VALUE).
func (p Preset) Render(params []string, dir string) (Rendered, error) {
	values, err := p.values(params)
	if err != nil {
		return Rendered{}, err
	}
	proj := Detect(dir)
	var r Rendered
	r.Task = substitute(p.Prompt, values)
	for _, c := range p.Checks {
		cmds, err := p.check(c, proj, values)
		if err != nil {
			return Rendered{}, err
		}
		r.Checks = append(r.Checks, cmds...)
	}
	if p.ProtectTests {
		r.Protect = proj.TestGlobs
	}
	loop := &yaml.Node{Kind: yaml.MappingNode}
	if p.Loop.Kind == yaml.MappingNode {
		loop = &p.Loop
	}
	has := map[string]bool{}
	for i := 0; i+1 < len(loop.Content); i += 2 {
		has[loop.Content[i].Value] = true
	}
	add := func(key string, v any) {
		if has[key] {
			return
		}
		var n yaml.Node
		_ = n.Encode(v)
		loop.Content = append(loop.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, &n)
	}
	add("task", r.Task)
	if len(r.Checks) > 0 {
		add("checks", r.Checks)
	}
	if len(r.Protect) > 0 {
		add("protect", r.Protect)
	}
	doc := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: "ralph_loop"}, loop}}
	r.YAML, err = yaml.Marshal(doc)
	return r, err
}

// values checks params against the preset's parameters and fills the
// defaults.
func (p Preset) values(params []string) (map[string]string, error) {
	known := map[string]Param{}
	var names []string
	for _, prm := range p.Params {
		known[prm.Name] = prm
		names = append(names, prm.Name)
	}
	values := map[string]string{}
	for _, kv := range params {
		k, v, ok := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, &usererr.Error{Msg: fmt.Sprintf("preset %s: parameter %q is not KEY=VALUE", p.Name, kv), Hint: p.paramHint()}
		}
		prm, ok := known[k]
		if !ok {
			if len(names) == 0 {
				return nil, &usererr.Error{Msg: fmt.Sprintf("preset %s takes no parameters, and %q was given", p.Name, k), Hint: "drop preset_params (--preset-param)"}
			}
			return nil, &usererr.Error{Msg: fmt.Sprintf("preset %s has no parameter %q", p.Name, k), Hint: p.paramHint()}
		}
		pattern, re := "safe", safeValue()
		if prm.Pattern != "" {
			pattern, re = prm.Pattern, regexp.MustCompile(prm.Pattern)
		}
		if !re.MatchString(v) {
			hint := "give " + k + "=" + prm.example() + ": " + prm.Description
			if pattern == "safe" {
				hint += " (letters, digits and @._/:+~^=,- only: the value goes into the checks' commands)"
			}
			return nil, &usererr.Error{Msg: fmt.Sprintf("preset %s: %s=%q is not a valid value", p.Name, k, v), Hint: hint}
		}
		values[k] = v
	}
	var missing []string
	for _, prm := range p.Params {
		if _, ok := values[prm.Name]; ok {
			continue
		}
		if prm.Required {
			missing = append(missing, prm.Name)
			continue
		}
		values[prm.Name] = prm.Default
	}
	if len(missing) > 0 {
		return nil, &usererr.Error{Msg: fmt.Sprintf("preset %s needs the parameter %s", p.Name, strings.Join(missing, " and ")), Hint: p.paramHint()}
	}
	return values, nil
}

func (prm Param) example() string {
	if prm.Example != "" {
		return prm.Example
	}
	return "VALUE"
}

// paramHint says how to give the preset's parameters.
func (p Preset) paramHint() string {
	if len(p.Params) == 0 {
		return "preset " + p.Name + " takes no parameters"
	}
	var parts []string
	for _, prm := range p.Params {
		s := prm.Name + "=" + prm.example() + " (" + prm.Description
		if !prm.Required {
			s += "; default " + fmt.Sprintf("%q", prm.Default)
		}
		parts = append(parts, s+")")
	}
	return "give --preset-param KEY=VALUE, or preset_params: [\"KEY=VALUE\"] in ralph.yaml: " + strings.Join(parts, ", ")
}

// check is the commands of one check item for the project.
func (p Preset) check(c CheckSpec, proj Project, values map[string]string) ([]string, error) {
	what := c.What
	var out []string
	switch {
	case c.Run != "":
		return []string{substitute(c.Run, values)}, nil
	case len(c.Detect) > 0:
		for _, role := range c.Detect {
			switch role {
			case "test":
				out = append(out, proj.Tests...)
			case "lint":
				out = append(out, proj.Linters...)
			case "types":
				out = append(out, proj.TypeCheckers...)
			default:
				return nil, &usererr.Error{Msg: fmt.Sprintf("preset %s (%s): detect: %q is not test, lint or types", p.Name, p.Source, role), Hint: "fix the preset"}
			}
		}
		if what == "" {
			what = strings.Join(c.Detect, " or ") + " commands"
		}
	default:
		for _, kind := range proj.Kinds {
			if cmd, ok := c.ByKind[kind]; ok {
				out = append(out, substitute(cmd, values))
				break
			}
		}
	}
	if len(out) == 0 && c.Require {
		found := "no kind of project recognised"
		if len(proj.Kinds) > 0 {
			found = "found " + strings.Join(proj.Kinds, ", ")
		}
		if what == "" {
			what = "a check"
		}
		return nil, &usererr.Error{
			Msg:  fmt.Sprintf("preset %s: no %s for this project (%s)", p.Name, what, found),
			Hint: "write the commands yourself under checks: in ralph.yaml (they replace the preset's), or --check CMD",
		}
	}
	return out, nil
}

var placeholder = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`) })

// substitute replaces {{name}} with the parameter's value; other {{...}}
// (a Go template in a check, {{.Version}}) stay as they are.
func substitute(text string, values map[string]string) string {
	re := placeholder()
	return re.ReplaceAllStringFunc(text, func(m string) string {
		name := re.FindStringSubmatch(m)[1]
		if v, ok := values[name]; ok {
			return v
		}
		return m
	})
}
