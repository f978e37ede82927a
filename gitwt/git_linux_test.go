package gitwt

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/architect-dev/architect/internal/testutil"
	"github.com/matryer/is"
)

// hook installs an executable hook script in dir's repository.
func hook(t *testing.T, dir, name, script string) {
	t.Helper()
	path := filepath.Join(dir, ".git", "hooks", name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// pidIn reads a pid a hook wrote, waiting for it.
func pidIn(t *testing.T, path string) int {
	t.Helper()
	n := 0
	if !testutil.Until(20*time.Second, func() bool {
		b, err := os.ReadFile(path)
		v, err2 := strconv.Atoi(strings.TrimSpace(string(b)))
		n = v
		return err == nil && err2 == nil
	}) {
		t.Fatalf("%s was not written", path)
	}
	return n
}

// A commit canceled while its pre-commit hook runs ends at once, hook
// and all (git runs under the run's supervision like any process), and
// leaves no index.lock behind: git gets SIGTERM, not SIGKILL.
func TestCanceledCommitEndsHook(t *testing.T) {
	is := is.New(t)
	dir := newRepo(t)
	write(t, dir, "a.txt", "a\n")
	commit(t, dir, "first")
	write(t, dir, "a.txt", "b\n")
	child := filepath.Join(t.TempDir(), "child")
	t.Setenv("CHILD", child)
	hook(t, dir, "pre-commit", `sleep 30 & echo $! > "$CHILD"; wait`+"\n")
	r := open(t, dir)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, _, err := commitAll(ctx, r, "second")
		done <- err
	}()
	pid := pidIn(t, child)
	t.Cleanup(func() {
		if testutil.Alive(pid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	began := time.Now()
	cancel()
	var err error
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the canceled commit did not end")
	}
	is.True(errors.Is(err, context.Canceled))
	is.True(time.Since(began) < waitDelay+time.Second) // SIGTERM, then at most the grace period
	is.True(!testutil.Alive(pid))                      // the hook's child is gone too
	is.True(!exists(filepath.Join(dir, ".git", "index.lock")))
}

// What a hook leaves running after git has finished is ended with it;
// the commit still succeeds.
func TestHookLeftoverEnded(t *testing.T) {
	is := is.New(t)
	dir := newRepo(t)
	write(t, dir, "a.txt", "a\n")
	commit(t, dir, "first")
	write(t, dir, "a.txt", "b\n")
	child := filepath.Join(t.TempDir(), "child")
	t.Setenv("CHILD", child)
	hook(t, dir, "post-commit", `sleep 30 >/dev/null 2>&1 & echo $! > "$CHILD"`+"\n")
	r := open(t, dir)
	hash, committed, err := commitAll(context.Background(), r, "second")
	is.NoErr(err)
	is.True(committed)
	is.Equal(hash, gitT(t, dir, "rev-parse", "HEAD"))
	is.True(!testutil.Alive(pidIn(t, child)))
}

// commitAll stages everything and commits it, each step a git run: what is
// under test is how a git run ends, with the hooks it started.
func commitAll(ctx context.Context, r *Repo, message string) (string, bool, error) {
	if err := r.Git(ctx, Command{}, "add", "-A"); err != nil {
		return "", false, err
	}
	if err := r.Git(ctx, Command{}, "commit", "--quiet", "-m", message); err != nil {
		return "", false, err
	}
	hash, err := r.Head(ctx)
	return hash, err == nil, err
}
