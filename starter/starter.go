// Package starter holds what `architect init` and `architect template`
// write for a new project: the prompt templates (PROMPT.md for a plain run,
// the plan and build prompts of --mode) and a ralph.yaml whose checks are
// detected from the project's files.
package starter

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/architect-dev/architect/config"
	"go.yaml.in/yaml/v3"
)

// Files architect init writes.
const (
	PromptFile = "PROMPT.md"
	ConfigFile = "ralph.yaml"
)

// walkLimit bounds how many entries testGlobs looks at.
const walkLimit = 20000

// testGlobs lists the globs, among the usual ones, that match test files in
// dir, in a fixed order.
func testGlobs(dir string) []string {
	found := map[string]bool{}
	seen := 0
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if seen++; seen > walkLimit {
			return filepath.SkipAll
		}
		name := d.Name()
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() {
			switch name {
			case ".git", ".architect", "node_modules", "vendor", "target", ".venv", "venv", "__pycache__", "dist", "build":
				if rel != "." {
					return filepath.SkipDir
				}
			case "tests", "test":
				if rel == name {
					found[name+"/**"] = true
				}
			case "__tests__":
				found["**/__tests__/**"] = true
			}
			return nil
		}
		switch {
		case strings.HasSuffix(name, "_test.go"):
			found["**/*_test.go"] = true
		case strings.HasPrefix(name, "test_") && strings.HasSuffix(name, ".py"):
			found["**/test_*.py"] = true
		case strings.HasSuffix(name, "_test.py"):
			found["**/*_test.py"] = true
		case strings.Contains(name, ".test."):
			found["**/*.test.*"] = true
		case strings.Contains(name, ".spec."):
			found["**/*.spec.*"] = true
		}
		return nil
	})
	var out []string
	for _, g := range []string{"**/*_test.go", "**/test_*.py", "**/*_test.py", "**/*.test.*", "**/*.spec.*", "**/__tests__/**", "tests/**", "test/**"} {
		if found[g] {
			out = append(out, g)
		}
	}
	return out
}

// RalphYAML is the ralph.yaml architect init writes for p: the spec (or,
// with planBuild, the mode), the detected checks, the usual limits, and a
// commented suggestion to protect the test files found.
func RalphYAML(p Project, planBuild bool) string {
	var b strings.Builder
	b.WriteString(config.SchemaComment + "\n")
	b.WriteString("# ralph.yaml, written by `architect init`. `architect loop` in this folder\n")
	b.WriteString("# reads it (as -c ralph.yaml does); flags given to it beat its values.\n")
	if planBuild {
		b.WriteString("#   architect loop                # plan: writes IMPLEMENTATION_PLAN.md\n")
		b.WriteString("#   architect loop --mode build   # build: one task per iteration, one commit each\n")
	} else {
		b.WriteString("#   architect loop --dry-run      # what would run\n")
		b.WriteString("#   architect loop\n")
	}
	b.WriteString("# Every key is described in architect's ralph.yaml.example.\n\nralph_loop:\n")
	if planBuild {
		b.WriteString("  # The mode's prompt file is the specification: PROMPT_plan.md or\n")
		b.WriteString("  # PROMPT_build.md. Plan mode needs no checks; build mode does.\n")
		b.WriteString("  mode: plan\n\n")
	} else {
		b.WriteString("  # The task: re-read at every iteration, so edits take effect at once.\n")
		b.WriteString("  spec: " + PromptFile + "\n\n")
	}
	b.WriteString("  # Commands that must all exit 0; they run after every iteration, and\n")
	b.WriteString("  # the agent sees the failures in its next prompt.\n")
	if len(p.Checks) == 0 {
		// Left empty, not [], which would say "no checks, on purpose": a run
		// is refused until the user adds some or writes checks: [].
		b.WriteString("  checks:   # none detected: add the commands that must pass, e.g.\n")
		b.WriteString("  #  - make test\n")
	} else {
		fmt.Fprintf(&b, "  checks:   # detected from %s\n", strings.Join(p.Sources, ", "))
		for _, c := range p.Checks {
			fmt.Fprintf(&b, "    - %s\n", scalar(c))
		}
	}
	b.WriteString("  check_timeout: 120\n\n")
	switch {
	case p.Agent == "":
		b.WriteString("  # No agent CLI was found on PATH when this file was written: install\n")
		b.WriteString("  # one, or set agent_cmd to any command that reads the prompt on stdin.\n")
		b.WriteString("  agent: claude\n\n")
	case len(p.AgentsFound) > 1:
		fmt.Fprintf(&b, "  agent: %s   # installed: %s\n\n", p.Agent, strings.Join(p.AgentsFound, ", "))
	default:
		fmt.Fprintf(&b, "  agent: %s\n\n", p.Agent)
	}
	b.WriteString("  max_iterations: 25\n")
	b.WriteString("  # max_cost: 5        # USD\n")
	b.WriteString("  # max_time: 2h\n")
	b.WriteString("  # worktree: true     # work on branch architect/ralph-loop in .architect-ralph-worktree\n")
	if len(p.TestGlobs) > 0 {
		quoted := make([]string, len(p.TestGlobs))
		for i, g := range p.TestGlobs {
			quoted[i] = `"` + g + `"`
		}
		b.WriteString("\n  # The tests the agent must not change to make the checks pass:\n")
		fmt.Fprintf(&b, "  # protect: [%s]\n", strings.Join(quoted, ", "))
	}
	return b.String()
}

// scalar writes s as a YAML scalar, quoted only where YAML needs it.
func scalar(s string) string {
	out, err := yaml.Marshal(s)
	if err != nil {
		return fmt.Sprintf("%q", s)
	}
	return strings.TrimSuffix(string(out), "\n")
}
