package proc

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"
	"golang.org/x/sys/unix"
)

func TestExitCodes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		script string
		code   int
		signal string
	}{
		{"exit 0", 0, ""},
		{"exit 3", 3, ""},
		{"kill -KILL $$", -1, "SIGKILL"},
		{"kill -TERM $$", -1, "SIGTERM"},
	} {
		t.Run(tc.script, func(t *testing.T) {
			t.Parallel()
			is := is.New(t)
			r := Shell(t.Context(), tc.script, Options{})
			is.NoErr(r.StartErr)
			is.Equal(r.ExitCode, tc.code)
			is.Equal(r.Signalled, tc.signal)
			is.True(!r.TimedOut && !r.Inactive && !r.Canceled)
		})
	}
}

func TestStdin(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	var out bytes.Buffer
	r := Shell(t.Context(), "readlink /proc/self/fd/0; cat", Options{Stdout: &out})
	is.Equal(r.ExitCode, 0)
	is.Equal(out.String(), "/dev/null\n") // nil Stdin is /dev/null: cat sees EOF at once

	out.Reset()
	r = Shell(t.Context(), "cat", Options{Stdin: strings.NewReader("hello"), Stdout: &out})
	is.Equal(r.ExitCode, 0)
	is.Equal(out.String(), "hello")
}

func TestStartErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	noexec := filepath.Join(dir, "noexec")
	if err := os.WriteFile(noexec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path, dir string
		want            error
	}{
		{"not found", "architect-no-such-program", "", exec.ErrNotFound},
		{"no such file", filepath.Join(dir, "missing"), "", os.ErrNotExist},
		{"permission denied", noexec, "", os.ErrPermission},
		{"no such dir", "true", filepath.Join(dir, "missing"), os.ErrNotExist},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			r := Run(t.Context(), tc.path, nil, Options{Dir: tc.dir})
			is.True(errors.Is(r.StartErr, tc.want)) // the cause is kept
			is.Equal(r.ExitCode, -1)
		})
	}
}

func TestTimeoutKillsTree(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	var out bytes.Buffer
	r := Shell(t.Context(), `echo $ARCHITECT_RUN_ID; sleep 100 & echo $!; wait`,
		Options{Stdout: &out, Timeout: time.Second})
	is.True(r.TimedOut)
	is.True(!r.Canceled && !r.Inactive)
	is.Equal(r.ExitCode, -1)
	is.Equal(r.Signalled, "SIGTERM")
	f := fields(out.String())
	is.Equal(len(f), 2) // run ID and grandchild pid
	id, grandchild := f[0], atoi(t, f[1])
	killLater(t, grandchild)
	is.True(!alive(grandchild))
	is.Equal(len(marked(id)), 0) // nothing of the run is left
}

func TestIgnoredTermGetsKill(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	ctx, cancel := context.WithCancel(t.Context())
	w := newWaiter()
	const grace = 200 * time.Millisecond
	done := background(t, ctx, `trap "" TERM; echo ready; exec sleep 1000`, Options{Stdout: w, Grace: grace})
	awaitReady(t, w)
	cancel()
	r := awaitResult(t, done)
	is.True(r.Canceled)
	is.Equal(r.Signalled, "SIGKILL") // SIGTERM was ignored
	is.True(r.Duration >= grace)
}

// When the leader dies of SIGTERM at once, as sh does, the rest of its
// group still gets the grace period to finish.
func TestGroupGetsGrace(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	ctx, cancel := context.WithCancel(t.Context())
	w := newWaiter()
	done := background(t, ctx, `sh -c 'trap "echo stopped cleanly; exit 0" TERM; echo ready; while :; do sleep 1; done' & wait`,
		Options{Stdout: w, Grace: time.Minute})
	awaitReady(t, w)
	cancel()
	r := awaitResult(t, done)
	is.True(r.Canceled)
	is.Equal(r.Signalled, "SIGTERM") // the leader
	is.Equal(w.String(), "ready\nstopped cleanly\n")
}

func TestInactivity(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	w := newWaiter()
	r := Shell(t.Context(), `echo ready; exec sleep 1000`,
		Options{Stdout: w, InactivityTimeout: 300 * time.Millisecond, Timeout: time.Minute})
	is.True(r.Inactive)
	is.True(!r.TimedOut && !r.Canceled)
	is.Equal(r.Signalled, "SIGTERM")
	is.Equal(w.String(), "ready\n")
}

func TestOutputResetsInactivity(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	out := NewTail(1024)
	// Runs about 2.4s, well over the inactivity timeout, but never stays
	// silent (on stdout or stderr) for more than a tenth of it.
	const timeout = time.Second
	r := Shell(t.Context(), `for i in $(seq 12); do echo tick; sleep 0.1; echo tock >&2; sleep 0.1; done`,
		Options{Stderr: out, InactivityTimeout: timeout})
	is.True(!r.Inactive)
	is.Equal(r.ExitCode, 0)
	is.True(r.Duration > timeout)
	is.Equal(strings.Count(out.String(), "tock\n"), 12)
}

func TestCancel(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	ctx, cancel := context.WithCancel(t.Context())
	w := newWaiter()
	done := background(t, ctx, `echo ready; exec sleep 1000`, Options{Stdout: w})
	awaitReady(t, w)
	cancel()
	r := awaitResult(t, done)
	is.True(r.Canceled)
	is.True(!r.TimedOut && !r.Inactive)
	is.Equal(r.ExitCode, -1)
	is.Equal(r.Signalled, "SIGTERM")

	r = Shell(ctx, "true", Options{}) // already cancelled: not started
	is.True(r.Canceled)
	is.Equal(r.ExitCode, -1)
}

// The run ends when its leader does: a background process holding the
// output pipe is killed rather than waited for (Grace is an hour here).
func TestLeaderExitEndsRun(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	var out bytes.Buffer
	r := Shell(t.Context(), `sleep 1000 & echo $!`, Options{Stdout: &out, Grace: time.Hour})
	is.Equal(r.ExitCode, 0)
	pid := atoi(t, out.String())
	killLater(t, pid)
	is.True(!alive(pid))
}

// The same writer for stdout and stderr is never written concurrently
// (the race detector would see it: bytes.Buffer is not safe for that).
func TestSameWriter(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	var both, errs bytes.Buffer
	script := `for i in $(seq 500); do echo out; echo err >&2; done`
	r := Shell(t.Context(), script, Options{Stdout: &both, Stderr: &both})
	is.Equal(r.ExitCode, 0)
	is.Equal(strings.Count(both.String(), "out\n"), 500)
	is.Equal(strings.Count(both.String(), "err\n"), 500)

	both.Reset()
	r = Shell(t.Context(), script, Options{Stdout: &both, Stderr: &errs, InactivityTimeout: time.Minute})
	is.Equal(r.ExitCode, 0)
	is.Equal(both.String(), strings.Repeat("out\n", 500))
	is.Equal(errs.String(), strings.Repeat("err\n", 500))
}

func TestConcurrentRuns(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	const n = 16
	outs := make([]bytes.Buffer, n)
	codes := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			codes[i] = Shell(t.Context(), `echo $ARCHITECT_RUN_ID; head -c 100000 /dev/zero >&2; exit 7`,
				Options{Stdout: &outs[i], Stderr: &outs[i], Timeout: time.Minute}).ExitCode
		})
	}
	wg.Wait()
	ids := map[string]bool{}
	for i := range outs {
		is.Equal(codes[i], 7)
		f := fields(Clean(outs[i].Bytes()))
		is.Equal(len(f), 1)
		is.Equal(outs[i].Len(), len(f[0])+1+100000)
		ids[f[0]] = true
	}
	is.Equal(len(ids), n) // every run has its own marker
}

// TestFloodArrivesWhole: a writer fast enough to fill the pipe switches
// the copy to a big pipe and batched reads; every byte still arrives, in
// order, and a slow writer afterwards on the same pipe too.
func TestFloodArrivesWhole(t *testing.T) {
	const size = 30_000_000
	line := "architect: a line of output from a chatty process.\n"
	want := sha256.New()
	for n := 0; n < size; n += len(line) {
		want.Write([]byte(line[:min(len(line), size-n)]))
	}
	want.Write([]byte("slow 1\nslow 2\n"))
	got := sha256.New()
	var total countWriter
	r := Shell(t.Context(), "yes 'architect: a line of output from a chatty process.' | head -c 30000000; for i in 1 2; do sleep 0.01; echo slow $i; done",
		Options{Stdout: io.MultiWriter(got, &total)})
	if r.ExitCode != 0 {
		t.Fatalf("exit %d", r.ExitCode)
	}
	if int(total) != size+14 || !bytes.Equal(got.Sum(nil), want.Sum(nil)) {
		t.Fatalf("got %d bytes (hash %x), want %d (hash %x)", total, got.Sum(nil), size+14, want.Sum(nil))
	}
}

type countWriter int

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }

func TestGrowPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if !growPipe(r, bigPipe) {
		t.Fatal("growPipe failed (has this user reached /proc/sys/fs/pipe-user-pages-soft?)")
	}
	rc, _ := w.SyscallConn()
	size := 0
	rc.Control(func(fd uintptr) { size, _ = unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0) })
	if size < bigPipe {
		t.Fatalf("pipe size %d after growPipe, want %d", size, bigPipe)
	}
}

// On a stop, every process of the run gets SIGTERM and the grace period,
// not only the leader: a member of the group that holds no output pipe,
// and a descendant that left the group with setsid, both finish their
// clean-up (which takes them a moment) before anything is killed.
func TestWholeRunGetsGrace(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	w := newWaiter()
	member := `trap "sleep 0.2; echo cleaned > $0; exit 0" TERM; touch $0.ready; while :; do sleep 0.05; done`
	script := `sh -c '` + member + `' "$D/member" >/dev/null 2>&1 &
setsid sh -c '` + member + `' "$D/escaped" >/dev/null 2>&1 &
while [ ! -e "$D/member.ready" ] || [ ! -e "$D/escaped.ready" ]; do sleep 0.01; done
echo ready
wait`
	done := background(t, ctx, script, Options{Stdout: w, Env: env("D=" + dir), Grace: time.Minute})
	awaitReady(t, w)
	cancel()
	r := awaitResult(t, done)
	is.True(r.Canceled)
	for _, name := range []string{"member", "escaped"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		is.NoErr(err) // it got SIGTERM and the time to clean up
		is.Equal(string(b), "cleaned\n")
	}
}

// What a run leaves behind when its leader exits normally (a background
// process, a daemon) gets SIGTERM and the grace period before SIGKILL.
func TestLeftoversGetTerm(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	dir := t.TempDir()
	left := `trap "echo termed > $0; exit 0" TERM; touch $0.ready; while :; do sleep 0.05; done`
	script := `sh -c '` + left + `' "$D/member" >/dev/null 2>&1 &
setsid -f sh -c '` + left + `' "$D/escaped" >/dev/null 2>&1
while [ ! -e "$D/member.ready" ] || [ ! -e "$D/escaped.ready" ]; do sleep 0.01; done`
	r := Shell(t.Context(), script, Options{Env: env("D=" + dir), Grace: time.Minute})
	is.Equal(r.ExitCode, 0)
	for _, name := range []string{"member", "escaped"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		is.NoErr(err) // SIGTERM, not SIGKILL
		is.Equal(string(b), "termed\n")
	}
}
