//go:build unix

package e2e

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/internal/agentbin"
	"github.com/architect-dev/architect/internal/stubmodel"
	"github.com/architect-dev/architect/runlog/runlogtest"
)

// Mixed agents compete in one round (issue 37): ralph.yaml's candidates
// list names Claude Code and Codex, each talking to a stub model of its
// own protocol on 127.0.0.1 (the Anthropic stub for Claude, the OpenAI
// one for Codex), so each gets its own answer: Claude's makes Add
// multiply (the check still fails, no completion), Codex's makes it add
// and declares completion. Both run, in their own worktrees, and Codex's
// change is kept.
func TestCandidatesClaudeAndCodexCompete(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	claudeBin, codexBin := agentbin.Path(t, "claude"), agentbin.Path(t, "codex")
	r := NewRun(t)
	dir := Fixture(t, "failing-go-test")

	claude := &claudeScript{runs: []claudeRun{{File: "calc.go", Content: wrongFix, Final: "I changed Add; it should work now."}}}
	anthropic := stubmodel.Anthropic(t, claude.respond)
	codex := &tokenScript{runs: []tokenRun{{Call: codexPatch("-", "+"), Final: "Add adds now. <promise>COMPLETE</promise>"}}, toolOutputs: codexToolOutputs}
	openai := stubmodel.OpenAI(t, codex.respond)

	cfg := filepath.Join(r.Root, "ralph.yaml")
	is.NoErr(os.WriteFile(cfg, []byte("ralph_loop:\n  max_iterations: 2\n  backoff_cap: 1s\n  candidates_finish: all\n"+
		"  candidates:\n    - {agent: claude, model: claude-sonnet-4-5}\n    - {agent: codex, model: gpt-5.5}\n"+codexYAMLPrice), 0o644))
	// A candidate's agent runs its usual executable, found on PATH.
	path := filepath.Dir(claudeBin)
	if d := filepath.Dir(codexBin); d != path {
		path += string(os.PathListSeparator) + d
	}
	r.Env = withEnv(r.Env, "PATH="+path+string(os.PathListSeparator)+os.Getenv("PATH"))
	r.Env = append(append(r.Env, claudeStubEnv(r, anthropic)...), codexStubEnv(t, r, openai)...)

	res := r.Architect(dir, 5*time.Minute, "loop", "make go test pass", "-c", cfg, "--check", "go test ./...", "--json", "-C", dir)
	// Each agent ran as it does as the run's own agent (its sandbox
	// grants, its credentials): neither failed to start.
	for _, it := range runlogtest.Result(t, dir).Iterations {
		for _, c := range it.Candidates {
			if c.Error != nil {
				t.Errorf("iteration %d, candidate %d (%s): %s", it.Iteration, c.N, c.Agent, *c.Error)
			}
		}
	}
	lr := succeeded(t, res, 1)
	is.Equal(ReadFile(t, filepath.Join(dir, "calc.go")), calcSource("+")) // Codex's change

	// Both CLIs were asked: one run each.
	claude.mu.Lock()
	is.Equal(claude.next, 1)
	claude.mu.Unlock()
	is.Equal(codex.started(), 1)

	// The record: two candidates, Claude's lost (its check failed),
	// Codex's kept; the round's cost is both runs'.
	result := runlogtest.Result(t, dir)
	is.Equal(len(result.Iterations), 1)
	cands := result.Iterations[0].Candidates
	is.Equal(len(cands), 2)
	is.Equal(cands[0].Agent, "claude")
	is.Equal(cands[1].Agent, "codex")
	is.True(!cands[0].Kept)
	is.True(cands[0].Why != "")
	is.Equal(cands[0].ChecksPassed, 0)
	is.True(cands[1].Kept)
	is.True(cands[1].Success)
	codexCost := (tokenRunInput*2 + tokenRunCached*0.5 + tokenRunOutput*8) / 1e6
	is.True(cands[0].Cost != nil && math.Abs(*cands[0].Cost-claudeRunCost) < 1e-9)
	is.True(cands[1].Cost != nil && math.Abs(*cands[1].Cost-codexCost) < 1e-9)
	is.True(lr.TotalCostKnown)
	is.True(math.Abs(lr.TotalCost-(claudeRunCost+codexCost)) < 1e-9)

	// The events name both agents' candidates.
	started := map[string]bool{}
	f, err := os.Open(filepath.Join(dir, ".architect", "events.jsonl"))
	is.NoErr(err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev struct {
			Type      string `json:"type"`
			Candidate *struct {
				N     int    `json:"n"`
				Agent string `json:"agent"`
			} `json:"candidate"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == "candidate_started" && ev.Candidate != nil {
			started[ev.Candidate.Agent] = true
		}
	}
	is.NoErr(sc.Err())
	is.Equal(started, map[string]bool{"claude": true, "codex": true})

	// Each ran in a worktree of its own, not in the workspace.
	claudeStart := claude.runStarts(anthropic)
	is.Equal(len(claudeStart), 1)
	is.True(strings.Contains(string(claudeStart[0].Body), filepath.Join(dir, ".architect", "candidates", "1")))

	r.NoLeftovers(dir)
}
