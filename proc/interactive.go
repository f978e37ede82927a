package proc

import (
	"io"
	"os/exec"
)

// Interactive runs name with args for the person at the terminal (a
// pager): unlike every other process, in architect's own process group,
// which is the terminal's foreground, so that it can read the keyboard
// and handles Ctrl-C itself; it is not supervised, and ends when the
// person ends it. Its input is in, its output the terminal's.
func Interactive(name string, args []string, in io.Reader, stdout, stderr io.Writer) error {
	cmd := exec.Command(name, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = in, stdout, stderr
	return cmd.Run()
}
