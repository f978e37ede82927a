//go:build !linux

package mountns

import (
	"errors"
	"syscall"
)

// SetAttr does nothing: only Linux has the namespaces.
func SetAttr(*syscall.SysProcAttr) {}

// ReadOnly refuses any path: only Linux has the namespaces.
func ReadOnly(paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	return errors.New("read-only mounts need Linux")
}

// Check refuses: only Linux has the namespaces.
func Check([]string) error { return errors.New("read-only mounts need Linux") }
