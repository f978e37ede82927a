package agent

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/matryer/is"
)

// The result file a killed command agent left is read without being
// removed: a resume killed before it records the cost finds it again
// (the caller removes it once the record is on disk).
func TestReadCommandResultKeepsTheFile(t *testing.T) {
	is := is.New(t)
	path := filepath.Join(t.TempDir(), "agent-result.json")
	is.NoErr(os.WriteFile(path, []byte(`{"cost_usd": 0.25}`), 0o600))
	for range 2 {
		c, ok, err := ReadCommandResult(path)
		is.NoErr(err)
		is.True(ok)
		is.Equal(c, 0.25)
	}
}
