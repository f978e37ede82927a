//go:build unix

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/internal/stubmodel"
)

// A batch of two tasks with the real Claude Code, confined, both at once:
// one credential broker serves both tasks' agents (one line says so), each
// agent's environment holds a made-up key and no real one, architect's
// /proc environ neither, the checks get none, and the stub model receives
// the real key on every request of both tasks.
func TestBrokerClaudeBatch(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	bin, rec := brokerWrapper(t, "claude")
	r := NewRun(t)
	dir := Fixture(t, "failing-go-test")
	// The same run for every agent: the script answers each request by its
	// own step and working folder, so the two tasks' requests may mix.
	script := &claudeScript{runs: []claudeRun{{File: "calc.go", Content: rightFix, Final: "Add adds now. <promise>COMPLETE</promise>"}}}
	srv := stubmodel.Anthropic(t, script.respond)
	r.Env = append(r.Env, claudeStubEnv(r, srv)...)
	file := filepath.Join(t.TempDir(), "batch.yaml")
	is.NoErr(os.WriteFile(file, []byte(`defaults:
  agent: claude
  agent_bin: `+bin+`
  model: claude-sonnet-4-5
  checks: [go test ./..., '! env | grep -q sk-ant-stub']
  max_iterations: 2
  sandbox: workspace
  sandbox_write: [`+rec+`]
tasks:
  - id: one
    task: make go test pass
  - id: two
    task: make go test pass
`), 0o644))
	res := r.Architect(dir, 5*time.Minute, "batch", file, "-C", dir, "--parallel", "2", "--json")
	is.Equal(res.ExitCode, 0) // res.Stderr
	var out struct {
		Success bool `json:"success"`
		Tasks   []struct {
			ID      string `json:"id"`
			Outcome string `json:"outcome"`
		} `json:"tasks"`
	}
	is.NoErr(json.Unmarshal([]byte(res.Stdout), &out))
	is.True(out.Success)
	is.Equal(len(out.Tasks), 2)
	is.Equal(strings.Count(res.Stderr, "credential broker: the claude agent reaches"), 1) // one broker for both tasks
	keptFromAgent(t, rec, "ANTHROPIC_API_KEY", "sk-ant-stub")
	upstreamGotRealKey(t, srv, "X-Api-Key", "sk-ant-stub")
	// Both tasks' agents went through it: each worktree's calc.go is fixed.
	for _, id := range []string{"one", "two"} {
		is.Equal(ReadFile(t, filepath.Join(dir, ".architect-worktrees", id, "calc.go")), rightFix)
	}
	r.NoLeftovers(dir)
}
