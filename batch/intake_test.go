package batch

import (
	"errors"
	"strings"
	"testing"

	"github.com/architect-dev/architect/config"
	"github.com/matryer/is"
)

// TestLoadSpecs: tasks from elsewhere get the shared settings of a batch
// file's defaults:, else of the project's ralph_loop: (less the keys a
// batch task sets itself), and keep their own id and text.
func TestLoadSpecs(t *testing.T) {
	specs := []Spec{{ID: "issue-1", Task: "Fix it\n\n$(not run)"}, {ID: "add-x-0123abcd", Task: "add x"}}
	cases := []struct {
		name, file, project string
	}{
		{"batch file", "defaults:\n  checks: [go test ./...]\n  max_iterations: 4\n  pull_request: true\n", ""},
		{"ralph.yaml", "", "ralph_loop:\n  task: the project's own task\n  worktree: true\n  events: ev.jsonl\n  checks: [go test ./...]\n  max_iterations: 4\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			file, project := "", ""
			if c.file != "" {
				file = writeFile(t, "shared.yaml", c.file)
			}
			if c.project != "" {
				project = writeFile(t, "ralph.yaml", c.project)
			}
			tasks, _, err := LoadSpecs(file, project, specs)
			is.NoErr(err)
			is.Equal(len(tasks), 2)
			for i, tk := range tasks {
				is.Equal(tk.ID, specs[i].ID)
				is.Equal(tk.Config.Task, specs[i].Task)
				is.Equal(tk.Config.Checks, []string{"go test ./..."})
				is.Equal(tk.Config.MaxIterations, 4)
				is.True(tk.Config.Worktree)
				is.Equal(tk.Config.WorktreeName, specs[i].ID)
				is.Equal(tk.PullRequest, c.file != "")
			}
		})
	}
}

func TestLoadSpecsRefuses(t *testing.T) {
	is := is.New(t)
	specs := []Spec{{ID: "a", Task: "a"}, {ID: "b", Task: "b"}}
	_, _, err := LoadSpecs(writeFile(t, "b.yaml", "tasks:\n  - id: x\n    task: x\n"), "", specs)
	var ce config.Errors
	is.True(errors.As(err, &ce))
	is.True(strings.Contains(ce[0].Msg, "has tasks: and --from gives the tasks"))
	// No checks anywhere: said once, by the setting.
	_, _, err = LoadSpecs(writeFile(t, "d.yaml", "defaults:\n  max_iterations: 2\n"), "", specs)
	is.True(errors.As(err, &ce))
	is.Equal(len(ce), 1)
	is.Equal(ce[0].Key, "checks")
}
