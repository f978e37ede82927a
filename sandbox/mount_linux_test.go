package sandbox

import "syscall"

// changeMount is the probe's umount (detach the mount on path) and
// remount (make it writable again).
func changeMount(verb, path string) error {
	if verb == "umount" {
		return syscall.Unmount(path, syscall.MNT_DETACH)
	}
	return syscall.Mount("", path, "", syscall.MS_REMOUNT|syscall.MS_BIND, "")
}
