//go:build linux

package mountns

import (
	"fmt"
	"os"
	"syscall"
)

// SetAttr makes the process a starts in a new user namespace, in which
// it keeps its own user and group (mapped to themselves: it stays who it
// is, with the rights over the namespace that mounting needs), and a new
// mount namespace, whose mounts are its own.
func SetAttr(a *syscall.SysProcAttr) {
	a.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
	a.GidMappingsEnableSetgroups = false
}

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
// not a regular file or a folder (missing, a symlink) is left alone. It
// must run before anything confines the process further (Landlock
// forbids mounting), and with no other thread of the process relying on
// the old view. Nothing is done for no paths.
func ReadOnly(paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_SLAVE, ""); err != nil {
		return fmt.Errorf("making the mounts private to the namespace: %w", err)
	}
	for _, p := range paths {
		var st syscall.Stat_t
		if err := syscall.Lstat(p, &st); err != nil {
			continue
		}
		if m := st.Mode & syscall.S_IFMT; m != syscall.S_IFREG && m != syscall.S_IFDIR {
			continue
		}
		if err := bindReadOnly(p); err != nil {
			return err
		}
	}
	return nil
}

func bindReadOnly(p string) error {
	var fs syscall.Statfs_t
	if err := syscall.Statfs(p, &fs); err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	flags := uintptr(syscall.MS_REMOUNT | syscall.MS_BIND | syscall.MS_RDONLY)
	for _, l := range locked {
		if uintptr(fs.Flags)&l.st != 0 {
			flags |= l.ms
		}
	}
	if err := syscall.Mount(p, p, "", syscall.MS_BIND, ""); err != nil {
		return fmt.Errorf("bind-mounting %s: %w", p, err)
	}
	if err := syscall.Mount("", p, "", flags, ""); err != nil {
		return fmt.Errorf("making %s read-only: %w", p, err)
	}
	return nil
}
