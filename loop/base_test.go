package loop

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/agent"
)

// What the checkout held when the run began is the run's base, in a
// repository with commits and in one with none yet (git init, then
// architect init): the changes the records show are the agent's alone.
func TestBaseIsTheCheckoutAsTheRunFoundIt(t *testing.T) {
	for _, committed := range []bool{true, false} {
		name := "no-commit"
		if committed {
			name = "committed"
		}
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			cfg := testConfig(t)
			if committed {
				gitInit(t, cfg.Dir)
			} else {
				cmd := exec.Command("git", "-C", cfg.Dir, "init", "-q")
				cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
				_, err := cmd.CombinedOutput()
				is.NoErr(err) // git init
			}
			is.NoErr(os.WriteFile(filepath.Join(cfg.Dir, "PROMPT.md"), []byte("# the task\n"), 0o644))
			cfg.MaxIterations = 1
			a := &scripted{outcomes: []agent.Outcome{done}, edit: func(dir string, _ int) {
				_ = os.WriteFile(filepath.Join(dir, "done.txt"), []byte("x\n"), 0o644)
			}}
			res, _, _ := run(t, cfg, a)
			stat := res.Iterations[0].DiffStat
			is.True(strings.Contains(stat, "done.txt"))   // the agent's
			is.True(!strings.Contains(stat, "PROMPT.md")) // there before the run
			// The user's index is untouched: nothing staged.
			cmd := exec.Command("git", "-C", cfg.Dir, "diff", "--cached", "--name-only")
			out, err := cmd.Output()
			is.NoErr(err)
			is.Equal(string(out), "")
		})
	}
}
