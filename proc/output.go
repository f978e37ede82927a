package proc

import (
	"io"
	"os"
	"reflect"
	"sync"
	"time"
)

// outputs carries a run's stdout and stderr through pipes proc owns, rather
// than through exec's own copying goroutines, so that Wait returns when
// the leader exits even if a descendant still holds the pipe open: the
// group and the marked descendants are killed first and the pipes drained
// afterwards (see run).
type outputs struct {
	touch   func() // records activity for the inactivity watchdog
	readers []*os.File
	writers []*os.File // the child's ends, closed in the parent after Start
	dsts    []io.Writer
	wg      sync.WaitGroup
	done    chan struct{} // closed when every copy has reached EOF
}

// attach returns what the child's stdout and stderr should be. The same
// writer for both gets a single pipe, as with "2>&1": one goroutine writes
// to it, so its writes are serialised and interleave as the child wrote
// them. A nil writer discards; an *os.File is handed to the child
// directly unless output must be watched for inactivity.
func (o *outputs) attach(stdout, stderr io.Writer, watch bool) (cout, cerr io.Writer, err error) {
	if sameWriter(stdout, stderr) {
		f, err := o.pipe(stdout, watch)
		return f, f, err
	}
	if cout, err = o.pipe(stdout, watch); err != nil {
		return nil, nil, err
	}
	cerr, err = o.pipe(stderr, watch)
	return cout, cerr, err
}

// pipe returns what the child should write to in order to reach w. It
// returns an untyped nil (exec's /dev/null) for a nil w that is not
// watched: a typed nil *os.File would be taken as a file.
func (o *outputs) pipe(w io.Writer, watch bool) (io.Writer, error) {
	if f, ok := w.(*os.File); ok && !watch {
		return f, nil
	}
	if w == nil {
		if !watch {
			return nil, nil
		}
		w = io.Discard
	}
	r, wr, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	o.readers = append(o.readers, r)
	o.writers = append(o.writers, wr)
	o.dsts = append(o.dsts, w)
	return wr, nil
}

// closeWriteEnds closes the parent's copies of the child's ends, so that
// the readers see EOF once every process holding them has gone.
func (o *outputs) closeWriteEnds() {
	for _, w := range o.writers {
		_ = w.Close()
	}
	o.writers = nil
}

// start copies each pipe to its writer as output arrives.
func (o *outputs) start() {
	for i, r := range o.readers {
		o.wg.Add(1)
		go o.copy(r, o.dsts[i])
	}
	o.done = make(chan struct{})
	go func() {
		o.wg.Wait()
		close(o.done)
	}()
}

// A pipe starts at the kernel's default size (64 KiB). Once a read finds
// at least smallRead bytes waiting, the writer is fast (a check or agent
// printing a flood): the pipe is grown to bigPipe, reads use a bigRead
// buffer, and after a read that empties the pipe the copy waits batchDelay
// before the next one, so that each wake-up takes a large batch instead of
// a few KiB. On a small virtual machine, the wake-ups, not the copying,
// are what a flood costs: about a fifth more throughput (bench/RESULTS.md).
// The writer never waits on that pause: batchDelay at 1 GB/s is half of
// bigPipe. Quiet outputs keep a default pipe and a small buffer, so that
// many checks do not use up the per-user allowance for big pipes
// (/proc/sys/fs/pipe-user-pages-soft).
const (
	smallRead  = 32 << 10
	bigRead    = 256 << 10
	bigPipe    = 1 << 20
	batchDelay = 500 * time.Microsecond
)

func (o *outputs) copy(r *os.File, w io.Writer) {
	defer o.wg.Done()
	buf := make([]byte, smallRead)
	batch := false
	for {
		n, err := r.Read(buf)
		if n > 0 {
			o.touch()
			if _, werr := w.Write(buf[:n]); werr != nil {
				w = io.Discard // keep draining so the child never blocks
			}
		}
		if err != nil {
			return
		}
		switch {
		case !batch && n == len(buf):
			if growPipe(r, bigPipe) {
				batch, buf = true, make([]byte, bigRead)
			}
		case batch && n < len(buf):
			pause(batchDelay)
		}
	}
}

// drain waits until every process holding the pipes has closed them, or
// until deadline, and reports whether they have.
func (o *outputs) drain(deadline time.Time) bool {
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-o.done:
		return true
	case <-t.C:
		return false
	}
}

// wait waits for the copies to reach EOF. A process that escaped every
// kill may hold a pipe open forever: after grace the reads are abandoned.
func (o *outputs) wait(grace time.Duration) {
	if !o.drain(time.Now().Add(grace)) {
		for _, r := range o.readers {
			_ = r.SetReadDeadline(time.Now())
		}
		<-o.done
	}
	o.close()
}

func (o *outputs) close() {
	o.closeWriteEnds()
	for _, r := range o.readers {
		_ = r.Close()
	}
	o.readers = nil
}

// sameWriter reports whether a and b are the same non-nil writer, without
// panicking on writers whose dynamic type is not comparable.
func sameWriter(a, b io.Writer) bool {
	if a == nil || b == nil || reflect.TypeOf(a) != reflect.TypeOf(b) {
		return false
	}
	if !reflect.ValueOf(a).Comparable() {
		return false
	}
	return a == b
}
