package loop

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/usererr"
	"github.com/gofrs/flock"
)

// lockWorkspace takes the workspace's lock for the whole run: one loop per
// workspace. A second loop fails at once, naming the holder's pid.
func lockWorkspace(stateDir string) (*flock.Flock, error) {
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return nil, err
	}
	path := stateDir + string(os.PathSeparator) + runlog.LockFile
	l := flock.New(path)
	ok, err := l.TryLock()
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	if !ok {
		holder := "another process"
		if b, err := os.ReadFile(path); err == nil && strings.TrimSpace(string(b)) != "" {
			holder = "pid " + strings.TrimSpace(string(b))
		}
		ws := strings.TrimSuffix(stateDir, string(os.PathSeparator)+runlog.StateDir)
		return nil, &usererr.Error{
			Msg:  fmt.Sprintf("another architect loop (%s) is running in %s", holder, ws),
			Hint: fmt.Sprintf("wait for it to finish, watch it with `architect status -C %s`, or stop it with `architect cancel -C %s`", ws, ws),
		}
	}
	// The lock is on the open file; its content only names the holder.
	if err := os.WriteFile(path, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600); err != nil {
		l.Unlock()
		return nil, err
	}
	return l, nil
}
