package proc

import (
	"bytes"
	"crypto/rand"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"
)

// escape starts a grandchild that leaves the run's group and session with
// setsid, as daemons do. It writes its pid and pgid to the fifo $FIFO and
// then sleeps; `setsid -f` returns at once, its child orphaned.
const escape = `setsid -f sh -c 'read -r p c s pp pgrp rest < /proc/$$/stat; echo $$ $pgrp > "$0"; exec sleep 1000' "$FIFO"`

var subreaperOnce sync.Once

func subreaper(t *testing.T) {
	subreaperOnce.Do(func() {
		if err := EnableSubreaper(); err != nil {
			t.Fatal(err)
		}
	})
}

// parsePids reads "pid pgid" from the start of s.
func parsePids(t *testing.T, s string) (pid, pgid int) {
	t.Helper()
	f := fields(s)
	if len(f) < 2 {
		t.Fatalf("want pid and pgid, got %q", s)
	}
	return atoi(t, f[0]), atoi(t, f[1])
}

// gone reports whether pid has been reaped, not only killed.
func gone(pid int) bool {
	_, err := os.Stat("/proc/" + strconv.Itoa(pid))
	return errors.Is(err, fs.ErrNotExist)
}

func TestEscapedDescendantKilled(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	var out bytes.Buffer
	r := Shell(t.Context(), escape+`; cat "$FIFO"`,
		Options{Stdout: &out, Env: env("FIFO=" + fifo(t)), Timeout: time.Minute})
	is.Equal(r.ExitCode, 0)
	pid, pgid := parsePids(t, out.String())
	killLater(t, pid)
	is.Equal(pid, pgid) // it had left the run's group
	is.True(!alive(pid))
}

// The marker alone finds an escaped process, whoever its parent is.
func TestKillMarked(t *testing.T) {
	// Not parallel: another test's run would Sweep the orphan first.
	is := is.New(t)
	f, id := fifo(t), "test-"+rand.Text()
	cmd := exec.Command("sh", "-c", escape)
	cmd.Env = env("FIFO="+f, RunIDEnv+"="+id)
	is.NoErr(cmd.Start())
	b := readFifo(t, f)
	is.NoErr(cmd.Wait())
	pid, _ := parsePids(t, string(b))
	killLater(t, pid)
	is.True(alive(pid))
	killMarked(func(m string) bool { return m == id }, 0)
	is.True(!alive(pid))
}

func TestSweepKillsOrphan(t *testing.T) {
	subreaper(t)
	is := is.New(t)
	f := fifo(t)
	cmd := exec.Command("sh", "-c", escape) // no proc, no marker
	cmd.Env = env("FIFO=" + f)
	is.NoErr(cmd.Start())
	b := readFifo(t, f)
	is.NoErr(cmd.Wait())
	pid, _ := parsePids(t, string(b))
	killLater(t, pid)
	st, _ := readStat(pid)
	is.Equal(st.ppid, os.Getpid()) // adopted
	is.True(Sweep() >= 1)
	is.True(gone(pid)) // killed and reaped
}

func TestSweepSpares(t *testing.T) {
	subreaper(t)
	is := is.New(t)
	// A plain child shares this process's group: it is left to its Wait.
	plain := exec.Command("sleep", "1000")
	is.NoErr(plain.Start())
	t.Cleanup(func() { _ = plain.Process.Kill() })
	// An orphan carrying the marker of a run still going belongs to it.
	w := newWaiter()
	done := background(t, t.Context(), escape+`; cat "$FIFO"; echo ready; exec sleep 1000`,
		Options{Stdout: w, Env: env("FIFO=" + fifo(t))})
	awaitReady(t, w)
	pid, _ := parsePids(t, w.String())
	killLater(t, pid)
	st, _ := readStat(pid)
	is.Equal(st.ppid, os.Getpid())

	Sweep()
	is.True(alive(pid))
	is.True(alive(plain.Process.Pid))

	KillAll()
	r := awaitResult(t, done)
	is.Equal(r.Signalled, "SIGKILL")
	is.True(gone(pid)) // killed by KillAll or the run's end, and reaped
	is.NoErr(plain.Process.Kill())
	var exit *exec.ExitError
	is.True(errors.As(plain.Wait(), &exit)) // its status was not stolen
	is.Equal(exit.String(), "signal: killed")
}

func TestKillAll(t *testing.T) {
	is := is.New(t)
	var dones []<-chan Result
	for range 3 {
		w := newWaiter()
		dones = append(dones, background(t, t.Context(), `echo ready; exec sleep 1000`,
			Options{Stdout: w, Grace: time.Hour}))
		awaitReady(t, w)
	}
	KillAll()
	for _, done := range dones {
		r := awaitResult(t, done)
		is.Equal(r.Signalled, "SIGKILL")
		is.True(!r.Canceled && !r.TimedOut)
	}
}
