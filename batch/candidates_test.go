package batch

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/architect-dev/architect/config"
	"github.com/matryer/is"
)

// Each task of a batch takes candidates, candidates_finish and
// candidates_lessons as it takes any loop option: its own value replaces
// the defaults' (a number replaces a list), and a task's list is its own.
func TestTasksTakeCandidates(t *testing.T) {
	is := is.New(t)
	path := writeFile(t, "b.yaml", `defaults:
  checks: [go test ./...]
  agent_cmd: my-agent
  candidates: 2
  candidates_lessons: off
tasks:
  - id: inherits
    task: first
  - id: three
    task: second
    candidates: 3
    candidates_finish: all
  - id: mixed
    task: third
    candidates_lessons: on
    candidates: [{agent: claude, model: opus}, {agent: command, agent_cmd: other-agent}]
  - id: one
    task: fourth
    candidates: 1
`)
	tasks, _, err := Load(path)
	is.NoErr(err)
	is.Equal(len(tasks), 4)
	inherits, three, mixed, one := tasks[0].Config, tasks[1].Config, tasks[2].Config, tasks[3].Config
	is.Equal(inherits.CandidateCount(), 2)
	is.Equal(inherits.CandidatesFinish, config.CandidatesFirst)
	is.Equal(inherits.CandidatesLessons, config.LessonsOff)
	is.Equal(three.CandidateCount(), 3)
	is.Equal(three.CandidatesFinish, config.CandidatesAll)
	is.Equal(mixed.CandidateAgents, []config.CandidateAgent{{Agent: "claude", Model: "opus"}, {Agent: "command", AgentCmd: "other-agent"}})
	is.Equal(mixed.CandidateCount(), 2)
	is.Equal(mixed.CandidatesLessons, config.LessonsOn)
	is.Equal(one.CandidateCount(), 1)
	is.Equal(len(inherits.CandidateAgents), 0)

	// A list in defaults: a task's number replaces it, and no task's
	// list is another's.
	path = writeFile(t, "b.yaml", `defaults:
  checks: [true]
  agent_cmd: my-agent
  candidates: [{agent: codex}, {agent: claude}]
tasks:
  - id: a
    task: t
  - id: b
    task: t
    candidates: 4
  - id: c
    task: t
    candidates: [{agent: gemini}]
  - id: d
    task: t
`)
	tasks, _, err = Load(path)
	is.NoErr(err)
	defaults := []config.CandidateAgent{{Agent: "codex"}, {Agent: "claude"}}
	is.Equal(tasks[0].Config.CandidateAgents, defaults)
	is.Equal(tasks[1].Config.CandidateCount(), 4)
	is.Equal(len(tasks[1].Config.CandidateAgents), 0)
	is.Equal(tasks[2].Config.CandidateAgents, []config.CandidateAgent{{Agent: "gemini"}})
	is.Equal(tasks[3].Config.CandidateAgents, defaults) // c's list did not write over the defaults'
	is.Equal(tasks[0].Config.CandidateAgents, defaults)
}

// A task's bad candidates are refused, named by the task and the line.
func TestTaskCandidatesRefused(t *testing.T) {
	for _, c := range []struct{ name, yaml, want string }{
		{"out of range", "tasks:\n  - id: a\n    task: t\n    checks: [true]\n    candidates: 17\n",
			`b.yaml:5: tasks.a.candidates: 17 is out of range (1 to 16)`},
		{"unknown agent", "tasks:\n  - id: a\n    task: t\n    checks: [true]\n    candidates: [{agent: nope}]\n",
			`b.yaml:5: tasks.a.candidates: candidate 1: "nope" names no agent architect knows`},
		{"unknown key", "tasks:\n  - id: a\n    task: t\n    checks: [true]\n    candidates:\n      - {agent: codex, modle: x}\n",
			`b.yaml:6: tasks.a.candidates: unknown key "modle" in candidate 1`},
		{"no checks", "defaults:\n  checks: []\ntasks:\n  - id: a\n    task: t\n    candidates: 2\n",
			`b.yaml:6: tasks.a.candidates: 2 candidates need checks to judge them`},
		{"finish", "tasks:\n  - id: a\n    task: t\n    checks: [true]\n    candidates_finish: best\n",
			`b.yaml:5: tasks.a.candidates_finish: "best" is neither first nor all`},
	} {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			path := writeFile(t, "b.yaml", c.yaml)
			_, _, err := Load(path)
			is.True(err != nil)
			var all []string
			for _, e := range err.(config.Errors) {
				all = append(all, strings.TrimPrefix(e.Error(), filepath.Dir(path)+"/"))
				is.True(e.Hint != "") // says how to fix it
			}
			text := strings.Join(all, "\n")
			if !strings.Contains(text, c.want) {
				t.Fatalf("errors:\n%s\nwant one containing %q", text, c.want)
			}
		})
	}
}
