package runlog

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/architect-dev/architect/usererr"
	"github.com/gofrs/flock"
)

// LockWorkspace takes the workspace's lock (LockFile in its state folder,
// stateDir) for the whole run: one loop per workspace. A second loop fails
// at once, naming the holder's pid.
func LockWorkspace(stateDir string) (*flock.Flock, error) {
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return nil, err
	}
	path := stateDir + string(os.PathSeparator) + LockFile
	l := flock.New(path)
	ok, err := l.TryLock()
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	if !ok {
		return nil, heldError(stateDir, path)
	}
	// The lock is on the open file; its content only names the holder.
	if err := os.WriteFile(path, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600); err != nil {
		_ = l.Unlock() // the error that matters is the write's
		return nil, err
	}
	return l, nil
}

// heldError says which loop holds the lock at path, and what to do.
func heldError(stateDir, path string) error {
	holder := "another process"
	if b, err := os.ReadFile(path); err == nil && strings.TrimSpace(string(b)) != "" {
		holder = "pid " + strings.TrimSpace(string(b))
	}
	ws := strings.TrimSuffix(stateDir, string(os.PathSeparator)+StateDir)
	return &usererr.Error{
		Msg:  fmt.Sprintf("another architect loop (%s) is running in %s", holder, ws),
		Hint: fmt.Sprintf("wait for it to finish, watch it with `architect status -C %s`, or stop it with `architect cancel -C %s`", ws, ws),
	}
}

// Running reports whether a loop holds the workspace's lock right now.
func Running(workspace string) bool {
	l := flock.New(Path(workspace, LockFile))
	ok, err := l.TryLock()
	if err != nil {
		return false
	}
	if ok {
		_ = l.Unlock() // only a test: nothing was held
		return false
	}
	return true
}

// HoldIdle takes the workspace's lock when no loop holds it, so that what
// is done while it is held (removing what a killed run left) cannot meet a
// loop starting there; release gives it back. ok is false while a loop
// runs in the workspace. A workspace without a state folder has no run to
// meet: ok, with nothing taken (and nothing created).
func HoldIdle(workspace string) (release func(), ok bool) {
	if _, err := os.Stat(filepath.Join(workspace, StateDir)); errors.Is(err, os.ErrNotExist) {
		return func() {}, true
	}
	l := flock.New(Path(workspace, LockFile))
	got, err := l.TryLock()
	if err != nil || !got {
		return func() {}, false
	}
	return func() { _ = l.Unlock() }, true
}
