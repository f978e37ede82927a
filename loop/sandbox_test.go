package loop

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/sandbox"
	"github.com/architect-dev/architect/usererr"
)

// TestSandboxRefusedBeforeAnythingStarts: a sandbox mode the system
// cannot enforce (here: this test binary cannot start the sandbox's
// helper, as a kernel without Landlock could not confine) is refused
// before the worktree is made or the agent runs, with a hint.
func TestSandboxRefusedBeforeAnythingStarts(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	gitInit(t, cfg.Dir)
	cfg.Worktree = true
	cfg.Sandbox = sandbox.ModeWorkspace
	a := &scripted{outcomes: []agent.Outcome{done}}
	_, err := Run(context.Background(), cfg, Deps{Agent: a})
	var ue *usererr.Error
	is.True(errors.As(err, &ue))
	is.True(strings.Contains(ue.Msg, "--sandbox workspace is not supported on this system"))
	is.True(strings.Contains(ue.Hint, "--sandbox off"))
	is.Equal(a.runs, 0) // no agent ran
	_, statErr := os.Stat(filepath.Join(cfg.Dir, ".architect-ralph-worktree"))
	is.True(os.IsNotExist(statErr)) // no worktree was made
}
