//go:build windows

package runlog

import (
	"os"
	"path/filepath"
)

// writeFile replaces path with data: renameio has no Windows version, so
// the data is written to a temporary file beside it (its name starts with
// a dot, as renameio's do), synced, then renamed over path (MoveFileEx
// with MOVEFILE_REPLACE_EXISTING).
func writeFile(path string, data []byte, perm os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, perm)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}
