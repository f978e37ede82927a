// Package usererr is the error of a request the user must change: a flag,
// a folder, a configuration that cannot work as given. The command line
// prints its message and its hint and exits with status 2; the loop, the
// batch runner and pre-flight return it for what they find wrong with what
// they were asked. It is a leaf of its own so that every layer can return
// it without importing the one that prints it.
package usererr

// Error is a problem with what the user asked for (exit status 2), and
// what to do about it.
type Error struct{ Msg, Hint string }

func (e *Error) Error() string { return e.Msg }
