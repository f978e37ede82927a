package config

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/matryer/is"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

var update = flag.Bool("update", false, "rewrite ../ralph.schema.json from the option table")

const schemaFile = "../ralph.schema.json"

// The published schema is the one the option table generates.
func TestSchemaFileIsCurrent(t *testing.T) {
	want := Schema()
	if *update {
		if err := os.WriteFile(schemaFile, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is out of date with the option table: run go test ./config -run TestSchemaFileIsCurrent -update", schemaFile)
	}
}

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(Schema()))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("ralph.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("ralph.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// validateYAML checks a YAML document against the schema, as an editor's
// YAML language server does (YAML read into JSON values).
func validateYAML(t *testing.T, s *jsonschema.Schema, text string) error {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(text), &v); err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return s.Validate(inst)
}

func TestExampleMatchesSchema(t *testing.T) {
	is := is.New(t)
	data, err := os.ReadFile("../ralph.yaml.example")
	is.NoErr(err)
	is.True(strings.HasPrefix(string(data), SchemaComment+"\n")) // editors find the schema
	// Every commented-out key, uncommented, is valid too.
	uncommented := regexp.MustCompile(`(?m)^  # ([a-z_]+:.*)$`).ReplaceAllString(string(data), "  $1")
	uncommented = regexp.MustCompile(`(?m)^  #   (\S.*)$`).ReplaceAllString(uncommented, "    $1")
	s := compileSchema(t)
	is.NoErr(validateYAML(t, s, string(data)))
	var doc map[string]map[string]any
	is.NoErr(yaml.Unmarshal([]byte(uncommented), &doc))
	is.True(len(doc["ralph_loop"]) > 30) // the uncommenting worked
	is.NoErr(validateYAML(t, s, uncommented))
}

// The schema and the loader agree on what a ralph.yaml may hold: what the
// schema accepts loads, and typical mistakes are refused by both.
func TestSchemaAgreesWithLoader(t *testing.T) {
	s := compileSchema(t)
	for _, tc := range []struct {
		name, yaml string
		valid      bool
	}{
		{"empty section", "ralph_loop:\n", true},
		{"one unknown key among valid ones", "ralph_loop:\n  task: t\n  checks: [a, b]\n  check_timeout: 90s\n  max_time: 3600\n  max_cost: 2.5\n  max_iterations: 10\n  worktree: true\n  mode: build\n  agent: codex\n  on_usage_limit: stop\n  protect: tests/**\n  max_cost_null: 1\n", false},
		{"numbers, durations, lists", "ralph_loop:\n  task: t\n  checks: [a, b]\n  check_timeout: 90s\n  max_time: 3600\n  max_cost: 2.5\n  max_iterations: 10\n  worktree: true\n  mode: build\n  agent: codex\n  on_usage_limit: stop\n  protect: tests/**\n", true},
		{"nulls keep defaults", "ralph_loop:\n  max_cost: null\n  max_time:\n  hooks:\n", true},
		{"hooks and prices", "ralph_loop:\n  hooks: {on_finish: echo done}\n  prices: {m: {input: 1, output: 2}}\nprices:\n  n: {cached_input: 0.1}\n", true},
		{"unknown key", "ralph_loop:\n  max_iteration: 3\n", false},
		{"unknown top-level key", "colour: blue\n", false},
		{"not a number", "ralph_loop:\n  max_cost: lots\n", false},
		{"not a duration", "ralph_loop:\n  check_timeout: soon\n", false},
		{"negative duration", "ralph_loop:\n  max_time: -5\n", false},
		{"iterations out of range", "ralph_loop:\n  max_iterations: 0\n", false},
		{"unknown agent", "ralph_loop:\n  agent: nosuch\n", false},
		{"unknown mode", "ralph_loop:\n  mode: draft\n", false},
		{"check as a mapping", "ralph_loop:\n  checks: {a: b}\n", false},
		{"unknown hook", "ralph_loop:\n  hooks: {on_start: x}\n", false},
		{"unknown price field", "prices:\n  m: {inputs: 1}\n", false},
		{"negative price", "prices:\n  m: {input: -1}\n", false},
		{"candidates as a number", "ralph_loop:\n  candidates: 3\n  candidates_finish: all\n  candidates_lessons: off\n", true},
		{"candidates as a list", "ralph_loop:\n  candidates: [{agent: claude, model: m}, {agent: command, agent_cmd: ./a.sh}]\n", true},
		{"too many candidates", "ralph_loop:\n  candidates: 17\n", false},
		{"no candidate", "ralph_loop:\n  candidates: []\n", false},
		{"a candidate of no known agent", "ralph_loop:\n  candidates: [{agent: nope}]\n", false},
		{"a command candidate without its command", "ralph_loop:\n  candidates: [{agent: command}]\n", false},
		{"agent_cmd for another agent", "ralph_loop:\n  candidates: [{agent: codex, agent_cmd: x}]\n", false},
		{"an unknown key in a candidate", "ralph_loop:\n  candidates: [{agent: codex, modle: x}]\n", false},
		{"an unknown finish", "ralph_loop:\n  candidates_finish: best\n", false},
		{"worktree setup", "ralph_loop:\n  worktree_setup:\n    copy: [.env, '.env.local?']\n    link: node_modules\n    command: npm ci\n    timeout: 5m\n    caches: off\n", true},
		{"worktree setup, empty", "ralph_loop:\n  worktree_setup:\n", true},
		{"worktree setup, an unknown key", "ralph_loop:\n  worktree_setup: {setup: npm ci}\n", false},
		{"worktree setup, copy as a mapping", "ralph_loop:\n  worktree_setup: {copy: {a: b}}\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			schemaErr := validateYAML(t, s, tc.yaml)
			if (schemaErr == nil) != tc.valid {
				t.Fatalf("schema: valid=%v, want %v (%v)", schemaErr == nil, tc.valid, schemaErr)
			}
			path := writeFile(t, "ralph.yaml", tc.yaml)
			c, loadErr := loadFileOnly(path)
			if loadErr == nil {
				// A run needs a task and checks, which a flag may give as
				// well as the file: no file is invalid for lacking them.
				c.Task = "t"
				if len(c.Checks) == 0 {
					c.Checks = []string{"true"}
				}
				_, loadErr = c.validate(Sources{})
			}
			if (loadErr == nil) != tc.valid {
				t.Fatalf("loader: valid=%v, want %v (%v)", loadErr == nil, tc.valid, loadErr)
			}
		})
	}
}
