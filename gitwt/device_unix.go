//go:build unix

package gitwt

import (
	"os"
	"syscall"
)

// device is the device number of the file fi describes.
func device(fi os.FileInfo) (uint64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(st.Dev), true //nolint:unconvert // Dev is int32 on darwin
}
