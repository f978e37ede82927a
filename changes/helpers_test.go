package changes

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/architect-dev/architect/gitwt"
	"github.com/matryer/is"
)

// isolate keeps the developer's git configuration and environment out of a
// test: HOME and GIT_CONFIG_GLOBAL point at a fresh folder, the system
// config is skipped, and variables that name an identity or a repository
// are unset. With identity, the global config names a test user.
func isolate(t *testing.T, identity bool) {
	t.Helper()
	home := t.TempDir()
	config := filepath.Join(home, "gitconfig")
	text := "[init]\n\tdefaultBranch = main\n[commit]\n\tgpgSign = false\n"
	if identity {
		text += "[user]\n\tname = Test User\n\temail = test@example.com\n"
	}
	if err := os.WriteFile(config, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", home)
	t.Setenv("GIT_CONFIG_GLOBAL", config)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(home))
	t.Setenv("TMPDIR", t.TempDir())
	for _, name := range []string{
		"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL",
		"EMAIL", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT",
	} {
		t.Setenv(name, "") // restored after the test
		os.Unsetenv(name)
	}
}

// newRepo isolates the test and makes an empty repository on branch main.
func newRepo(t *testing.T) string {
	t.Helper()
	isolate(t, true)
	dir := t.TempDir()
	gitT(t, dir, "init", "--quiet")
	return dir
}

// gitT runs git in dir for a test and returns its trimmed output.
func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// write creates or replaces dir/name, making folders as needed.
func write(t *testing.T, dir, name, text string) {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// commit stages everything in dir with git itself and commits it.
func commit(t *testing.T, dir, message string) string {
	t.Helper()
	gitT(t, dir, "add", "-A")
	gitT(t, dir, "commit", "--quiet", "-m", message)
	return gitT(t, dir, "rev-parse", "HEAD")
}

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
