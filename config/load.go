package config

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/architect-dev/architect/agent"
	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"
)

// Sources says where each key got its value ("default" when absent).
type Sources map[string]string

// LoadSources builds the configuration: defaults, then the file at path
// (if not ""), then the environment (lookup), then the flags set on fs
// (whose values were parsed into flagged, see RegisterFlags), then the
// TASK argument (if not ""). It returns every problem it finds at once as
// Errors, and warnings worth printing; and says where each key got its
// value, for `architect loop --dry-run`. A configuration that names a
// preset is refused: LoadWithPreset reads those.
func LoadSources(path, task string, lookup func(string) (string, bool), fs *pflag.FlagSet, flagged *Config) (Config, Sources, []string, error) {
	return LoadWithPreset(nil, path, task, lookup, fs, flagged)
}

// PresetLayer turns a preset, its parameters (KEY=VALUE) and the
// workspace into the text of a ralph.yaml whose ralph_loop keys lie between
// the defaults and the file; label names that text in messages and in the
// sources ("preset coverage"). Its error is the user's to read.
type PresetLayer func(name string, params []string, dir string) (text []byte, label string, err error)

// LoadWithPreset is LoadSources for a configuration that may name a preset
// (preset: in the file, ARCHITECT_PRESET or --preset): the keys layer
// returns for it come first, and the file, the environment, the flags and
// the TASK argument override them key by key. A spec given anywhere
// replaces the preset's task.
func LoadWithPreset(layer PresetLayer, path, task string, lookup func(string) (string, bool), fs *pflag.FlagSet, flagged *Config) (Config, Sources, []string, error) {
	c, src, errs := layers(nil, "", "", path, task, lookup, fs, flagged)
	if len(errs) == 0 && c.Preset != "" {
		if layer == nil {
			return c, src, nil, Errors{{Source: src["preset"], Key: "preset", Msg: "presets are not read here", Hint: "drop preset: from this configuration"}}
		}
		text, label, err := layer(c.Preset, c.PresetParams, c.Dir)
		if err != nil {
			return c, src, nil, err
		}
		c, src, errs = layers(text, label, c.Dir, path, task, lookup, fs, flagged)
		if len(errs) == 0 && c.Preset == "" {
			errs = Errors{{Source: label, Key: "preset", Msg: "the preset's keys cleared preset:", Hint: "a preset cannot name another"}}
		}
		if from := src["task"]; c.Spec != "" && strings.HasPrefix(from, label+":") {
			c.Task = ""
			delete(src, "task")
		}
	}
	if len(errs) > 0 {
		return c, src, nil, errs
	}
	warnings, err := c.validate(src)
	return c, src, warnings, err
}

// layers applies, over the defaults, the preset's text (if not nil), the
// file at path, the environment, the flags and the TASK argument.
func layers(preset []byte, label, dir, path, task string, lookup func(string) (string, bool), fs *pflag.FlagSet, flagged *Config) (Config, Sources, Errors) {
	c := Defaults()
	src := Sources{}
	var errs Errors
	if preset != nil {
		errs = append(errs, loadText(preset, label, dir, &c, src)...)
	}
	if path != "" {
		errs = append(errs, loadFile(path, &c, src)...)
	}
	errs = append(errs, loadEnv(lookup, &c, src)...)
	if fs != nil {
		applyFlags(fs, flagged, &c, src)
	}
	if task != "" {
		c.Task = task
		src["task"] = "TASK argument"
		if from := src["spec"]; (path != "" && strings.HasPrefix(from, path+":")) || (preset != nil && strings.HasPrefix(from, label+":")) {
			// The TASK argument beats the file's spec as it beats the
			// file's task: the file is the project's standing setup, the
			// argument what the user asks for now.
			c.Spec = ""
			delete(src, "spec")
		}
	}
	return c, src, errs
}

// loadText reads a preset's ralph.yaml text, named label in messages; its
// relative paths are relative to the workspace.
func loadText(data []byte, label, dir string, c *Config, src Sources) Errors {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return Errors{YAMLError(label, data, err)}
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	root := doc.Content[0]
	var errs Errors
	for i := 0; i+1 < len(root.Content); i += 2 {
		if k, v := root.Content[i], root.Content[i+1]; k.Value == "ralph_loop" {
			errs = append(errs, loadSection(label, dir, v, c, src)...)
		} else {
			errs = append(errs, unknownKey(label, k, []string{"ralph_loop"}, "top level"))
		}
	}
	return errs
}

func loadFile(path string, c *Config, src Sources) Errors {
	data, e := ReadText(path, "configuration file")
	if e != nil {
		e.Hint = "check the path given to -c/--config"
		if strings.Contains(e.Msg, "not found") {
			e.Hint = "create it (see ralph.yaml.example) or fix the path given to -c/--config"
		}
		return Errors{e}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return Errors{YAMLError(path, data, err)}
	}
	if len(doc.Content) == 0 {
		return nil // empty file
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return Errors{{Source: at(path, root), Msg: "the configuration must be a mapping with a ralph_loop: section", Hint: "see ralph.yaml.example"}}
	}
	dir := filepath.Dir(path)
	var errs Errors
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "ralph_loop":
			errs = append(errs, loadSection(path, dir, v, c, src)...)
		case "prices":
			errs = append(errs, loadPrices(path, v, c, src)...)
		default:
			errs = append(errs, unknownKey(path, k, []string{"ralph_loop", "prices"}, "top level"))
		}
	}
	return errs
}

// YAMLError is the error for data, the YAML file at path that go-yaml
// could not parse (err): "path:LINE: not valid YAML: what". go-yaml names
// the line where the mapping or list around the mistake began ("line 1:
// did not find expected key" for a key misindented on line 5), so the line
// is found again: the first line whose text up to it fails the same way.
func YAMLError(path string, data []byte, err error) *Error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = strings.TrimPrefix(msg, m[0])
		if l := failingLine(data, msg, line); l > 0 {
			line = l
		}
	}
	src := path
	if line > 0 {
		src = fmt.Sprintf("%s:%d", path, line)
	}
	return &Error{Source: src, Msg: "not valid YAML: " + msg, Hint: "fix the YAML syntax (indent with spaces, quote values containing ': ')", Err: err}
}

var yamlLine = regexp.MustCompile(`^line (\d+): `)

// maxLocate bounds the lines failingLine parses again (each parse reads
// the text up to the line): configuration files are far shorter.
const maxLocate = 2000

// failingLine is the first line, from the one go-yaml named (from), such
// that the text up to and including it fails to parse with msg; 0 when
// none does. A prefix cut inside a quoted or flow value that spans lines
// fails with another message, so such lines are not blamed.
func failingLine(data []byte, msg string, from int) int {
	lines := strings.SplitAfter(string(data), "\n")
	if len(lines) > maxLocate {
		return 0
	}
	for n := max(from, 1); n <= len(lines); n++ {
		var doc yaml.Node
		err := yaml.Unmarshal([]byte(strings.Join(lines[:n], "")), &doc)
		if err == nil {
			continue
		}
		got := strings.TrimPrefix(err.Error(), "yaml: ")
		if m := yamlLine.FindStringSubmatch(got); m != nil {
			got = strings.TrimPrefix(got, m[0])
		}
		if got == msg {
			return n
		}
	}
	return 0
}

// ReadText reads a configuration file (what names it in messages): a
// regular file, since a FIFO would block the reader for ever, holding
// UTF-8 text, as YAML requires (checked here to name the line).
func ReadText(path, what string) ([]byte, *Error) {
	if p := FileProblem(path); p != "" {
		return nil, &Error{Source: path, Msg: "cannot read the " + what + ": " + p, Hint: "check the path"}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{Source: path, Msg: "cannot read the " + what + ": " + unwrapPathErr(err), Hint: "check the path", Err: err}
	}
	if !utf8.Valid(data) {
		line, start := 1, 0
		for i := 0; i < len(data); {
			r, n := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			if data[i] == '\n' {
				line, start = line+1, i+1
			}
			i += n
		}
		text, _, _ := strings.Cut(string(data[start:]), "\n")
		if len(text) > 60 {
			text = text[:60] + "…"
		}
		return nil, &Error{Source: fmt.Sprintf("%s:%d", path, line), Msg: fmt.Sprintf("the %s is not UTF-8 text: %q", what, text), Hint: "save it as UTF-8 (YAML files are UTF-8)"}
	}
	return data, nil
}

func loadSection(path, dir string, m *yaml.Node, c *Config, src Sources) Errors {
	if m.Kind == yaml.ScalarNode && m.Tag == "!!null" {
		return nil
	}
	if m.Kind != yaml.MappingNode {
		return Errors{{Source: at(path, m), Key: "ralph_loop", Msg: "must be a mapping of keys to values", Hint: "see ralph.yaml.example"}}
	}
	var errs Errors
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Value == "prices" {
			errs = append(errs, loadPrices(path, v, c, src)...)
			continue
		}
		if k.Value == "hooks" {
			errs = append(errs, loadHooks(path, v, c, src)...)
			continue
		}
		if k.Value == "notifiers" {
			errs = append(errs, loadNotifiers(path, v, c, src)...)
			continue
		}
		if k.Value == "roles" {
			errs = append(errs, loadRoles(path, v, c, src)...)
			continue
		}
		if k.Value == "worktree_setup" {
			errs = append(errs, loadWorktreeSetup(path, v, c, src)...)
			continue
		}
		o, ok := lookupOption(k.Value)
		if !ok || !o.yaml {
			errs = append(errs, unknownKey(path, k, yamlKeys(), "ralph_loop"))
			continue
		}
		if serrs := setKey(path, o, c, v); len(serrs) > 0 {
			errs = append(errs, serrs...)
			continue
		}
		if o.key == "checks" && v.Kind == yaml.SequenceNode && len(v.Content) == 0 {
			// checks: [] written out: no checks, on purpose.
			c.NoChecks = true
			src["no_checks"] = at(path, k)
		}
		if o.key == "spec" && c.Spec != "" && !filepath.IsAbs(c.Spec) {
			c.Spec = absPath(filepath.Join(dir, c.Spec)) // relative to the file that names it; whole, for a run resumed from elsewhere
		}
		src[o.key] = at(path, k)
	}
	return errs
}

// setKey sets option o of c from v, the value of its key in the file at
// path; candidates also takes a list of agents.
func setKey(path string, o option, c *Config, v *yaml.Node) Errors {
	if o.key == "candidates" && v.Kind != yaml.ScalarNode {
		return loadCandidates(path, v, c)
	}
	if err := setFromNode(o, c, v); err != nil {
		return Errors{errorOf(at(path, v), o.key, err, "see ralph.yaml.example for the accepted values")}
	}
	if o.key == "candidates" && !(v.Kind == yaml.ScalarNode && v.Tag == "!!null") {
		c.CandidateAgents = nil // a number: copies of the run's agent
	}
	return nil
}

func setFromNode(o option, c *Config, v *yaml.Node) error {
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return nil // "max_cost: null" keeps the default
	}
	if _, isList := o.field(c).(*[]string); isList {
		list := o.field(c).(*[]string)
		*list = nil
		switch v.Kind {
		case yaml.ScalarNode:
			*list = []string{v.Value}
			return nil
		case yaml.SequenceNode:
			for _, item := range v.Content {
				if item.Kind != yaml.ScalarNode {
					return fmt.Errorf("line %d: each item must be a string", item.Line)
				}
				*list = append(*list, item.Value)
			}
			return nil
		}
		return fmt.Errorf("must be a list of strings")
	}
	if v.Kind != yaml.ScalarNode {
		return fmt.Errorf("must be a single value, not a %s", kindName(v.Kind))
	}
	return o.set(c, v.Value, true)
}

func loadPrices(path string, m *yaml.Node, c *Config, src Sources) Errors {
	if m.Kind != yaml.MappingNode {
		return Errors{{Source: at(path, m), Key: "prices", Msg: "must map model names to {input, cached_input, output} in USD per million tokens", Hint: "prices: {my-model: {input: 3.00, cached_input: 0.30, output: 15.00}}"}}
	}
	if c.Prices == nil {
		c.Prices = agent.Prices{}
	}
	var errs Errors
	for i := 0; i+1 < len(m.Content); i += 2 {
		model, v := m.Content[i], m.Content[i+1]
		if v.Kind != yaml.MappingNode {
			errs = append(errs, &Error{Source: at(path, v), Key: "prices." + model.Value, Msg: "must be {input: N, cached_input: N, output: N}", Hint: "prices are USD per million tokens"})
			continue
		}
		var p agent.Price
		for j := 0; j+1 < len(v.Content); j += 2 {
			fk, fv := v.Content[j], v.Content[j+1]
			var dst *float64
			switch fk.Value {
			case "input":
				dst = &p.Input
			case "cached_input":
				dst = &p.CachedInput
			case "output":
				dst = &p.Output
			default:
				errs = append(errs, unknownKey(path, fk, []string{"input", "cached_input", "output"}, "prices."+model.Value))
				continue
			}
			var f float64
			if err := fv.Decode(&f); err != nil || f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
				errs = append(errs, &Error{Source: at(path, fv), Key: "prices." + model.Value + "." + fk.Value, Msg: fmt.Sprintf("%q is not a non-negative number", fv.Value), Hint: "prices are USD per million tokens, e.g. 3.00"})
				continue
			}
			*dst = f
		}
		c.Prices[model.Value] = p
		src["prices"] = at(path, model)
	}
	return errs
}

// loadHooks reads hooks: {on_iteration: CMD, on_finish: CMD}.
func loadHooks(path string, m *yaml.Node, c *Config, src Sources) Errors {
	if m.Kind == yaml.ScalarNode && m.Tag == "!!null" {
		return nil
	}
	if m.Kind != yaml.MappingNode {
		return Errors{{Source: at(path, m), Key: "hooks", Msg: "must map on_iteration and on_finish to shell commands", Hint: `hooks: {on_finish: 'echo "$ARCHITECT_OUTCOME"'}`}}
	}
	var errs Errors
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Value != "on_iteration" && k.Value != "on_finish" {
			errs = append(errs, unknownKey(path, k, []string{"on_iteration", "on_finish"}, "hooks"))
			continue
		}
		o, _ := lookupOption(k.Value)
		if err := setFromNode(o, c, v); err != nil {
			errs = append(errs, errorOf(at(path, v), "hooks."+k.Value, err, "give a shell command"))
			continue
		}
		src[o.key] = at(path, k)
	}
	return errs
}

func loadEnv(lookup func(string) (string, bool), c *Config, src Sources) Errors {
	if lookup == nil {
		return nil
	}
	var errs Errors
	for _, o := range options {
		if !o.env {
			continue
		}
		v, ok := lookup(o.envName())
		if !ok || v == "" {
			continue
		}
		if err := o.set(c, v, true); err != nil {
			errs = append(errs, errorOf(o.envName(), o.key, err, "fix or unset "+o.envName()))
			continue
		}
		if o.key == "spec" {
			c.Spec = absPath(c.Spec)
		}
		if o.key == "candidates" {
			c.CandidateAgents = nil // a number: copies of the run's agent, not the file's list
		}
		src[o.key] = o.envName()
	}
	return errs
}

// RegisterFlags defines a flag for every option that has one, parsing into
// into; defaults shown in help are the built-in ones.
func RegisterFlags(fs *pflag.FlagSet, into *Config) {
	def := Defaults()
	*into = def
	for _, o := range options {
		if o.flag == "-" {
			continue
		}
		name := o.flagName()
		switch p := o.field(into).(type) {
		case *string:
			fs.StringVarP(p, name, o.short, *p, o.usage)
		case *int:
			fs.IntVarP(p, name, o.short, *p, o.usage)
		case *float64:
			fs.Float64VarP(p, name, o.short, *p, o.usage)
		case *bool:
			fs.BoolVarP(p, name, o.short, *p, o.usage)
		case *[]string:
			fs.StringArrayVarP(p, name, o.short, nil, o.usage)
		case *time.Duration:
			fs.VarP((*durationFlag)(p), name, o.short, o.usage)
		}
		_ = fs.SetAnnotation(name, GroupAnnotation, []string{o.group})
	}
}

// Override applies the flags set on fs (parsed into from) to to: for a
// resumed run, whose saved configuration the user adjusts with flags.
func Override(fs *pflag.FlagSet, from, to *Config) { applyFlags(fs, from, to, Sources{}) }

func applyFlags(fs *pflag.FlagSet, from, to *Config, src Sources) {
	for _, o := range options {
		if o.flag == "-" || !fs.Changed(o.flagName()) {
			continue
		}
		switch dst := o.field(to).(type) {
		case *string:
			*dst = *o.field(from).(*string)
		case *int:
			*dst = *o.field(from).(*int)
		case *float64:
			*dst = *o.field(from).(*float64)
		case *bool:
			*dst = *o.field(from).(*bool)
		case *[]string:
			*dst = append([]string(nil), *o.field(from).(*[]string)...)
		case *time.Duration:
			*dst = *o.field(from).(*time.Duration)
		}
		if o.key == "spec" {
			to.Spec = absPath(to.Spec)
		}
		if o.key == "candidates" {
			to.CandidateAgents = nil // a number: copies of the run's agent, not the file's list
		}
		src[o.key] = "--" + o.flagName()
	}
}

type durationFlag time.Duration

func (d *durationFlag) String() string {
	if *d == 0 {
		return ""
	}
	return FormatDuration(time.Duration(*d))
}

func (d *durationFlag) Set(s string) error {
	v, err := ParseDuration(s)
	if err != nil {
		return err
	}
	*d = durationFlag(v)
	return nil
}

func (d *durationFlag) Type() string { return "duration" }

func yamlKeys() []string {
	keys := []string{"prices", "hooks", "notifiers", "roles", "worktree_setup"}
	for _, o := range options {
		if o.yaml {
			keys = append(keys, o.key)
		}
	}
	sort.Strings(keys)
	return keys
}

func unknownKey(path string, k *yaml.Node, known []string, where string) *Error {
	e := &Error{Source: at(path, k), Msg: fmt.Sprintf("unknown key %q in %s", k.Value, where)}
	if s := closest(k.Value, known); s != "" {
		e.Hint = fmt.Sprintf("did you mean %q? (keys are listed in ralph.yaml.example)", s)
	} else {
		e.Hint = "the accepted keys are: " + strings.Join(known, ", ")
	}
	return e
}

func at(path string, n *yaml.Node) string { return fmt.Sprintf("%s:%d", path, n.Line) }

func kindName(k yaml.Kind) string {
	switch k {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	}
	return "value"
}

func absPath(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

func unwrapPathErr(err error) string {
	if pe := (*os.PathError)(nil); errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// closest returns the known word within edit distance 2 of w, if any.
func closest(w string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if d := EditDistance(w, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// EditDistance is the Levenshtein distance between a and b, in bytes: how
// near a mistyped key or flag is to a real one.
func EditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
