package batch

import (
	"errors"
	"fmt"
	"strings"

	"github.com/architect-dev/architect/config"
	"go.yaml.in/yaml/v3"
)

// Spec is a task whose text comes from elsewhere than a batch file (a
// plan's item, an issue: package intake): its id and its task text.
type Spec struct {
	ID, Task string
	Issue    int // the GitHub issue the task comes from; 0 for none
}

// LoadSpecs makes the tasks of specs, each with the shared settings
// (checks, agent, limits, candidates, pull_request) of, in this order of
// choice: the defaults: of the batch file at path (which must then have
// no tasks:); else the ralph_loop: section of the project's configuration
// at project (a ralph.yaml; its task, spec and worktree keys, which a
// batch task sets itself, are left out); else architect's defaults. Every
// task is checked as a batch file's task is.
func LoadSpecs(path, project string, specs []Spec) ([]Task, []string, error) {
	extra := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	for _, s := range specs {
		extra.Content = append(extra.Content, &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{
			str("id"), str(s.ID), str("task"), str(s.Task),
		}})
	}
	if path != "" {
		return withIssues(specs)(shared(path, specs)(load(path, extra)))
	}
	root := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	src := "--from"
	if project != "" {
		src = project
		data, e := config.ReadText(project, "configuration file")
		if e != nil {
			return nil, nil, config.Errors{e}
		}
		var doc yaml.Node
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return nil, nil, config.Errors{config.YAMLError(project, data, err)}
		}
		if len(doc.Content) > 0 && doc.Content[0].Kind == yaml.MappingNode {
			top := doc.Content[0]
			for i := 0; i+1 < len(top.Content); i += 2 {
				if top.Content[i].Value == "ralph_loop" && top.Content[i+1].Kind == yaml.MappingNode {
					defaults := withoutKeys(top.Content[i+1], "task", "spec", "worktree", "worktree_name", "events")
					root.Content = append(root.Content, str("defaults"), defaults)
				}
			}
		}
	}
	return withIssues(specs)(shared(src, specs)(fromRoot(src, root, extra)))
}

// withIssues gives each task the issue its spec comes from.
func withIssues(specs []Spec) func([]Task, []string, error) ([]Task, []string, error) {
	return func(tasks []Task, warnings []string, err error) ([]Task, []string, error) {
		issue := map[string]int{}
		for _, s := range specs {
			issue[s.ID] = s.Issue
		}
		for i := range tasks {
			tasks[i].Issue = issue[tasks[i].ID]
		}
		return tasks, warnings, err
	}
}

// shared turns the problems every task of specs has alike (they differ
// only in their text: a problem is the shared settings') into one each:
// named by the setting, not the task, and said once.
func shared(path string, specs []Spec) func([]Task, []string, error) ([]Task, []string, error) {
	return func(tasks []Task, warnings []string, err error) ([]Task, []string, error) {
		var ce config.Errors
		if !errors.As(err, &ce) {
			return tasks, warnings, err
		}
		var out config.Errors
		seen := map[string]bool{}
		for _, e := range ce {
			for _, s := range specs {
				if rest, ok := strings.CutPrefix(e.Key, "tasks."+s.ID+"."); ok {
					e.Key = rest
					if e.Source == path+":0" {
						e.Source = path
					}
				}
			}
			if k := e.Source + "\x00" + e.Key + "\x00" + e.Msg; !seen[k] {
				seen[k] = true
				out = append(out, e)
			}
		}
		return nil, nil, out
	}
}

func str(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

// noTasks refuses a batch file's tasks: when the tasks come from --from.
func noTasks(path string, tasks *yaml.Node) config.Errors {
	if tasks == nil {
		return nil
	}
	return config.Errors{{Source: at(path, tasks), Key: "tasks", Msg: fmt.Sprintf("%s has tasks: and --from gives the tasks", path),
		Hint: "with --from, the batch file gives only the shared settings (defaults:): drop its tasks:, or drop --from"}}
}
