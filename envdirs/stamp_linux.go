package envdirs

import (
	"fmt"
	"io/fs"
	"syscall"
)

// stamp is what of a file's status its owner cannot set back: its change
// time, and its inode.
func stamp(fi fs.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%d.%d/%d", st.Ctim.Sec, st.Ctim.Nsec, st.Ino)
}
