package loop

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/prompt"
	"github.com/architect-dev/architect/runlog"
)

// From iteration 2 on, the prompt shows the changed files whole, as they
// are now: new and edited text files, in the diff's order; not a deleted
// file, not a binary one, not what a symbolic link points to, and only
// by name a file too large or not UTF-8 text.
func TestPromptShowsChangedFilesWhole(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	cfg.Checks = []string{"test -f ok"}
	dir := cfg.Dir
	write := func(name, content string) {
		t.Helper()
		is.NoErr(os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
		is.NoErr(os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
	}
	write("solution.py", "def f(x):\n    pass\n")
	write("gone.py", "print('old')\n")
	write("big.txt", "small at first\n")
	gitInit(t, dir)
	gitCommitAll(t, dir)
	outside := filepath.Join(t.TempDir(), "private.txt")
	is.NoErr(os.WriteFile(outside, []byte("OUTSIDE-THE-WORKSPACE\n"), 0o644))

	solution := "def f(x):\n    return x + 1\n"
	a := &named{name: "claude", outcomes: []agent.Outcome{{FinalMessage: "not yet"}, done}, before: func(req agent.Request, run int) {
		if run == 0 {
			write("solution.py", solution)
			write("new dir/util.py", "UTIL = 1\n")
			write("big.txt", strings.Repeat("x", prompt.FilesLimit+1))
			write("data.bin", "\x00\x01binary")
			write("latin1.txt", "caf\xe9\n") // text to git, not UTF-8
			_ = os.Remove(filepath.Join(dir, "gone.py"))
			_ = os.Symlink(outside, filepath.Join(dir, "leak.py"))
		} else {
			write("ok", "")
		}
	}}
	res, _, _, _ := runFallback(t, cfg, a)
	is.Equal(res.StopReason, runlog.StopSuccess)

	_, ok := sectionOf(a.prompts[0], prompt.HeadingFiles)
	is.True(!ok) // nothing changed yet
	body, ok := sectionOf(a.prompts[1], prompt.HeadingFiles)
	is.True(ok)
	is.True(strings.Contains(body, "### `solution.py`\n\n```py\n"+solution+"```"))
	is.True(strings.Contains(body, "### `new dir/util.py`\n\n```py\nUTIL = 1\n```"))
	is.True(strings.Index(body, "`new dir/util.py`") < strings.Index(body, "`solution.py`")) // the diff's order
	is.True(strings.Contains(body, "not shown here (too large or not text; read them in the workspace): `big.txt`, `latin1.txt`."))
	is.True(!strings.Contains(body, "gone.py"))
	is.True(!strings.Contains(body, "OUTSIDE-THE-WORKSPACE"))
	is.True(!strings.Contains(body, "xxxxxxxx"))
	is.True(!strings.Contains(body, "leak.py"))  // a link is not a file to show or to name
	is.True(!strings.Contains(body, "data.bin")) // the diff says it is binary
}

// sectionOf returns the body of the prompt section under heading.
func sectionOf(p, heading string) (string, bool) {
	i := strings.Index(p, "\n"+heading+"\n")
	if i < 0 {
		return "", false
	}
	body := p[i+len(heading)+2:]
	if j := strings.Index(body, "\n## "); j >= 0 {
		body = body[:j]
	}
	return body, true
}

func gitCommitAll(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{{"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "base"}} {
		gitT(t, dir, args...)
	}
}

func gitT(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := gitCmd(dir, args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// The files fill prompt.FilesLimit in order: one that does not fit is
// named, and a later one that fits is still shown.
func TestCurrentFilesBudget(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	half := strings.Repeat("a", prompt.FilesLimit/2)
	for name, content := range map[string]string{"one": half, "two": half + "b", "three": "c", "four": strings.Repeat("d", prompt.FilesLimit/2)} {
		is.NoErr(os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
	}
	shown, left := currentFiles(dir, []string{"one", "two", "three", "missing", "four"})
	var names []string
	for _, f := range shown {
		names = append(names, f.Path)
	}
	is.Equal(names, []string{"one", "three"})
	is.Equal(left, []string{"two", "four"})
	is.Equal(shown[0].Content, half)
}

func gitCmd(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	return cmd
}
