package runlog

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A record file that does not parse is named in the error, which keeps the
// parser's error in its chain; a missing one is os.ErrNotExist.
func TestDamagedRecordFiles(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{StateFile, ResultFile} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	_, errState := ReadStateIn(dir)
	_, errResult := ReadResultIn(dir)
	for name, err := range map[string]error{StateFile: errState, ResultFile: errResult} {
		var syntax *json.SyntaxError
		if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, name)+" is damaged") || !errors.As(err, &syntax) {
			t.Errorf("%s: %v, want it named as damaged with the JSON error in the chain", name, err)
		}
	}
	if _, err := ReadStateIn(t.TempDir()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing state.json: %v", err)
	}
}
