// Package mountns makes files read-only to one process and its
// descendants by the kernel: the process starts in a new user and mount
// namespace of its own (SetAttr, on the exec.Cmd that starts it), and,
// before it runs anything else, bind-mounts each file onto itself and
// remounts it read-only (ReadOnly). A write to the file then fails with
// EROFS, and its removal or a rename over it with EBUSY, whatever the
// program does; nothing outside the namespace sees the mounts.
//
// It imports only the standard library, so that the sandbox's helper can
// call it however early it starts.
package mountns

import (
	"fmt"
	"strings"
)

// Unmounted is ReadOnly's error when some of the paths, not all, could
// not be made read-only: the others were.
type Unmounted struct {
	Paths []string
	Errs  []error
}

func (u *Unmounted) Error() string {
	msgs := make([]string, len(u.Errs))
	for i, e := range u.Errs {
		msgs[i] = e.Error()
	}
	return fmt.Sprintf("%d of the files stay writable: %s", len(u.Paths), strings.Join(msgs, "; "))
}
