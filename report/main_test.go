package report

import (
	"os"
	"testing"

	"github.com/architect-dev/architect/internal/testutil"
)

// TestMain says, after the tests, how many skipped for want of a tool.
func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }
