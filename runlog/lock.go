package runlog

import "github.com/gofrs/flock"

// Running reports whether a loop holds the workspace's lock right now.
func Running(workspace string) bool {
	l := flock.New(Path(workspace, LockFile))
	ok, err := l.TryLock()
	if err != nil {
		return false
	}
	if ok {
		l.Unlock()
		return false
	}
	return true
}
