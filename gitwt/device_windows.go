//go:build windows

package gitwt

import "os"

// device is unknown on Windows: callers take the files as on different
// devices.
func device(os.FileInfo) (uint64, bool) { return 0, false }
