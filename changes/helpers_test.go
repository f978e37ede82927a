package changes

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/architect-dev/architect/internal/testutil"

	"github.com/architect-dev/architect/gitwt"
	"github.com/matryer/is"
)

// The git helpers every package's tests share (internal/testutil).
var (
	isolate = testutil.IsolateGit
	newRepo = testutil.NewRepo
	gitT    = testutil.Git
	write   = testutil.WriteFile
	commit  = testutil.Commit
)

// open opens dir or fails the test.
func open(t *testing.T, dir string) *gitwt.Repo {
	t.Helper()
	r, err := gitwt.Open(context.Background(), dir)
	is.New(t).NoErr(err)
	return r
}

// exists reports whether path exists.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// run runs `git -C dir args…` for a test, in the environment gitwt gives
// git (C locale, no prompt, no optional locks) plus c.Env.
func run(ctx context.Context, dir string, c gitwt.Command, args ...string) error {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir, "-c", "gc.autoDetach=false"}, args...)...)
	cmd.Env = append(append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "GIT_OPTIONAL_LOCKS=0"), c.Env...)
	cmd.Stdin, cmd.Stdout = c.Stdin, c.Stdout
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, stderr.String())
	}
	return nil
}

// gitEnvT runs git in dir with env added and stdin, for a test, and returns
// its trimmed standard output.
func gitEnvT(t *testing.T, dir string, env []string, stdin string, args ...string) string {
	t.Helper()
	var out strings.Builder
	err := run(context.Background(), dir, gitwt.Command{Env: env, Stdin: strings.NewReader(stdin), Stdout: &out}, args...)
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(out.String())
}

// treeWithoutCache writes the tree of the index file index's entries from
// a fresh index holding them (no tree cache to trust).
func treeWithoutCache(t *testing.T, dir, index string) string {
	t.Helper()
	entries := gitEnvT(t, dir, []string{"GIT_INDEX_FILE=" + index}, "", "ls-files", "-s", "-z")
	fresh := []string{"GIT_INDEX_FILE=" + filepath.Join(t.TempDir(), "fresh-index")}
	gitEnvT(t, dir, fresh, entries, "update-index", "-z", "--index-info")
	return gitEnvT(t, dir, fresh, "", "write-tree")
}

// repoWithCommit makes a repository with one commit and returns it and the
// commit's hash.
func repoWithCommit(t *testing.T) (string, string) {
	t.Helper()
	dir := newRepo(t)
	write(t, dir, "README.md", "hello\n")
	return dir, commit(t, dir, "first")
}
