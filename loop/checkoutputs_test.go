package loop

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/runlog"
	"github.com/matryer/is"
)

// A build-mode run's commits take in the agent's files, not the ones the
// checks created, nor the ones git ignores; a check output the agent later
// changes becomes the agent's work.
func TestCommitsLeaveOutCheckOutputs(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	cfg.Mode = "build"
	cfg.IdleThreshold = 0
	cfg.MaxIterations = 3
	cfg.Checks = []string{"echo report > report.txt; mkdir -p out && echo x > out/bin.o"}
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", cfg.Dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	is.NoErr(os.WriteFile(filepath.Join(cfg.Dir, ".gitignore"), []byte("*.log\n"), 0o644))
	git("add", "-A")
	git("commit", "-qm", "one")
	a := &scripted{outcomes: []agent.Outcome{{FinalMessage: "working"}}, edit: func(dir string, run int) {
		switch run {
		case 0:
			_ = os.WriteFile(filepath.Join(dir, "code.go"), []byte("package x\n"), 0o644)
			_ = os.WriteFile(filepath.Join(dir, "debug.log"), []byte("noise\n"), 0o644)
		case 2:
			_ = os.WriteFile(filepath.Join(dir, "report.txt"), []byte("written by the agent\n"), 0o644)
		}
	}}
	res, _, _ := run(t, cfg, a)
	is.Equal(res.TotalIterations, 3)
	files := git("ls-files")
	is.True(strings.Contains(files, "code.go"))
	is.True(!strings.Contains(files, "out/bin.o")) // the checks' file
	is.True(!strings.Contains(files, "debug.log")) // ignored
	// iteration 3's agent wrote report.txt: from then on it is the agent's,
	// and iteration 3's commit takes it in
	is.True(strings.Contains(files, "report.txt"))
	is.Equal(git("log", "-1", "--format=%s"), "architect: iteration 3 (1/1 checks passing)")
	is.Equal(git("show", "HEAD:report.txt"), "report") // as the checks left it after the agent's edit
	_, err := os.Stat(filepath.Join(cfg.Dir, runlog.StateDir, CheckOutputsFile))
	is.NoErr(err)
}
