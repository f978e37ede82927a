package proc

import (
	"os"
	"time"
	"unsafe"

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

// pause sleeps d in a raw nanosleep system call. time.Sleep would arm a
// runtime timer, whose wake-up goes through the network poller (an
// eventfd write and an epoll wake-up); a plain system call would let the
// runtime hand the processor to another thread meanwhile. Either costs
// more than the pause saves when it happens thousands of times a second.
// A raw call is safe because it is short: the runtime can wait d for this
// goroutine to reach a safe point.
func pause(d time.Duration) {
	ts := unix.NsecToTimespec(d.Nanoseconds())
	for {
		_, _, errno := unix.RawSyscall(unix.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), uintptr(unsafe.Pointer(&ts)), 0)
		if errno != unix.EINTR {
			return
		}
	}
}
