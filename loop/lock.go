package loop

import (
	"github.com/architect-dev/architect/runlog"
	"github.com/gofrs/flock"
)

// lockWorkspace takes the workspace's lock for the whole run: one loop per
// workspace (runlog.LockWorkspace).
func lockWorkspace(stateDir string) (*flock.Flock, error) { return runlog.LockWorkspace(stateDir) }
