package checks

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/matryer/is"
)

// alive reports whether pid is a process that has not died (a zombie has).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}

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
		if alive(pid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	is.True(!alive(pid)) // the check's grandchild went with it
}
