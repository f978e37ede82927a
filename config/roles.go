package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/architect-dev/architect/agent"
)

// Role is one entry of roles: in ralph.yaml: a step of every iteration,
// run by a fresh agent process with its own agent, model and prompt.
// Planners run first, then the executor (the run's agent), then the
// reviewer (the same reviewer as --reviewer).
type Role struct {
	Name  string `json:"name,omitempty"`
	Role  string `json:"role"` // RolePlanner, RoleExecutor or RoleReviewer
	Agent string `json:"agent,omitempty"`
	Model string `json:"model,omitempty"`
	// Prompt is a template file (relative to the repository, read each
	// iteration) or the instructions themselves.
	Prompt string `json:"prompt,omitempty"`
}

// The roles an entry of roles: can take.
const (
	RolePlanner  = "planner"
	RoleExecutor = "executor"
	RoleReviewer = "reviewer"
)

// RoleKinds lists the roles, in the order they run.
func RoleKinds() []string { return []string{RolePlanner, RoleExecutor, RoleReviewer} }

var roleKeys = []string{"name", "role", "agent", "model", "prompt"}

const rolesHint = "roles: [{role: planner, agent: claude, model: opus, prompt: prompts/plan.md}, {role: reviewer, agent: codex}] (see docs/roles.md)"

// loadRoles reads roles: [{name: N, role: planner, agent: A, model: M, prompt: P}, ...].
func loadRoles(path string, m *yaml.Node, c *Config, src Sources) Errors {
	var r *Role
	var list []Role
	errs, given := loadMappings(path, m, mappings{
		name: "roles", what: "role", shape: "role, agent, model, prompt", hint: rolesHint, keys: roleKeys,
		begin: func() { r = &Role{} },
		field: func(key string, k, v *yaml.Node) *Error {
			if err := scalarValue(path, key, k, v, rolesHint); err != nil {
				return err
			}
			switch k.Value {
			case "name":
				r.Name = v.Value
			case "role":
				r.Role = v.Value
			case "agent":
				r.Agent = v.Value
			case "model":
				r.Model = v.Value
			case "prompt":
				r.Prompt = v.Value
			}
			return nil
		},
		end: func(string, *yaml.Node) Errors { list = append(list, *r); return nil },
	})
	if given {
		c.Roles = list
		src["roles"] = at(path, m)
	}
	return errs
}

// Planners are the roles: entries that plan, in order.
func (c Config) Planners() []Role {
	var ps []Role
	for _, r := range c.Roles {
		if r.Role == RolePlanner {
			ps = append(ps, r)
		}
	}
	return ps
}

// reviewerSpec is the reviewer as AGENT[:MODEL]: --reviewer, or the
// reviewer entry of roles:.
func (c Config) reviewerSpec() string {
	if strings.TrimSpace(c.Reviewer) != "" {
		return c.Reviewer
	}
	for _, r := range c.Roles {
		if r.Role == RoleReviewer && strings.TrimSpace(r.Agent) != "" {
			return r.spec()
		}
	}
	return ""
}

// ReviewerRole is the reviewer entry of roles: (zero when there is none).
func (c Config) ReviewerRole() Role {
	for _, r := range c.Roles {
		if r.Role == RoleReviewer {
			return r
		}
	}
	return Role{}
}

func (r Role) spec() string {
	if r.Model == "" {
		return r.Agent
	}
	return r.Agent + ":" + r.Model
}

// Label names the role in records and logs: its name, else its role.
func (r Role) Label() string {
	if r.Name != "" {
		return r.Name
	}
	return r.Role
}

// RoleAgent is the agent of a planner or reviewer entry.
func (c Config) RoleAgent(r Role) agent.Config {
	ac := agent.Config{Name: r.Agent, Model: r.Model, Prices: c.Prices}
	switch {
	case r.Agent == "command":
		ac.Cmd, ac.Model = r.Model, ""
	case r.Agent == c.Agent:
		ac.Bin, ac.Args = c.AgentBin, slices.Clone(c.AgentArgs)
	}
	return ac
}

// PromptFile is the template file a role's prompt names, "" when the
// prompt is the instructions themselves: one line that names an existing
// file, or ends in .md, .txt or .tmpl, or holds a path separator.
func (r Role) PromptFile(dir string) string {
	p := strings.TrimSpace(r.Prompt)
	if p == "" || strings.Contains(p, "\n") {
		return ""
	}
	full := p
	if !filepath.IsAbs(full) && dir != "" {
		full = filepath.Join(dir, p)
	}
	if _, err := os.Stat(full); err == nil {
		return full
	}
	if strings.ContainsRune(p, '/') || strings.ContainsRune(p, filepath.Separator) || slices.Contains([]string{".md", ".txt", ".tmpl"}, filepath.Ext(p)) {
		return full
	}
	return ""
}

// RolePrompt is a role's instructions: its template file read now, or the
// inline text.
func (r Role) RolePrompt(dir string) (string, error) {
	if f := r.PromptFile(dir); f != "" {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", fmt.Errorf("the %s's prompt template: %w", r.Label(), err)
		}
		return string(b), nil
	}
	return r.Prompt, nil
}

// validateRoles reports the problems of roles: unknown roles, more than
// one executor or reviewer, a planner or reviewer without an agent, a
// template that does not exist, and what roles cannot be combined with.
func (c *Config) validateRoles(ps *problems) {
	if len(c.Roles) == 0 {
		return
	}
	count := map[string]int{}
	for i, r := range c.Roles {
		key := fmt.Sprintf("roles[%d]", i)
		if !slices.Contains(RoleKinds(), r.Role) {
			ps.add(key, fmt.Sprintf("role %q is not one of %s", r.Role, strings.Join(RoleKinds(), ", ")), rolesHint)
			continue
		}
		count[r.Role]++
		if r.Role == RoleExecutor {
			if r.Agent != "" || r.Model != "" || r.Prompt != "" {
				ps.add(key, "the executor is the run's agent: its entry takes no agent, model or prompt", "set the executor's agent and model with agent: and model: (or --agent, --model), and drop them from the roles: entry")
			}
			continue
		}
		if strings.TrimSpace(r.Agent) == "" {
			ps.add(key, "a "+r.Role+" needs an agent", "give it one: {role: "+r.Role+", agent: claude, model: opus} (agent: command with model: CMD runs a shell command)")
			continue
		}
		if f := r.PromptFile(c.Dir); f != "" {
			if _, err := os.Stat(f); err != nil {
				ps.add(key, fmt.Sprintf("the %s's prompt template %s does not exist", r.Label(), r.Prompt), "create the file (a path relative to the repository), or write the instructions themselves in prompt:")
			}
		}
	}
	if count[RoleExecutor] > 1 {
		ps.add("roles", "more than one executor", "an iteration has one executor, the run's agent: keep one {role: executor} entry (or none)")
	}
	if count[RoleReviewer] > 1 {
		ps.add("roles", "more than one reviewer", "keep one {role: reviewer} entry")
	}
	if count[RoleReviewer] > 0 && strings.TrimSpace(c.Reviewer) != "" {
		ps.add("roles", "a reviewer is given twice: in roles: and by --reviewer (reviewer:)", "keep one: drop --reviewer (reviewer: in the config file, ARCHITECT_REVIEWER) or the roles: reviewer entry")
	}
	if count[RolePlanner] > 0 && c.CandidateCount() > 1 {
		ps.add("roles", "a planner does not work with candidates yet", "drop --candidates or the planner")
	}
	// Order: planners, the executor, the reviewer.
	last := -1
	for _, r := range c.Roles {
		k := slices.Index(RoleKinds(), r.Role)
		if k < 0 {
			continue
		}
		if k < last {
			ps.add("roles", "the roles are out of order: planners come first, then the executor, then the reviewer", "reorder roles: as they run: planner(s), executor, reviewer")
			break
		}
		last = k
	}
}

// roleSchema is the JSON Schema of one role.
func roleSchema() map[string]any {
	str := func(d string) map[string]any { return map[string]any{"type": "string", "description": d} }
	return map[string]any{
		"description":          "a step of each iteration, run by a fresh agent process",
		"type":                 "object",
		"additionalProperties": false,
		"required":             []string{"role"},
		"properties": map[string]any{
			"name":   str("the role's name in logs and records"),
			"role":   map[string]any{"type": "string", "enum": RoleKinds()},
			"agent":  str("the role's agent (planner, reviewer); the executor is the run's agent"),
			"model":  str("the agent's model (agent: command: the shell command)"),
			"prompt": str("a template file relative to the repository, read each iteration, or the instructions themselves"),
		},
	}
}
