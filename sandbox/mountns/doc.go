// Package mountns makes files read-only to one process and its
// descendants by the kernel: the process starts in a new user and mount
// namespace of its own (SetAttr, on the exec.Cmd that starts it), and,
// before it runs anything else, bind-mounts each file onto itself and
// remounts it read-only (ReadOnly). A write to the file then fails with
// EROFS, and its removal or a rename over it with EBUSY, whatever the
// program does; nothing outside the namespace sees the mounts.
//
// It imports only packages Go initialises before os is done (errors, os,
// runtime, strconv, syscall, unsafe: no fmt, no strings), so that the
// sandbox's helper, which imports it, still starts before the rest of
// architect is initialised (see package sandbox/helper).
package mountns

import "strconv"

// Unmounted is ReadOnly's error when some of the paths, not all, could
// not be made read-only: the others were.
type Unmounted struct {
	Paths []string
	Errs  []error
}

func (u *Unmounted) Error() string {
	msg := strconv.Itoa(len(u.Paths)) + " of the files stay writable: "
	for i, e := range u.Errs {
		if i > 0 {
			msg += "; "
		}
		msg += e.Error()
	}
	return msg
}

// wrapped is an error with what was being done when it happened.
type wrapped struct {
	doing string
	err   error
}

func wrap(doing string, err error) error { return &wrapped{doing, err} }

func (w *wrapped) Error() string { return w.doing + ": " + w.err.Error() }

func (w *wrapped) Unwrap() error { return w.err }
