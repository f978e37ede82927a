package report

import (
	"os"
	"testing"

	"github.com/architect-dev/architect/internal/testutil"
)

// TestMain says, after the tests, how many skipped for want of a tool
// (testutil.SayMissing): a green local run is not taken for a full one.
func TestMain(m *testing.M) {
	code := m.Run()
	testutil.SayMissing()
	os.Exit(code)
}
