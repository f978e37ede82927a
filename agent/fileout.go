package agent

import (
	"context"
	"io"
	"os"
	"sync/atomic"
	"time"

	"github.com/architect-dev/architect/proc"
)

// runToFile runs a CLI as proc.Run does, but with its stdout going to a
// temporary file (see fileOut) that opt.Stdout is fed from as it grows.
// Where no temporary file can be made, it runs with a pipe, where a large
// output may be cut short.
func runToFile(ctx context.Context, bin string, args []string, opt proc.Options, pattern string) proc.Result {
	out, err := newFileOut(pattern, opt.Stdout, opt.InactivityTimeout)
	if err != nil {
		return proc.Run(ctx, bin, args, opt)
	}
	defer out.remove()
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	opt.Stdout = out.file
	opt.Stderr = touchWriter{opt.Stderr, out.touch}
	opt.InactivityTimeout = 0 // watched here: proc would put a pipe back
	stop := out.follow(cancel)
	res := proc.Run(runCtx, bin, args, opt)
	if inactive := stop(); inactive && res.Canceled && ctx.Err() == nil {
		res.Canceled, res.Inactive = false, true
	}
	return res
}

// fileOut gives a CLI a regular file as its stdout and follows it. Node
// drops what it has not yet written to a pipe when a CLI calls
// process.exit, which the Gemini CLI and Claude Code do at the end of every
// run: with more than a pipe's 64 KiB pending, the end of the output and
// its result line (cost, usage) were lost (for Gemini, whenever the prompt
// it echoes was large; for Claude Code, with a final message of about a
// megabyte). Writes to a file are synchronous in Node. Since proc watches
// for inactivity only on pipes it owns, the file's growth and stderr are
// watched here instead.
type fileOut struct {
	file *os.File      // the CLI's stdout
	dst  io.Writer     // where the output goes
	idle time.Duration // the inactivity timeout, 0 = none
	last atomic.Int64  // UnixNano of the last output
}

// filePoll is how often the output file is read for more.
const filePoll = 50 * time.Millisecond

// newFileOut creates the file (os.CreateTemp's pattern) that dst is fed from.
func newFileOut(pattern string, dst io.Writer, idle time.Duration) (*fileOut, error) {
	f, err := os.CreateTemp("", pattern)
	if err != nil {
		return nil, err
	}
	o := &fileOut{file: f, dst: dst, idle: idle}
	o.touch()
	return o, nil
}

func (o *fileOut) touch() { o.last.Store(time.Now().UnixNano()) }

// follow copies the file to dst as it grows, and calls inactive when
// nothing was written to it (or stderr) for the inactivity timeout. The
// stop function it returns, called once the process has ended, copies
// what is left and reports whether inactive was called.
func (o *fileOut) follow(inactive func()) (stop func() bool) {
	done, finished := make(chan struct{}), make(chan struct{})
	var fired atomic.Bool
	go func() {
		defer close(finished)
		buf := make([]byte, 32<<10)
		t := time.NewTicker(filePoll)
		defer t.Stop()
		var off int64
		ended := false
		for {
			n, err := o.file.ReadAt(buf, off)
			if n > 0 {
				off += int64(n)
				_, _ = o.dst.Write(buf[:n])
				o.touch()
				continue
			}
			if ended || (err != nil && err != io.EOF) {
				return
			}
			select {
			case <-done:
				ended = true // read what came since, then stop
				continue
			case <-t.C:
			}
			if o.idle > 0 && !fired.Load() && time.Since(time.Unix(0, o.last.Load())) >= o.idle {
				fired.Store(true)
				inactive()
			}
		}
	}()
	return func() bool {
		close(done)
		<-finished
		return fired.Load()
	}
}

func (o *fileOut) remove() {
	_ = o.file.Close()
	_ = os.Remove(o.file.Name())
}

// touchWriter notes activity on every write.
type touchWriter struct {
	w     io.Writer
	touch func()
}

func (t touchWriter) Write(p []byte) (int, error) {
	t.touch()
	return t.w.Write(p)
}
