// Package usererr is the error of a request the user must change: a flag,
// a folder, a configuration that cannot work as given. The command line
// prints its message and its hint and exits with status 2; the loop, the
// batch runner and pre-flight return it for what they find wrong with what
// they were asked. It is a leaf of its own so that every layer can return
// it without importing the one that prints it.
package usererr

// Error is a problem with what the user asked for (exit status 2), and
// what to do about it. Err, when set, is the cause Msg already tells of in
// words: kept so that errors.Is and errors.As see through to it.
type Error struct {
	Msg, Hint string
	Err       error
}

func (e *Error) Error() string { return e.Msg }

// Unwrap returns the cause, if any.
func (e *Error) Unwrap() error { return e.Err }
