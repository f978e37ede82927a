package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// IsolateGit keeps the developer's git configuration and environment out of a
// test: HOME and GIT_CONFIG_GLOBAL point at a fresh folder, the system
// config is skipped, and variables that name an identity or a repository
// are unset. With identity, the global config names a test user.
func IsolateGit(t *testing.T, identity bool) {
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

// NewRepo isolates the test and makes an empty repository on branch main.
func NewRepo(t *testing.T) string {
	t.Helper()
	IsolateGit(t, true)
	dir := t.TempDir()
	Git(t, dir, "init", "--quiet")
	return dir
}

// Git runs git in dir for a test and returns its trimmed output.
func Git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// WriteFile creates or replaces dir/name, making folders as needed.
func WriteFile(t *testing.T, dir, name, text string) {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Commit stages everything in dir with git itself and commits it.
func Commit(t *testing.T, dir, message string) string {
	t.Helper()
	Git(t, dir, "add", "-A")
	Git(t, dir, "commit", "--quiet", "-m", message)
	return Git(t, dir, "rev-parse", "HEAD")
}
