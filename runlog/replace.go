package runlog

import "os"

// ReplaceFile replaces path with data atomically (renameio; on Windows a
// synced temporary file renamed over it): readers see the old file or the
// new one, never a part. For files outside .architect that architect
// edits in place, such as a plan's ticks.
func ReplaceFile(path string, data []byte, perm os.FileMode) error {
	return writeFile(path, data, perm)
}
