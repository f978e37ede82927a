package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// writeFiles writes each name → text into dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A batch file is checked whole before anything runs: each error names the
// file and line, the task and the key.
func TestBatchFileCheckedWhole(t *testing.T) {
	repo := gitRepo(t)
	work := filepath.Dir(repo)
	writeFiles(t, work, map[string]string{
		"bad.yaml": `defaults:
  agent_cmd: fake-agent
  max_iterations: many
tasks:
  - id: beta
    task: t
    max_cost: lots
  - id: gamma
    chekcs: [true]
  - id: no good
    task: t
  - id: beta
    task: t
  - id: delta
    worktree_name: x
    task: t
`,
		"range.yaml": `defaults: {agent_cmd: fake-agent, checks: [true]}
tasks:
  - id: one
    task: t
  - id: two
    max_iterations: 0
    task: t
  - id: three
`,
		"good.yaml": `defaults: {agent_cmd: fake-agent, checks: [true], task: shared task}
tasks:
  - id: one
  - id: two
    max_iterations: 3
  - id: three
`,
		"empty.yaml": `tasks: []
`,
	})
	r := mainIn(t, work, "batch", "bad.yaml", "-C", "repo").status(t, 2)
	for _, w := range []string{
		`architect: error: bad.yaml:3: defaults.max_iterations: "many" is not a whole number`,
		`architect: error: bad.yaml:7: tasks.beta.max_cost: "lots" is not a number`,
		`architect: error: bad.yaml:9: tasks.gamma: unknown key "chekcs" in a task`,
		`architect: hint: did you mean "checks"\?`,
		`architect: error: bad.yaml:10: tasks\[2\].id: "no good" is not usable as a worktree and branch name`,
		`architect: error: bad.yaml:12: tasks\[3\].id: "beta" is also the id of the task on line 5`,
		`architect: error: bad.yaml:15: tasks.delta.worktree_name: a batch runs every task in its own worktree`,
	} {
		has(t, "batch bad.yaml", r.stderr, w)
	}
	if r.stdout != "" {
		t.Errorf("batch bad.yaml wrote on stdout: %q", r.stdout)
	}
	if _, err := os.Stat(filepath.Join(repo, ".architect-worktrees")); !os.IsNotExist(err) {
		t.Errorf("batch bad.yaml made .architect-worktrees (%v)", err)
	}

	r = mainIn(t, work, "batch", "range.yaml", "-C", "repo").status(t, 2)
	has(t, "batch range.yaml", r.stderr, `architect: error: range.yaml:6: tasks.two.max_iterations: 0 is out of range`)
	has(t, "batch range.yaml", r.stderr, `architect: error: range.yaml:8: tasks.three.task: no task given`)
	has(t, "batch range.yaml", r.stderr, `hint: give the task a task: \(or a spec: file\)`)
	lacks(t, "batch range.yaml", r.stderr, `tasks.one`)

	r = mainIn(t, work, "batch", "empty.yaml", "-C", "repo").status(t, 2)
	has(t, "batch empty.yaml", r.stderr, `architect: error: empty.yaml:1: tasks: no tasks`)

	r = mainIn(t, work, "batch", "missing.yaml", "-C", "repo").status(t, 2)
	has(t, "batch missing.yaml", r.stderr, `architect: error: missing.yaml: cannot read the batch file`)

	r = mainIn(t, work, "batch").status(t, 2)
	has(t, "batch", r.stderr, `expected one batch FILE`)

	// --matrix prints one entry per task for strategy.matrix
	r = mainIn(t, work, "batch", "good.yaml", "--matrix").status(t, 0)
	has(t, "batch --matrix", r.stdout, `^\{"task":\["one","two","three"\]\}$`)
	if r.stderr != "" {
		t.Errorf("batch --matrix wrote on stderr: %q", r.stderr)
	}
}

// A configuration file's unknown keys and bad values name the key and the
// line; a missing file is said so.
func TestConfigFileErrors(t *testing.T) {
	repo := gitRepo(t)
	work := filepath.Dir(repo)
	writeFiles(t, work, map[string]string{"bad.yaml": "ralph_loop:\n  task: x\n  max_iteration: 3\n  check_timeout: soon\ncolour: blue\n"})
	r := mainIn(t, work, "loop", "-c", "bad.yaml", "-C", "repo").status(t, 2)
	has(t, "loop -c bad.yaml", r.stderr, `architect: error: bad.yaml:3: unknown key "max_iteration" in ralph_loop`)
	has(t, "loop -c bad.yaml", r.stderr, `architect: hint: did you mean "max_iterations"\?`)
	has(t, "loop -c bad.yaml", r.stderr, `bad.yaml:4: check_timeout: "soon" is not a duration`)
	has(t, "loop -c bad.yaml", r.stderr, `bad.yaml:5: unknown key "colour" in top level`)

	r = mainIn(t, work, "loop", "-c", "missing.yaml", "-C", "repo").status(t, 2)
	has(t, "loop -c missing.yaml", r.stderr, `missing.yaml: cannot read the configuration file`)
}
