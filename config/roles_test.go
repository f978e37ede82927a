package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"
)

func TestRolesSection(t *testing.T) {
	is := is.New(t)
	path := writeFile(t, "r.yaml", `ralph_loop:
  task: t
  checks: ["true"]
  roles:
    - {name: plan, role: planner, agent: claude, model: opus, prompt: "Plan in steps."}
    - {role: executor}
    - {role: reviewer, agent: codex, model: gpt-5.5, prompt: "Be strict."}
`)
	c, err := loadFileOnly(path)
	is.NoErr(err)
	is.Equal(len(c.Roles), 3)
	is.Equal(c.Planners(), []Role{{Name: "plan", Role: RolePlanner, Agent: "claude", Model: "opus", Prompt: "Plan in steps."}})
	ac, ok := c.ReviewerAgent() // the roles: reviewer is the reviewer
	is.True(ok)
	is.Equal(AgentLabel(ac), "codex:gpt-5.5")
	is.Equal(c.ReviewerRole().Prompt, "Be strict.")
	text, err := c.Planners()[0].RolePrompt(c.Dir)
	is.NoErr(err)
	is.Equal(text, "Plan in steps.") // inline instructions, not a file
}

func TestRolePromptFile(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	is.NoErr(os.WriteFile(filepath.Join(dir, "plan.md"), []byte("from the file"), 0o644))
	r := Role{Role: RolePlanner, Agent: "claude", Prompt: "plan.md"}
	is.Equal(r.PromptFile(dir) != "", true)
	text, err := r.RolePrompt(dir)
	is.NoErr(err)
	is.Equal(text, "from the file")
	is.Equal(Role{Prompt: "Plan the next step."}.PromptFile(dir), "")                // a sentence
	is.True(strings.HasSuffix(Role{Prompt: "prompts/x.md"}.PromptFile(dir), "x.md")) // a path, missing
}

func TestRoleProblems(t *testing.T) {
	cases := []struct{ yaml, want string }{
		{"[{role: critic, agent: codex}]", `role "critic" is not one of planner, executor, reviewer`},
		{"[{role: executor}, {role: executor}]", "more than one executor"},
		{"[{role: reviewer, agent: codex}, {role: reviewer, agent: claude}]", "more than one reviewer"},
		{"[{role: planner}]", "a planner needs an agent"},
		{"[{role: reviewer, model: x}]", "a reviewer needs an agent"},
		{"[{role: executor, agent: codex}]", "the executor is the run's agent"},
		{"[{role: planner, agent: codex, prompt: prompts/missing.md}]", "prompt template prompts/missing.md does not exist"},
		{"[{role: reviewer, agent: codex}, {role: planner, agent: codex}]", "out of order"},
		{"[{role: planner, agent: codex, temperature: 1}]", `unknown key "temperature" in roles[0]`},
		{"{role: planner}", "must be a list of roles"},
		{"[{role: reviewer, agent: 'nope:x'}]", "names no agent"},
	}
	for _, c := range cases {
		t.Run(c.want, func(t *testing.T) {
			is := is.New(t)
			cfg, err := loadFileOnly(writeFile(t, "bad.yaml", "ralph_loop:\n  task: t\n  checks: ['true']\n  roles: "+c.yaml+"\n"))
			if err == nil {
				_, err = cfg.Validate(Sources{})
			}
			is.True(err != nil)
			is.True(strings.Contains(err.Error(), c.want)) // names the problem
		})
	}
}
