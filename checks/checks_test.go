//go:build unix

package checks

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/architect-dev/architect/internal/testutil"
	"github.com/matryer/is"
)

func TestPassFail(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	cmds := []string{"echo ok", "echo bad >&2; exit 3", "exit 0"}
	var started, finished []int
	rs := Run(t.Context(), cmds, Options{
		OnStart:  func(i int, name string) { started = append(started, i); is.Equal(name, cmds[i]) },
		OnFinish: func(i int, r Result) { finished = append(finished, i); is.Equal(r.Name, cmds[i]) },
	})
	is.Equal(len(rs), 3)
	is.Equal(len(started), 3)
	is.Equal(len(finished), 3)
	for i, r := range rs {
		is.Equal(r.Name, cmds[i]) // in input order
	}
	is.True(rs[0].Passed)
	is.Equal(rs[0].Output, "ok\n")
	is.Equal(rs[0].Status(), "exit status 0")
	is.True(!rs[1].Passed)
	is.Equal(rs[1].ExitCode, 3)
	is.Equal(rs[1].Output, "bad\n")
	is.Equal(rs[1].OutputBytes, int64(4))
	is.Equal(rs[1].Status(), "exit status 3")
	is.True(rs[2].Passed)
}

// Each check waits until all four have started: they can only pass if they
// run at the same time. The timeout is the deadline.
func TestConcurrent(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	dir := t.TempDir()
	var cmds []string
	for i := range 4 {
		cmds = append(cmds, `touch `+strconv.Itoa(i)+`; while [ "$(ls | wc -l)" -lt 4 ]; do sleep 0.01; done`)
	}
	for _, r := range Run(t.Context(), cmds, Options{Dir: dir, Timeout: 30 * time.Second}) {
		is.True(r.Passed) // r.Status()
	}
}

func TestOutputBounded(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	rs := Run(t.Context(), []string{`yes 0123456789 | head -n 1000000; printf '\033[32mend\033[0m\n'`}, Options{TailBytes: 1000})
	r := rs[0]
	is.True(r.Passed)
	is.Equal(r.OutputBytes, int64(11000000+len("\033[32mend\033[0m\n")))
	is.True(len(r.Output) <= 1000)
	is.True(strings.HasSuffix(r.Output, "0123456789\nend\n")) // the end, cleaned
}

func TestStartFailure(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	rs := Run(t.Context(), []string{"true"}, Options{Dir: filepath.Join(t.TempDir(), "missing")})
	is.True(!rs[0].Passed)
	is.Equal(rs[0].ExitCode, -1)
	is.True(strings.Contains(rs[0].Output, "no such file or directory"))
	is.Equal(rs[0].Status(), "could not start")
}

func TestCancel(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	fifo := filepath.Join(t.TempDir(), "fifo")
	is.NoErr(syscall.Mkfifo(fifo, 0o600))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	first := make(chan struct{})
	go func() {
		// Opening blocks until the check opens the fifo to write "ready".
		if _, err := os.ReadFile(fifo); err == nil {
			<-first
			cancel()
		}
	}()
	rs := Run(ctx, []string{"exit 0", `echo ready > "$FIFO"; exec sleep 1000`}, Options{
		Env: append(os.Environ(), "FIFO="+fifo),
		OnFinish: func(i int, _ Result) {
			if i == 0 {
				close(first)
			}
		},
	})
	if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		f.Close() // the check never wrote: unblock the reader
	}
	is.True(rs[0].Passed)
	is.True(!rs[1].Passed)
	is.True(!rs[1].TimedOut)
	is.Equal(rs[1].Status(), "canceled")

	rs = Run(ctx, []string{"true"}, Options{}) // already cancelled
	is.True(!rs[0].Passed)
}

func TestStatusFromJSON(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	is.Equal(Result{TimedOut: true, Duration: 120.2}.Status(), "timeout after 120s")
	is.Equal(Result{ExitCode: 2}.Status(), "exit status 2")
	is.Equal(ending{timeout: 1500 * time.Millisecond}.status(Result{TimedOut: true}), "timeout after 1.5s")
}

// closingBuffer records what it got and whether it was closed.
type closingBuffer struct {
	testutil.Buffer
	closed atomic.Bool
}

func (c *closingBuffer) Close() error {
	c.closed.Store(true)
	return nil
}

// Output gets every byte a check prints, past the tail the result keeps,
// and is closed before OnFinish sees the result.
func TestOutputCopy(t *testing.T) {
	is := is.New(t)
	bufs := []*closingBuffer{{}, {}}
	closedAtFinish := make([]bool, 2)
	rs := Run(context.Background(), []string{"seq 1 20000", "echo out; echo err >&2; exit 3"}, Options{
		TailBytes: 100,
		Output:    func(i int) io.Writer { return bufs[i] },
		OnFinish: func(i int, _ Result) {
			closedAtFinish[i] = bufs[i].closed.Load()
		},
	})
	is.Equal(len(rs[0].Output), 100)
	is.Equal(int64(bufs[0].Len()), rs[0].OutputBytes) // all of it
	is.True(strings.HasPrefix(bufs[0].String(), "1\n2\n3\n"))
	is.True(strings.Contains(bufs[1].String(), "out\n"))
	is.True(strings.Contains(bufs[1].String(), "err\n"))
	is.Equal(closedAtFinish, []bool{true, true})
}
