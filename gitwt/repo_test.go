package gitwt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/matryer/is"
)

func TestOpenOutsideRepository(t *testing.T) {
	is := is.New(t)
	isolate(t, true)
	_, err := Open(context.Background(), t.TempDir())
	is.True(errors.Is(err, ErrNotRepo))
}

func TestOpenFromSubfolderAndWorktree(t *testing.T) {
	is := is.New(t)
	dir := newRepo(t)
	write(t, dir, "sub/f.txt", "x\n")
	commit(t, dir, "first")
	ctx := context.Background()

	r := open(t, filepath.Join(dir, "sub"))
	top, _ := filepath.EvalSymlinks(dir)
	is.Equal(r.Dir(), top)
	is.Equal(r.commonDir, filepath.Join(top, ".git"))

	wt := filepath.Join(t.TempDir(), "wt")
	is.NoErr(r.AddWorktree(ctx, wt, "feature", "HEAD"))
	w := open(t, wt)
	is.Equal(w.commonDir, filepath.Join(top, ".git")) // shared with the main checkout
	is.True(w.gitDir != r.gitDir)                     // but its own index
}

func TestHead(t *testing.T) {
	is := is.New(t)
	dir := newRepo(t)
	ctx := context.Background()
	r := open(t, dir)

	head, err := r.Head(ctx)
	is.NoErr(err)
	is.Equal(head, "") // no commit yet
	branch, err := r.CurrentBranch(ctx)
	is.NoErr(err)
	is.Equal(branch, "main") // unborn, but named

	write(t, dir, "a.txt", "a\n")
	want := commit(t, dir, "first")
	head, err = r.Head(ctx)
	is.NoErr(err)
	is.Equal(head, want)
	is.Equal(len(head), 40)

	gitT(t, dir, "checkout", "--quiet", "--detach")
	branch, err = r.CurrentBranch(ctx)
	is.NoErr(err)
	is.Equal(branch, "") // detached
}

func TestBranchExists(t *testing.T) {
	is := is.New(t)
	dir := newRepo(t)
	write(t, dir, "a.txt", "a\n")
	commit(t, dir, "first")
	gitT(t, dir, "branch", "other")
	r := open(t, dir)
	for name, want := range map[string]bool{"main": true, "other": true, "nope": false, "bad..name": false} {
		got, err := r.BranchExists(context.Background(), name)
		is.NoErr(err)
		is.Equal(got, want) // name
	}
}

func TestExclude(t *testing.T) {
	is := is.New(t)
	dir := newRepo(t)
	r := open(t, dir)
	ctx := context.Background()
	path := filepath.Join(dir, ".git", "info", "exclude")

	// The user's own lines stay, even without a final newline.
	is.NoErr(os.WriteFile(path, []byte("# mine\n*.log\n/.architect/\n/build"), 0o644))
	is.NoErr(r.Exclude(ctx, "/.architect/", "/.architect-ralph-worktree/", "/.architect-worktrees/"))
	is.NoErr(r.Exclude(ctx, "/.architect-worktrees/", "/.architect/")) // idempotent
	got, err := os.ReadFile(path)
	is.NoErr(err)
	is.Equal(string(got), "# mine\n*.log\n/.architect/\n/build\n/.architect-ralph-worktree/\n/.architect-worktrees/\n")

	// git now ignores the folders.
	write(t, dir, ".architect/state.json", "{}\n")
	write(t, dir, ".architect-worktrees/x/f", "x\n")
	is.Equal(gitT(t, dir, "status", "--porcelain"), "")

	is.True(r.Exclude(ctx, "a\nb") != nil)
	is.True(r.Exclude(ctx, "") != nil)
}

func TestExcludeCreatesFile(t *testing.T) {
	is := is.New(t)
	dir := newRepo(t)
	is.NoErr(os.RemoveAll(filepath.Join(dir, ".git", "info")))
	r := open(t, dir)
	is.NoErr(r.Exclude(context.Background(), "/.architect/"))
	got, err := os.ReadFile(filepath.Join(dir, ".git", "info", "exclude"))
	is.NoErr(err)
	is.Equal(string(got), "/.architect/\n")
}

func TestGitError(t *testing.T) {
	is := is.New(t)
	dir := newRepo(t)
	r := open(t, dir)
	_, err := r.UnmergedCommits(context.Background(), "nope", "main")
	var ge *GitError
	is.True(errors.As(err, &ge))
	is.Equal(ge.ExitCode, 128)
	is.Equal(ge.Args[:2], []string{"-C", r.Dir()})
	is.True(strings.HasPrefix(err.Error(), "git rev-list --count main..nope --: fatal:")) // names the command, then git's message
}

func TestCanceled(t *testing.T) {
	is := is.New(t)
	dir := newRepo(t)
	r := open(t, dir)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := r.Head(ctx)
	is.True(errors.Is(err, context.Canceled))
}

// TestFixtureScript checks the fixture the CLI's tests use: one commit
// with a fixed hash, and a test that fails.
func TestFixtureScript(t *testing.T) {
	is := is.New(t)
	isolate(t, false)
	script, err := filepath.Abs("../testdata/repos/failing-go-test.sh")
	is.NoErr(err)
	heads := map[string]bool{}
	for range 2 {
		dir := filepath.Join(t.TempDir(), "repo")
		out, err := exec.Command("sh", script, dir).CombinedOutput()
		is.NoErr(err) // script output in out
		is.Equal(string(out), "")
		head, err := open(t, dir).Head(context.Background())
		is.NoErr(err)
		heads[head] = true
		is.Equal(gitT(t, dir, "status", "--porcelain"), "")
		is.True(exists(filepath.Join(dir, "calc_test.go")))
	}
	is.Equal(len(heads), 1) // same hash every time
}

// TestExcludeConcurrently: loops starting together (a batch) write each
// line once.
func TestExcludeConcurrently(t *testing.T) {
	is := is.New(t)
	dir := newRepo(t)
	r := open(t, dir)
	path := filepath.Join(dir, ".git", "info", "exclude")
	for range 30 {
		is.NoErr(os.RemoveAll(filepath.Dir(path)))
		var wg sync.WaitGroup
		errs := make([]error, 16)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = r.Exclude(context.Background(), "/.architect/", "/.architect-worktrees/", fmt.Sprintf("/task%d/.architect/", i%2))
			}()
		}
		wg.Wait()
		for _, err := range errs {
			is.NoErr(err)
		}
		got, err := os.ReadFile(path)
		is.NoErr(err)
		lines := strings.Split(strings.TrimSpace(string(got)), "\n")
		slices.Sort(lines)
		is.Equal(lines, []string{"/.architect-worktrees/", "/.architect/", "/task0/.architect/", "/task1/.architect/"})
	}
}
