//go:build unix

package doctest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/matryer/is"
)

// repoRoot is the folder of the go.mod above the package's folder.
func repoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = up
	}
}

var (
	binOnce sync.Once
	binDir  string
	binErr  error
)

// bins builds architect and mangen from this checkout into one folder,
// with the scripted agent and tools of testdata/bin beside them, once per
// test binary.
func bins(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		root := repoRoot(t)
		binDir, binErr = os.MkdirTemp("", "architect-doctest-bin-")
		if binErr != nil {
			return
		}
		build := exec.Command("go", "build", "-trimpath", "-o", binDir+string(os.PathSeparator), "./cmd/architect", "./cmd/mangen")
		build.Dir = root
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build: %w\n%s", err, out)
			return
		}
		fakes, _ := filepath.Glob(filepath.Join(root, "internal", "doctest", "testdata", "bin", "*"))
		for _, f := range fakes {
			data, err := os.ReadFile(f)
			if err == nil {
				err = os.WriteFile(filepath.Join(binDir, filepath.Base(f)), data, 0o755)
			}
			if err != nil {
				binErr = err
				return
			}
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// env is the environment the docs' commands run in: a home and git
// configuration of the test's own, the Go caches of the machine (read
// before HOME changes), a temporary folder inside the test's, and the
// built binaries and scripted agents first on PATH.
type env struct {
	vars []string
	home string
}

func newEnv(t *testing.T) env {
	t.Helper()
	base := t.TempDir()
	home := filepath.Join(base, "home")
	tmp := filepath.Join(base, "tmp")
	for _, d := range []string{home, tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	gitconfig := filepath.Join(home, ".gitconfig")
	if err := os.WriteFile(gitconfig, []byte("[user]\n\tname = Doc Test\n\temail = doctest@example.com\n[init]\n\tdefaultBranch = main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	vars := []string{
		"HOME=" + home,
		"GIT_CONFIG_GLOBAL=" + gitconfig,
		"GIT_CONFIG_NOSYSTEM=1",
		"TMPDIR=" + tmp,
		"PATH=" + bins(t) + string(os.PathListSeparator) + os.Getenv("PATH"),
		"GOTOOLCHAIN=local",
		// No module downloads, and nothing installed into the machine's
		// GOPATH/bin: an unmarked `go install …@latest` fails.
		"GOPROXY=off",
		"GOBIN=" + filepath.Join(base, "gobin"),
		"GOFLAGS=-mod=mod",
		"TERM=dumb",
		"LANG=C.UTF-8",
		// The scratch project's agent is a script, and the CI runners
		// differ in what the sandbox can use: the docs' commands run
		// without it, as the whole-binary tests do.
		"ARCHITECT_SANDBOX=off",
		// Claude Code refuses to run as root without it, and architect
		// says so before starting it; CI runs as root in a container.
		"IS_SANDBOX=1",
	}
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOROOT"} {
		if v := goEnv(k); v != "" {
			vars = append(vars, k+"="+v)
		}
	}
	return env{vars: vars, home: home}
}

var (
	goEnvOnce sync.Once
	goEnvVals = map[string]string{}
)

func goEnv(k string) string {
	goEnvOnce.Do(func() {
		out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH", "GOROOT").Output()
		if err != nil {
			return
		}
		for i, v := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			goEnvVals[[]string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOROOT"}[i]] = v
		}
	})
	return goEnvVals[k]
}

// project copies testdata/project into a new folder and commits it: the
// git repository each block (or, with `each`, each command) starts from.
func project(t *testing.T, e env) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "project")
	src := filepath.Join(repoRoot(t), "internal", "doctest", "testdata", "project")
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"git init -q", "git add -A", "git commit -q -m initial"} {
		if out, code := run(t, e, dir, c); code != 0 {
			t.Fatalf("%s: exit status %d\n%s", c, code, out)
		}
	}
	return dir
}

// run runs cmd with bash in dir, in a process group of its own that is
// killed after two minutes, and returns its output and exit status.
func run(t *testing.T, e env, dir, cmd string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, "bash", "-o", "pipefail", "-c", cmd)
	c.Dir = dir
	c.Env = e.vars
	c.Stdin = nil
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
	c.WaitDelay = 5 * time.Second
	err := c.Run()
	if ctx.Err() != nil {
		return out.String() + "\n(killed after 2 minutes)", -1
	}
	if err != nil && c.ProcessState == nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	return out.String(), c.ProcessState.ExitCode()
}

func allBlocks(t *testing.T) []Block {
	t.Helper()
	root := repoRoot(t)
	files, err := Files(root)
	if err != nil {
		t.Fatal(err)
	}
	var out []Block
	for _, f := range files {
		bs, err := ParseFile(filepath.Join(root, f), f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, bs...)
	}
	return out
}

// TestDocsCommands runs every shell block of README.md and docs/*.md:
// each command with bash in a scratch git repository (testdata/project),
// through the binaries built from this checkout, with a scripted Claude
// Code and stand-ins for golangci-lint, pytest and ruff on PATH
// (testdata/bin); every command must exit 0. What would reach the network
// or change the machine (npm, brew, curl, wget, pip, apt-get, sudo, module
// downloads) fails instead, so such a block must be marked. A block marked skip or synopsis is not run:
// each of its architect commands is parsed with --help instead, so a flag
// architect does not have still fails. A block marked ci holds commands
// .ci/run runs: each must be a line of .ci/run as it is, and its architect
// commands run here too.
func TestDocsCommands(t *testing.T) {
	blocks := allBlocks(t)
	if len(blocks) < 10 {
		t.Fatalf("found %d shell blocks in README.md and docs/: the extraction is broken", len(blocks))
	}
	ciRun, err := os.ReadFile(filepath.Join(repoRoot(t), ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	ciLines := map[string]bool{}
	for _, l := range strings.Split(string(ciRun), "\n") {
		ciLines[strings.TrimSpace(l)] = true
	}
	for _, b := range blocks {
		t.Run(fmt.Sprintf("%s:%d", b.File, b.Line), func(t *testing.T) {
			t.Parallel()
			is := is.New(t)
			cmds := b.Commands()
			is.True(len(cmds) > 0) // an empty shell block
			e := newEnv(t)
			if b.Skip != "" || b.Synopsis {
				dir := t.TempDir()
				for _, line := range cmds {
					for _, c := range ArchitectCalls(Rewrite(line)) {
						c = FlagsOnly(c, b.Synopsis)
						if out, code := run(t, e, dir, c); code != 0 {
							t.Errorf("%s (parsing its flags only: the block is marked %s): exit status %d\n%s", c, marker(b), code, out)
						}
					}
				}
				return
			}
			if b.CI != "" {
				for _, c := range cmds {
					if !ciLines[strings.TrimSpace(commentRE.ReplaceAllString(c, ""))] {
						t.Errorf("%q is marked as run by .ci/run, which has no such line", c)
					}
				}
			}
			var dir string
			for i, c := range cmds {
				c = Rewrite(c)
				if b.CI != "" && !IsArchitect(c) {
					continue // .ci/run runs it
				}
				if i == 0 || b.Each {
					dir = project(t, e)
					for _, s := range b.Setup {
						if out, code := run(t, e, dir, s); code != 0 {
							t.Fatalf("setup %s: exit status %d\n%s", s, code, out)
						}
					}
				}
				if out, code := run(t, e, dir, c); code != 0 {
					t.Errorf("%s: exit status %d, want 0\n%s", c, code, out)
				}
			}
		})
	}
}

func marker(b Block) string {
	if b.Synopsis {
		return "synopsis"
	}
	return "skip: " + b.Skip
}

// TestMarkersRefuseTypos: a marker that is not one of the kinds, or a skip
// without its reason, fails the parse instead of switching a check off.
func TestMarkersRefuseTypos(t *testing.T) {
	for _, tc := range []struct{ name, md, err string }{
		{"unknown kind", "<!-- doctest: skp: no -->\n```sh\narchitect\n```\n", "unknown doctest marker"},
		{"skip without reason", "<!-- doctest: skip -->\n```sh\narchitect\n```\n", "needs its reason"},
		{"marker not above a fence", "<!-- doctest: synopsis -->\ntext\n```sh\narchitect\n```\n", "right above"},
		{"marker above a yaml block", "<!-- doctest: synopsis -->\n```yaml\na: 1\n```\n", "not run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			p := filepath.Join(t.TempDir(), "x.md")
			is.NoErr(os.WriteFile(p, []byte(tc.md), 0o644))
			_, err := ParseFile(p, "x.md")
			is.True(err != nil)
			is.True(strings.Contains(err.Error(), tc.err))
		})
	}
}

func TestCommands(t *testing.T) {
	for _, tc := range []struct {
		name, lang, text string
		want             []string
	}{
		{"continuations and comments", "sh", "# a comment\narchitect loop \"x\" \\\n  --check true\n\narchitect status  # status\n", []string{`architect loop "x"   --check true`, "architect status  # status"}},
		{"console prompts", "console", "$ architect status\nidle\n$ architect show 1\n", []string{"architect status", "architect show 1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			is.Equal(Block{Lang: tc.lang, Text: tc.text}.Commands(), tc.want)
		})
	}
	is := is.New(t)
	is.Equal(Rewrite("go run ./cmd/architect demo"), "architect demo")
	is.Equal(ArchitectCalls(`source <(architect completion bash)          # bash`), []string{"architect completion bash"})
	is.Equal(ArchitectCalls(`architect completion zsh > "${fpath[1]}/_architect"`), []string{"architect completion zsh"})
	is.Equal(ArchitectCalls(`architect completion fish | source`), []string{"architect completion fish"})
	is.Equal(ArchitectCalls(`git diff ...architect/ralph-loop`), []string(nil))
	is.Equal(FlagsOnly("architect show [N] [-C DIR] [--json]   # iteration N", true), "architect show N -C DIR --json --help")
	is.Equal(FlagsOnly(`architect loop --resume [-C DIR] [--max-iterations 40 …]`, true), "architect loop --resume -C DIR --max-iterations 40 --help")
}
