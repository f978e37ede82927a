//go:build linux

package mountns

import (
	"errors"
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// SetAttr makes the process a starts in a new user namespace, in which
// it keeps its own user and group (mapped to themselves: it stays who it
// is, with the rights over the namespace that mounting needs), and a new
// mount namespace, whose mounts are its own.
//
// A user may map only itself. A user who is not root loses its rights
// over the namespace when it execs the helper (an exec drops them unless
// it is root there), so it is given the one it needs, to mount, as an
// ambient capability, which ReadOnly gives up before the program runs.
//
// root maps every user and group to itself (up to 2^31-1): root's power
// over files is only over the users mapped in its namespace, so mapped
// alone it could no longer write a file that another user owns (a
// workspace checked out by another user, as in a CI container).
func SetAttr(a *syscall.SysProcAttr) {
	a.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS
	uid, gid, size := os.Getuid(), os.Getgid(), 1
	if uid == 0 {
		gid, size = 0, 1<<31-1
	} else {
		a.AmbientCaps = append(a.AmbientCaps, capSysAdmin)
	}
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: size}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: size}}
	// An unprivileged map needs setgroups off; root keeps it.
	a.GidMappingsEnableSetgroups = uid == 0
}

// The capability to mount, and prctl's options to clear the ambient set.
const (
	capSysAdmin          = 21
	prCapAmbient         = 47
	prCapAmbientClearAll = 4
)

// The mount flags that a namespace's owner may not clear on a mount it
// inherited (the kernel locks them), as statfs reports them and as mount
// takes them: a read-only remount must repeat them or it is refused.
var locked = []struct{ st, ms uintptr }{
	{0x0002, syscall.MS_NOSUID},     // ST_NOSUID
	{0x0004, syscall.MS_NODEV},      // ST_NODEV
	{0x0008, syscall.MS_NOEXEC},     // ST_NOEXEC
	{0x0400, syscall.MS_NOATIME},    // ST_NOATIME
	{0x0800, syscall.MS_NODIRATIME}, // ST_NODIRATIME
	{0x1000, syscall.MS_RELATIME},   // ST_RELATIME
}

// ReadOnly makes each of paths read-only in this process's mount
// namespace, which must be its own (see SetAttr): the mounts are first
// made slaves, so that nothing done here propagates out. A path that is
// not a regular file or a folder (missing, a symlink) is left alone; one
// the kernel refuses to mount stays as it was, and is listed in the
// *Unmounted returned once the others are done. Any other error means
// that nothing could be made read-only. It
// must run before anything confines the process further (Landlock
// forbids mounting). The calling goroutine stays on its thread, whose
// ambient capabilities are then cleared: the program that thread execs
// runs with no right over the namespace. Nothing is done for no paths.
func ReadOnly(paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	runtime.LockOSThread()
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_SLAVE, ""); err != nil {
		return wrap("making the mounts private to the namespace", err)
	}
	var some Unmounted
	for _, p := range paths {
		var st syscall.Stat_t
		if err := syscall.Lstat(p, &st); err != nil {
			continue
		}
		if m := st.Mode & syscall.S_IFMT; m != syscall.S_IFREG && m != syscall.S_IFDIR {
			continue
		}
		if err := bindReadOnly(p); err != nil {
			some.Paths, some.Errs = append(some.Paths, p), append(some.Errs, err)
		}
	}
	if err := dropInheritable(); err != nil {
		return wrap("giving up the right to mount", err)
	}
	if len(some.Paths) > 0 {
		return &some
	}
	return nil
}

// dropInheritable clears this thread's ambient and inheritable
// capabilities (SetAttr put the right to mount in both), so that no
// program it execs receives one.
func dropInheritable() error {
	if _, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, prCapAmbient, prCapAmbientClearAll, 0, 0, 0, 0); e != 0 && e != syscall.EINVAL {
		return e
	}
	hdr := struct {
		version uint32
		pid     int32
	}{version: 0x20080522} // _LINUX_CAPABILITY_VERSION_3
	var data [2]struct{ effective, permitted, inheritable uint32 }
	if _, _, e := syscall.RawSyscall(syscall.SYS_CAPGET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0); e != 0 {
		return e
	}
	if data[0].inheritable == 0 && data[1].inheritable == 0 {
		return nil
	}
	data[0].inheritable, data[1].inheritable = 0, 0
	if _, _, e := syscall.RawSyscall(syscall.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0); e != 0 {
		return e
	}
	return nil
}

func bindReadOnly(p string) error {
	var fs syscall.Statfs_t
	if err := syscall.Statfs(p, &fs); err != nil {
		return wrap(p, err)
	}
	flags := uintptr(syscall.MS_REMOUNT | syscall.MS_BIND | syscall.MS_RDONLY)
	for _, l := range locked {
		if uintptr(fs.Flags)&l.st != 0 {
			flags |= l.ms
		}
	}
	if err := syscall.Mount(p, p, "", syscall.MS_BIND, ""); err != nil {
		return wrap("bind-mounting "+p, err)
	}
	if err := syscall.Mount("", p, "", flags, ""); err != nil {
		// Bound but writable: taken off again, so that the file behaves
		// as it did (a mount point cannot be removed or renamed over).
		_ = syscall.Unmount(p, syscall.MNT_DETACH)
		return wrap("making "+p+" read-only", err)
	}
	return nil
}

// Check says whether the first of paths, made read-only by ReadOnly,
// refuses to be opened for writing, as it must: nil when it does.
func Check(paths []string) error {
	if len(paths) == 0 {
		return errors.New("no path to check")
	}
	f, err := os.OpenFile(paths[0], os.O_WRONLY, 0)
	if err == nil {
		_ = f.Close()
		return errors.New(paths[0] + " stayed writable")
	}
	if !errors.Is(err, syscall.EROFS) {
		return err
	}
	return nil
}
