package config

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/architect-dev/architect/agent"
)

// SchemaURL is where ralph.schema.json is published; ralph.yaml files point
// editors at it with a yaml-language-server comment (SchemaComment).
const SchemaURL = "https://raw.githubusercontent.com/architect-dev/architect/main/ralph.schema.json"

// SchemaComment is the first line of a ralph.yaml: editors with a YAML
// language server (VS Code, Neovim, JetBrains, Helix) then complete and
// check the file against the schema.
const SchemaComment = "# yaml-language-server: $schema=" + SchemaURL

// Schema returns the JSON Schema (draft 2020-12) of ralph.yaml, built from
// the same option table that reads the file, so the two cannot drift:
// a test keeps the published ralph.schema.json equal to it, and checks
// that the schema accepts and rejects what the loader does.
func Schema() []byte {
	def := Defaults()
	props := map[string]any{
		"prices": map[string]any{"$ref": "#/$defs/prices"},
		"notifiers": map[string]any{
			"description": "services the run's events are posted to: Slack, Telegram, ntfy, a JSON webhook (docs/notifications-and-questions.md)",
			"type":        []string{"array", "null"},
			"items":       map[string]any{"$ref": "#/$defs/notifier"},
		},
		"roles": map[string]any{
			"description": "the steps of each iteration, each a fresh agent process: planners, then the executor (the run's agent), then a reviewer (docs/roles.md)",
			"type":        []string{"array", "null"},
			"items":       map[string]any{"$ref": "#/$defs/role"},
		},
		"worktree_setup": worktreeSetupSchema(),
		"hooks": map[string]any{
			"description":          "shell commands run after each iteration (on_iteration) and when the loop ends (on_finish), with ARCHITECT_* variables describing it",
			"type":                 []string{"object", "null"},
			"additionalProperties": false,
			"properties": map[string]any{
				"on_iteration": nullable(map[string]any{"type": "string", "description": "shell command run after each iteration"}),
				"on_finish":    nullable(map[string]any{"type": "string", "description": "shell command run when the loop ends"}),
			},
		},
	}
	for _, o := range options {
		if !o.yaml {
			continue
		}
		props[o.key] = o.schema(&def)
	}
	s := map[string]any{
		"$schema":              "https://json-schema.org/draft/2020-12/schema",
		"$id":                  SchemaURL,
		"title":                "architect ralph.yaml",
		"description":          "architect's loop configuration (architect loop -c ralph.yaml). Generated from architect's option table; see ralph.yaml.example.",
		"type":                 "object",
		"additionalProperties": false,
		"properties": map[string]any{
			"ralph_loop": map[string]any{
				"description":          "the loop's options; flags and ARCHITECT_* variables override them",
				"type":                 []string{"object", "null"},
				"additionalProperties": false,
				"properties":           props,
			},
			"prices": map[string]any{"$ref": "#/$defs/prices"},
		},
		"$defs": map[string]any{
			"duration": map[string]any{
				"description": "seconds (120, 1.5) or a Go duration (90s, 30m, 1h30m)",
				"anyOf": []any{
					map[string]any{"type": "number", "minimum": 0},
					map[string]any{"type": "string", "pattern": `^\s*(\d+(\.\d*)?|\.\d+)\s*$|^\s*((\d+(\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h))+\s*$`},
				},
			},
			"stringList": map[string]any{
				"description": "one string, or a list of strings",
				"anyOf": []any{
					map[string]any{"type": "string"},
					map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
				},
			},
			"notifier": notifierSchema(),
			"role":     roleSchema(),
			"candidate": map[string]any{
				"description":          "one candidate of a round: its agent, and the model or (for the command agent) the shell command",
				"type":                 "object",
				"additionalProperties": false,
				"required":             []string{"agent"},
				"properties": map[string]any{
					"agent":     map[string]any{"type": "string", "enum": agent.Names()},
					"model":     map[string]any{"type": "string"},
					"agent_cmd": map[string]any{"type": "string"},
				},
				"if":   map[string]any{"properties": map[string]any{"agent": map[string]any{"const": "command"}}},
				"then": map[string]any{"required": []string{"agent_cmd"}},
				"else": map[string]any{"not": map[string]any{"required": []string{"agent_cmd"}}},
			},
			"prices": map[string]any{
				"description": "prices of models in USD per million tokens, overriding the built-in table",
				"type":        []string{"object", "null"},
				"additionalProperties": map[string]any{
					"type":                 "object",
					"additionalProperties": false,
					"properties": map[string]any{
						"input":        map[string]any{"type": "number", "minimum": 0},
						"cached_input": map[string]any{"type": "number", "minimum": 0},
						"output":       map[string]any{"type": "number", "minimum": 0},
					},
				},
			},
		},
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		panic(fmt.Errorf("config: schema: %w", err))
	}
	return append(data, '\n')
}

// schema describes one option; def holds the defaults.
func (o option) schema(def *Config) map[string]any {
	m := map[string]any{"description": describe(o)}
	if o.key == "candidates" {
		// A number of copies of the run's agent, or a list of agents.
		m["anyOf"] = []any{
			map[string]any{"type": "integer", "minimum": o.min, "maximum": o.max},
			map[string]any{"type": "array", "minItems": 1, "maxItems": o.max, "items": map[string]any{"$ref": "#/$defs/candidate"}},
			map[string]any{"type": "null"},
		}
		m["default"] = def.Candidates
		return m
	}
	switch p := o.field(def).(type) {
	case *string:
		m["type"] = "string"
		if o.values != nil {
			m["enum"] = o.values()
		}
		if *p != "" {
			m["default"] = *p
		}
	case *int:
		m["type"] = "integer"
		m["minimum"] = o.min
		if o.max > 0 {
			m["maximum"] = o.max
		}
		m["default"] = *p
	case *float64:
		m["type"] = "number"
		m["minimum"] = o.min
		m["default"] = *p
	case *bool:
		m["type"] = "boolean"
		m["default"] = *p
	case *[]string:
		m["$ref"] = "#/$defs/stringList"
	case *time.Duration:
		m["$ref"] = "#/$defs/duration"
		if *p > 0 {
			m["default"] = FormatDuration(*p)
		}
	}
	return nullable(m)
}

// nullable lets a key be written with no value ("max_cost:" or null),
// which keeps the default.
func nullable(m map[string]any) map[string]any {
	if t, ok := m["type"].(string); ok {
		m["type"] = []string{t, "null"}
		if e, ok := m["enum"].([]string); ok {
			m["enum"] = append(anySlice(e), nil)
		}
		return m
	}
	ref := m["$ref"]
	delete(m, "$ref")
	m["anyOf"] = []any{map[string]any{"$ref": ref}, map[string]any{"type": "null"}}
	return m
}

func anySlice(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// describe is an option's help text without pflag's `NAME` quoting, and
// its flag and variable.
func describe(o option) string {
	d := strings.ReplaceAll(o.usage, "`", "")
	var also []string
	if o.flag != "-" {
		also = append(also, "--"+o.flagName())
	}
	if o.env {
		also = append(also, o.envName())
	}
	if len(also) > 0 {
		d += " (" + strings.Join(also, ", ") + ")"
	}
	return d
}
