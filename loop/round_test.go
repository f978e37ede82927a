package loop

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/internal/testutil"
	"github.com/architect-dev/architect/runlog"
	"github.com/matryer/is"
)

// roundRepo is a repository whose check passes once fix.txt says "fixed".
func roundRepo(t *testing.T) string {
	t.Helper()
	testutil.IsolateGit(t, true)
	dir := testutil.NewRepo(t)
	testutil.WriteFile(t, dir, "fix.txt", "broken\n")
	testutil.Commit(t, dir, "start")
	return dir
}

func runRound(t *testing.T, dir, script string, n int, mut func(*Deps)) (*runlog.Result, string) {
	t.Helper()
	cfg := testConfig(t)
	cfg.Dir = dir
	cfg.Checks = []string{"grep -q '^fixed$' fix.txt"}
	cfg.Agent, cfg.AgentCmd = "command", script
	cfg.Candidates = n
	cfg.MaxIterations = 2
	a, err := agent.New(cfg.AgentConfig())
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	deps := Deps{Agent: a, Log: &log}
	if mut != nil {
		mut(&deps)
	}
	res, err := Run(context.Background(), cfg, deps)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	return res, log.String()
}

func TestRoundKeepsTheCandidateThatPasses(t *testing.T) {
	is := is.New(t)
	dir := roundRepo(t)
	script := `if [ "$ARCHITECT_CANDIDATE" = 2 ]; then echo fixed > fix.txt; echo '<promise>COMPLETE</promise>'; else echo "wrong $ARCHITECT_CANDIDATE" > fix.txt; echo '<promise>COMPLETE</promise>'; fi`
	res, log := runRound(t, dir, script, 3, nil)
	is.True(res.Success) // the round succeeded
	is.Equal(res.TotalIterations, 1)
	data, err := os.ReadFile(filepath.Join(dir, "fix.txt"))
	is.NoErr(err)
	is.Equal(string(data), "fixed\n") // candidate 2's change is in the workspace
	cs := res.Iterations[0].Candidates
	is.Equal(len(cs), 3)
	for _, c := range cs {
		is.Equal(c.Kept, c.N == 2)
		if c.N != 2 && c.Why == "" {
			t.Errorf("candidate %d lost without a reason", c.N)
		}
	}
	out, _ := exec.Command("git", "-C", dir, "worktree", "list").Output()
	is.Equal(strings.Count(string(out), "\n"), 1) // the candidates' worktrees are gone
	t.Log(log)
}
