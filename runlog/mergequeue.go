package runlog

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// The merge queue's records (architect merge --batch) live in the main
// checkout's .architect/merge/TARGET/ (TARGET's slashes as dashes): the
// queue's account (MergeQueueFile, and queue.md for people), its lock, and
// each resolution loop's run records in a folder named after its task.
const (
	MergeDir       = "merge"
	MergeQueueFile = "queue.json"
	MergeQueueText = "queue.md"
)

// MergeQueueDir is the records folder of the merge queue onto branch
// target, in the repository whose top-level folder is top.
func MergeQueueDir(top, target string) string {
	return filepath.Join(top, StateDir, MergeDir, strings.ReplaceAll(target, "/", "-"))
}

// ReadJSON reads the JSON file at path into v.
func ReadJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}
