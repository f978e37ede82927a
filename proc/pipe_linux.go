package proc

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// growPipe asks the kernel for a pipe buffer of size bytes, and reports
// whether it got at least that. It fails past the user's allowance for big
// pipes, or where pipes cannot be resized.
func growPipe(f *os.File, size int) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	got := 0
	if err := rc.Control(func(fd uintptr) { got, _ = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, size) }); err != nil {
		return false
	}
	return got >= size
}

// pause sleeps d in a nanosleep system call. time.Sleep would arm a
// runtime timer, whose wake-up goes through the network poller (an eventfd
// write and an epoll wake-up), which costs more than the pause saves when
// it happens thousands of times a second.
func pause(d time.Duration) {
	ts := unix.NsecToTimespec(d.Nanoseconds())
	for unix.Nanosleep(&ts, &ts) == unix.EINTR {
	}
}
