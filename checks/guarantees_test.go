//go:build unix

package checks

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/matryer/is"
)

// A check stopped by a cancel does not pass, even when it exits with
// status 0 on SIGTERM: it did not run to its end.
func TestCancelledCheckExitingZeroFails(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	fifo := filepath.Join(t.TempDir(), "fifo")
	is.NoErr(syscall.Mkfifo(fifo, 0o600))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		// Opening blocks until the check opens the fifo to write "ready".
		if _, err := os.ReadFile(fifo); err == nil {
			cancel()
		}
	}()
	rs := Run(ctx, []string{`trap 'exit 0' TERM; echo ready > "$FIFO"; while :; do sleep 0.05; done`}, Options{
		Env: append(os.Environ(), "FIFO="+fifo),
	})
	if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		f.Close() // the check never wrote: unblock the reader
	}
	is.Equal(rs[0].ExitCode, 0) // it said it succeeded
	is.True(!rs[0].Passed)
	is.Equal(rs[0].Status(), "canceled")
}
