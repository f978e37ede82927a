package cli

import "golang.org/x/sys/unix"

// termSize reports whether fd is a terminal, and its width in columns.
func termSize(fd int) (int, bool) {
	if _, err := unix.IoctlGetTermios(fd, unix.TCGETS); err != nil {
		return 0, false
	}
	ws, err := unix.IoctlGetWinsize(fd, unix.TIOCGWINSZ)
	if err != nil {
		return 80, true
	}
	return int(ws.Col), true
}
