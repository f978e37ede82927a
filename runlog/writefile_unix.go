//go:build !windows

package runlog

import (
	"os"

	"github.com/google/renameio/v2"
)

// writeFile replaces path with data atomically: readers see the old file
// or the new one, never a part.
func writeFile(path string, data []byte, perm os.FileMode) error {
	return renameio.WriteFile(path, data, perm)
}
