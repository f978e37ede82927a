// Package batch runs many loops from one file: a defaults: section of loop
// options and a tasks: list, each task with an id and its own options. Each
// task runs its own loop (package loop) in its own worktree
// (.architect-worktrees/ID) on its own branch (architect/ID), a few at a
// time; one task's failure does not stop the others. The file is read
// through config's option table, so a key means the same thing, and is
// checked the same way, as in ralph.yaml.
package batch

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/architect-dev/architect/config"
	"go.yaml.in/yaml/v3"
)

// Task is one loop of a batch: its id (which names its worktree and
// branch) and its validated configuration (defaults + its own options).
type Task struct {
	ID     string
	Line   int // where the task starts in the file
	Config config.Config
	// PullRequest: when the task succeeds, push its branch and open or
	// update its one pull request (pull_request: in the file).
	PullRequest bool
	// Issue is the GitHub issue the task comes from (batch --from
	// github-issues): its pull request closes it. 0 for none.
	Issue int
}

// batchKeys are the keys a batch file's defaults: and tasks take besides
// the loop's options.
var batchKeys = []string{"id", "pull_request"}

// Load reads and validates a batch file. It returns every problem at once
// as config.Errors, each naming the file and line, and the key as
// defaults.KEY or tasks.ID.KEY; and warnings worth printing.
func Load(path string) ([]Task, []string, error) { return load(path, nil) }

// load is Load; extra, when not nil, is the tasks: list, which the file
// then must not have.
func load(path string, extra *yaml.Node) ([]Task, []string, error) {
	data, e := config.ReadText(path, "batch file")
	if e != nil {
		e.Hint = "check the path (see ralph-batch.yaml.example for the format)"
		return nil, nil, config.Errors{e}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, nil, config.Errors{config.YAMLError(path, data, err)}
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, nil, config.Errors{{Source: path, Msg: "a batch file is a mapping with a tasks: list (and optionally defaults:)", Hint: "see ralph-batch.yaml.example"}}
	}
	return fromRoot(path, doc.Content[0], extra)
}

// fromRoot reads a batch file's top-level mapping, as load.
func fromRoot(path string, root, extra *yaml.Node) ([]Task, []string, error) {
	var defaults, tasks *yaml.Node
	var errs config.Errors
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "defaults":
			defaults = v
		case "tasks":
			tasks = v
		default:
			errs = append(errs, &config.Error{Source: at(path, k), Key: k.Value, Msg: fmt.Sprintf("unknown key %q at the top level", k.Value), Hint: "a batch file has defaults: and tasks: only"})
		}
	}
	if extra != nil {
		errs = append(errs, noTasks(path, tasks)...)
		tasks = extra
	}
	base := config.Defaults()
	baseSrc := config.Sources{}
	basePR := false
	if defaults != nil {
		errs = append(errs, worktreeKeys(path, "defaults.", defaults)...)
		errs = append(errs, boolKey(path, "defaults.", defaults, "pull_request", &basePR)...)
		errs = append(errs, config.ApplyYAML(path, "defaults.", "defaults", withoutKeys(defaults, "worktree", "worktree_name", "events", "pull_request"), &base, baseSrc)...)
	}
	if tasks == nil || tasks.Kind != yaml.SequenceNode || len(tasks.Content) == 0 {
		n := root
		if tasks != nil {
			n = tasks
		}
		errs = append(errs, &config.Error{Source: at(path, n), Key: "tasks", Msg: "no tasks: give a list of tasks, each with an id", Hint: "tasks:\n  - id: fix-auth\n    task: make the auth tests pass"})
		return nil, nil, errs
	}
	var out []Task
	var warnings []string
	seen := map[string]int{}
	for i, tn := range tasks.Content {
		t, warns, terrs := loadTask(path, i, tn, base, baseSrc, seen)
		t.PullRequest = basePR
		if tn.Kind == yaml.MappingNode {
			terrs = append(terrs, boolKey(path, taskName(i, tn)+".", tn, "pull_request", &t.PullRequest)...)
		}
		errs = append(errs, terrs...)
		for _, w := range warns {
			if !slices.Contains(warnings, w) {
				warnings = append(warnings, w)
			}
		}
		out = append(out, t)
	}
	if len(errs) > 0 {
		return nil, nil, errs
	}
	return out, warnings, nil
}

func loadTask(path string, i int, tn *yaml.Node, base config.Config, baseSrc config.Sources, seen map[string]int) (Task, []string, config.Errors) {
	name := fmt.Sprintf("tasks[%d]", i)
	if tn.Kind != yaml.MappingNode {
		return Task{}, nil, config.Errors{{Source: at(path, tn), Key: name, Msg: "each task must be a mapping with an id and loop options", Hint: "- id: fix-auth\n    task: make the auth tests pass"}}
	}
	t := Task{Line: tn.Line}
	var errs config.Errors
	for j := 0; j+1 < len(tn.Content); j += 2 {
		if k, v := tn.Content[j], tn.Content[j+1]; k.Value == "id" {
			t.ID = v.Value
			switch {
			case v.Kind != yaml.ScalarNode || v.Value == "":
				errs = append(errs, &config.Error{Source: at(path, v), Key: name + ".id", Msg: "must be a non-empty name", Hint: "an id names the task's worktree and branch, e.g. fix-auth"})
			case !config.ValidWorktreeName(v.Value):
				errs = append(errs, &config.Error{Source: at(path, v), Key: name + ".id", Msg: fmt.Sprintf("%q is not usable as a worktree and branch name", v.Value), Hint: "use letters, digits, '.', '_' and '-', starting with a letter or digit, at most 100 of them"})
			case seen[v.Value] > 0:
				errs = append(errs, &config.Error{Source: at(path, v), Key: name + ".id", Msg: fmt.Sprintf("%q is also the id of the task on line %d", v.Value, seen[v.Value]), Hint: "give every task its own id"})
			default:
				seen[v.Value] = v.Line
				name = "tasks." + v.Value
			}
		}
	}
	if t.ID == "" && len(errs) == 0 {
		errs = append(errs, &config.Error{Source: at(path, tn), Key: name + ".id", Msg: "the task has no id", Hint: "add id: NAME; it names the task's worktree (.architect-worktrees/NAME) and branch (architect/NAME)"})
	}
	cfg := base
	cfg.Prices = maps.Clone(base.Prices)
	src := maps.Clone(baseSrc)
	errs = append(errs, worktreeKeys(path, name+".", tn)...)
	errs = append(errs, config.ApplyYAML(path, name+".", "a task", withoutKeys(tn, slices.Concat(batchKeys, []string{"worktree", "worktree_name", "events"})...), &cfg, src)...)
	if len(errs) > 0 {
		return t, nil, errs
	}
	cfg.Worktree, cfg.WorktreeName = true, t.ID
	warnings, err := cfg.Validate(src)
	if err != nil {
		var ce config.Errors
		if !errors.As(err, &ce) {
			return t, nil, config.Errors{{Source: at(path, tn), Key: name, Msg: err.Error()}}
		}
		for _, e := range ce {
			if e.Key == "task" && e.Source == "" {
				e.Hint = "give the task a task: (or a spec: file), or set one in defaults:"
			}
			e.Key = name + "." + e.Key
			if e.Source == "" {
				e.Source = at(path, tn)
			}
			errs = append(errs, e)
		}
		return t, nil, errs
	}
	for k, w := range warnings {
		warnings[k] = "task " + t.ID + ": " + w
	}
	t.Config = cfg
	return t, warnings, nil
}

// taskName is how errors name task i: tasks.ID, or tasks[i] without a
// usable id.
func taskName(i int, tn *yaml.Node) string {
	for j := 0; j+1 < len(tn.Content); j += 2 {
		if k, v := tn.Content[j], tn.Content[j+1]; k.Value == "id" && v.Kind == yaml.ScalarNode && config.ValidWorktreeName(v.Value) {
			return "tasks." + v.Value
		}
	}
	return fmt.Sprintf("tasks[%d]", i)
}

// boolKey reads key of mapping m, when there, into *out: true or false.
func boolKey(path, prefix string, m *yaml.Node, key string, out *bool) config.Errors {
	if m.Kind != yaml.MappingNode {
		return nil
	}
	for j := 0; j+1 < len(m.Content); j += 2 {
		if k, v := m.Content[j], m.Content[j+1]; k.Value == key {
			if v.Kind != yaml.ScalarNode || v.Decode(out) != nil {
				return config.Errors{{Source: at(path, v), Key: prefix + key, Msg: fmt.Sprintf("%s must be true or false, not %q", key, v.Value), Hint: key + ": true"}}
			}
		}
	}
	return nil
}

// worktreeKeys reports worktree options, which a batch sets itself.
func worktreeKeys(path, prefix string, m *yaml.Node) config.Errors {
	var errs config.Errors
	if m.Kind != yaml.MappingNode {
		return nil
	}
	for j := 0; j+1 < len(m.Content); j += 2 {
		switch k := m.Content[j]; k.Value {
		case "worktree", "worktree_name":
			errs = append(errs, &config.Error{Source: at(path, k), Key: prefix + k.Value, Msg: "a batch runs every task in its own worktree, named after its id", Hint: "drop " + k.Value + ": task ID runs in .architect-worktrees/ID on branch architect/ID"})
		case "events":
			errs = append(errs, &config.Error{Source: at(path, k), Key: prefix + k.Value, Msg: "a batch cannot stream several tasks' events to one place", Hint: "drop events: each task's events are in .architect-worktrees/ID/.architect/events.jsonl"})
		}
	}
	return errs
}

// withoutKeys returns a copy of mapping m without the given keys.
func withoutKeys(m *yaml.Node, keys ...string) *yaml.Node {
	if m.Kind != yaml.MappingNode {
		return m
	}
	c := *m
	c.Content = nil
	for j := 0; j+1 < len(m.Content); j += 2 {
		if !slices.Contains(keys, m.Content[j].Value) {
			c.Content = append(c.Content, m.Content[j], m.Content[j+1])
		}
	}
	return &c
}

func at(path string, n *yaml.Node) string { return fmt.Sprintf("%s:%d", path, n.Line) }

// Matrix is the JSON for a GitHub Actions strategy.matrix with one entry
// per task: {"task":["a","b"]}, used as ${{ matrix.task }}.
func Matrix(tasks []Task) map[string][]string {
	ids := make([]string, 0, len(tasks))
	for _, t := range tasks {
		ids = append(ids, t.ID)
	}
	return map[string][]string{"task": ids}
}

// Only returns the task with id, or an error listing the ids there are.
func Only(tasks []Task, id string) ([]Task, error) {
	var ids []string
	for _, t := range tasks {
		if t.ID == id {
			return []Task{t}, nil
		}
		ids = append(ids, t.ID)
	}
	return nil, config.Errors{{Source: "--only", Key: "only", Msg: fmt.Sprintf("no task %q in the batch", id), Hint: "the tasks are: " + strings.Join(ids, ", ")}}
}
