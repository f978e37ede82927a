package checks

import (
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/architect-dev/architect/internal/testutil"
	"github.com/matryer/is"
)

func TestTimeoutKillsTree(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	rs := Run(t.Context(), []string{`sleep 100 & echo $!; wait`}, Options{Timeout: time.Second, Grace: time.Second})
	r := rs[0]
	is.True(r.TimedOut)
	is.True(!r.Passed)
	is.Equal(r.ExitCode, -1)
	is.Equal(r.Status(), "timeout after 1s")
	pid, err := strconv.Atoi(strings.TrimSpace(r.Output))
	is.NoErr(err)
	t.Cleanup(func() {
		if testutil.Alive(pid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	is.True(!testutil.Alive(pid)) // the check's grandchild went with it
}
