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
