package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The command line's own logic (help, flag and value checks, the error
// and hint lines, exit codes) is tested here by calling Main in the test
// process: what the scripts in cmd/architect/testdata/script did through
// the binary, a few milliseconds a command instead of a process start.
// The scripts keep what only the binary shows.

// result is how one call of Main ended.
type result struct {
	code           int
	stdout, stderr string
}

// mainIn runs Main with args in dir (the test's folder when empty), with
// no ARCHITECT_* or GITHUB_* variable set (a script's environment has
// none), and returns its exit status and output.
func mainIn(t *testing.T, dir string, args ...string) result {
	t.Helper()
	return mainEnv(t, dir, nil, args...)
}

// mainEnv is mainIn with the variables env (NAME=VALUE) set.
func mainEnv(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "ARCHITECT_") || strings.HasPrefix(k, "GITHUB_") {
			t.Setenv(k, "")
			_ = os.Unsetenv(k)
		}
	}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	if dir != "" {
		t.Chdir(dir)
	}
	var stdout, stderr bytes.Buffer
	code := Main(args, strings.NewReader(""), &stdout, &stderr)
	return result{code, stdout.String(), stderr.String()}
}

// has fails the test unless the text matches pattern (a regular
// expression, ^ and $ at line ends, as a script's stdout/stderr).
func has(t *testing.T, what, text, pattern string) {
	t.Helper()
	if !regexp.MustCompile("(?m)" + pattern).MatchString(text) {
		t.Errorf("%s: no match for `%s` in:\n%s", what, pattern, text)
	}
}

// lacks fails the test if the text matches pattern.
func lacks(t *testing.T, what, text, pattern string) {
	t.Helper()
	if regexp.MustCompile("(?m)" + pattern).MatchString(text) {
		t.Errorf("%s: unexpected match for `%s` in:\n%s", what, pattern, text)
	}
}

// status fails the test unless r ended with code.
func (r result) status(t *testing.T, code int) result {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.stdout, r.stderr)
	}
	return r
}

// gitRepo makes a folder with a git repository and one committed file, as
// the scripts' gitrepo command does, and returns it.
func gitRepo(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "file.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}
