//go:build unix

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// A binary that go build made in a git checkout tells its commit, the
// commit's date and whether the tree was modified, from the build
// information alone (nothing set with -ldflags). The checkout here is a
// fresh repository whose main package is architect's main: go build reads
// version control only where .git is a folder, which the worktree this
// repository may be tested from is not.
func TestVersionFromBuildInfo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	is := is.New(t)
	root, err := filepath.Abs("../..")
	is.NoErr(err)
	dir := t.TempDir()
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	is.NoErr(err)
	files := map[string]string{
		"go.mod": "module example.com/architect-build\n\ngo 1.26.8\n\nrequire github.com/architect-dev/architect v0.0.0-00010101000000-000000000000\n\nreplace github.com/architect-dev/architect => " + root + "\n",
		"go.sum": string(sum),
		"main.go": `package main

import (
	"os"

	"github.com/architect-dev/architect/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
`,
	}
	for name, text := range files {
		is.NoErr(os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	home := t.TempDir()
	gitEnv := append(os.Environ(), "HOME="+home, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com",
		"GIT_AUTHOR_DATE=2026-03-04T05:06:07Z", "GIT_COMMITTER_DATE=2026-03-04T05:06:07Z")
	run := func(env []string, name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	goEnv := append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOTOOLCHAIN=local")
	bin := filepath.Join(t.TempDir(), "architect")
	run(goEnv, "go", "build", "-buildvcs=false", "-o", bin, ".") // completes go.sum before the commit
	run(gitEnv, "git", "init", "-q")
	run(gitEnv, "git", "add", "-A")
	run(gitEnv, "git", "commit", "-q", "-m", "build")
	head := run(gitEnv, "git", "rev-parse", "HEAD")

	build := func() map[string]any {
		run(goEnv, "go", "build", "-buildvcs=true", "-o", bin, ".")
		var v map[string]any
		is.NoErr(json.Unmarshal([]byte(run(goEnv, bin, "version", "--json")), &v))
		return v
	}
	v := build()
	is.Equal(v["commit"], head)
	is.Equal(v["date"], "2026-03-04T05:06:07Z")
	is.Equal(v["version"], "v0.0.0-20260304050607-"+head[:12]) // the pseudo-version go build records
	is.Equal(v["modified"], nil)
	line := run(goEnv, bin, "--version")
	is.Equal(line, "architect v0.0.0-20260304050607-"+head[:12]+" (commit "+head[:12]+", 2026-03-04T05:06:07Z, "+v["go"].(string)+" "+v["platform"].(string)+")")

	is.NoErr(os.WriteFile(filepath.Join(dir, "main.go"), []byte(files["main.go"]+"\n// changed\n"), 0o644))
	v = build()
	is.Equal(v["modified"], true)
	is.True(strings.Contains(run(goEnv, bin, "-V"), "(commit "+head[:12]+", modified, "))
}
