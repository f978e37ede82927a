package runlog

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/architect-dev/architect/usererr"
	"github.com/matryer/is"
)

// One loop per workspace: the lock names its holder, a second taker is
// refused with what to do, Running sees the holder, and once released the
// lock can be taken again.
func TestLockWorkspaceOneLoopAtATime(t *testing.T) {
	is := is.New(t)
	ws := t.TempDir()
	state := filepath.Join(ws, StateDir)
	is.True(!Running(ws))

	held, err := LockWorkspace(state)
	is.NoErr(err)
	b, err := os.ReadFile(filepath.Join(state, LockFile))
	is.NoErr(err)
	is.Equal(string(b), fmt.Sprintf("%d\n", os.Getpid())) // names the holder
	is.True(Running(ws))

	_, err = LockWorkspace(state)
	var ue *usererr.Error
	is.True(errors.As(err, &ue))
	is.Equal(ue.Msg, fmt.Sprintf("another architect loop (pid %d) is running in %s", os.Getpid(), ws))
	is.True(strings.Contains(ue.Hint, "architect cancel -C "+ws))

	is.NoErr(held.Unlock())
	is.True(!Running(ws))
	again, err := LockWorkspace(state)
	is.NoErr(err)
	is.NoErr(again.Unlock())
}
