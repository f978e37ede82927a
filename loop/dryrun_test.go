package loop

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/runlog"
	"github.com/matryer/is"
)

// The first prompt of a new run, built without creating anything: no
// changes in place (the checkout as it is is the base), the checkout's
// changes in build mode, no progress from an earlier run, secrets masked; and
// for a worktree run, no changes (the worktree starts from HEAD).
func TestFirstPrompt(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	cfg.Task = "fix the bug"
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", cfg.Dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	is.NoErr(os.WriteFile(filepath.Join(cfg.Dir, "a.txt"), []byte("one\n"), 0o644))
	git("add", "-A")
	git("commit", "-qm", "one")
	is.NoErr(os.WriteFile(filepath.Join(cfg.Dir, "a.txt"), []byte("one\ntoken-s3cret\n"), 0o644))
	// an earlier run's progress, which a new run archives before it starts
	is.NoErr(os.MkdirAll(filepath.Join(cfg.Dir, runlog.StateDir), 0o700))
	is.NoErr(os.WriteFile(filepath.Join(cfg.Dir, runlog.StateDir, runlog.ProgressFile), []byte("EARLIER RUN"), 0o600))
	before, err := os.ReadDir(filepath.Join(cfg.Dir, runlog.StateDir))
	is.NoErr(err)

	mask := func(s string) string { return strings.ReplaceAll(s, "s3cret", "***") }
	text, err := FirstPrompt(context.Background(), cfg, mask)
	is.NoErr(err)
	is.True(strings.Contains(text, "fix the bug"))
	is.True(!strings.Contains(text, "token"))         // the checkout as it is is the run's base: no change yet
	is.True(!strings.Contains(text, "EARLIER RUN"))   // a new run starts with no progress
	is.True(strings.Contains(text, "iteration 1 of")) // the first iteration
	after, err := os.ReadDir(filepath.Join(cfg.Dir, runlog.StateDir))
	is.NoErr(err)
	is.Equal(len(after), len(before)) // nothing written

	cfg.Mode = config.ModeBuild // commits on the branch: measured from HEAD
	text, err = FirstPrompt(context.Background(), cfg, mask)
	is.NoErr(err)
	is.True(strings.Contains(text, "+token-***")) // the checkout's change, masked
	is.True(!strings.Contains(text, "s3cret"))    // nothing unmasked
	cfg.Mode = ""

	cfg.Worktree = true
	text, err = FirstPrompt(context.Background(), cfg, nil)
	is.NoErr(err)
	is.True(!strings.Contains(text, "token")) // the worktree would start from HEAD
	_, err = os.Stat(filepath.Join(cfg.Dir, DefaultWorktree))
	is.True(os.IsNotExist(err))
}
