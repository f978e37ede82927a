package gitwt

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/architect-dev/architect/internal/testutil"

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
func open(t *testing.T, dir string) *Repo {
	t.Helper()
	r, err := Open(context.Background(), dir)
	is.New(t).NoErr(err)
	return r
}

// exists reports whether path exists.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// runGit runs git in dir and returns its trimmed output, for a benchmark
// or a test that looks at git's failure itself.
func runGit(dir string, args ...string) (string, error) {
	var out strings.Builder
	err := run(context.Background(), dir, Command{Stdout: &out}, args...)
	return strings.TrimSpace(out.String()), err
}
