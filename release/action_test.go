package release_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/architect-dev/architect/internal/acttest"
	"github.com/matryer/is"
)

// actionWorkflow uses the action at the release tag, with the release
// download pointed at a local server and no Go on PATH.
const actionWorkflow = `name: release-action
on: push
jobs:
  loop:
    runs-on: ubuntu-latest
    env:
      ARCHITECT_DOWNLOAD_URL: BASE
    steps:
      - uses: actions/checkout@v4
      - name: no go
        run: if command -v go; then echo "go is on PATH"; exit 1; fi; echo "no go on PATH"
      - id: arch
        uses: OWNER/architect@TAG
        env:
          AGENT_MODE: fix
        with:
          task: Make Add add.
          agent-cmd: ./agent.sh
          checks: ./check.sh
          max-iterations: 2
      - name: after
        env:
          SUCCESS: ${{ steps.arch.outputs.success }}
        run: |
          echo "success=$SUCCESS"
          architect --version
`

// pathWithoutGo is PATH without the folders that hold a go command.
func pathWithoutGo() string {
	var keep []string
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(d, "go")); err == nil {
			continue
		}
		keep = append(keep, d)
	}
	return strings.Join(keep, string(os.PathListSeparator))
}

func runAction(t *testing.T, releaseDir string) *acttest.Result {
	t.Helper()
	srv := serve(t, releaseDir)
	files := map[string]string{}
	project := filepath.Join(acttest.ModuleRoot(t), "actions", "testdata", "project")
	entries, err := os.ReadDir(project)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(project, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = string(data)
	}
	wf := strings.NewReplacer("BASE", srv.URL+"/releases", "TAG", tag).Replace(actionWorkflow)
	files[".github/workflows/release-action.yml"] = wf
	r := acttest.Run(t, acttest.Options{
		Dir:        acttest.Repo(t, files),
		LocalRepos: map[string]string{"OWNER/architect@" + tag: acttest.Source(t)},
		Env:        []string{"PATH=" + pathWithoutGo()},
	})
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("steps printed:\n%s\nact:\n%s", r.Output(), r.Log)
		}
	})
	return r
}

// At a release tag the action downloads that release's binary, checked,
// and runs the loop with it: no Go on the runner.
func TestActionDownloadsRelease(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("act runs the workflow on the host: Linux")
	}
	acttest.Bin(t)
	is := is.New(t)
	r := runAction(t, dist(t))
	is.True(r.Printed("no go on PATH"))
	is.True(r.Printed("architect: downloading release " + tag))
	is.True(r.Printed("architect install: installed architect " + version))
	is.True(!r.Printed("building architect"))
	is.Equal(r.StepResult("arch"), "success")
	is.True(r.Printed("success=true"))
	is.True(r.Printed("architect " + version + " (")) // the release binary is on PATH
	is.Equal(r.JobResult(), "success")
}

// A release archive that does not match its checksum fails the step with
// an error annotation; no loop runs.
func TestActionRefusesTamperedRelease(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("act runs the workflow on the host: Linux")
	}
	acttest.Bin(t)
	is := is.New(t)
	d := dist(t)
	dir := t.TempDir()
	name := archiveName(runtime.GOOS, runtime.GOARCH)
	for _, f := range []string{name, "checksums.txt"} {
		data, err := os.ReadFile(filepath.Join(d, f))
		is.NoErr(err)
		if f == name {
			data[len(data)/3] ^= 0x55
		}
		is.NoErr(os.WriteFile(filepath.Join(dir, f), data, 0o644))
	}
	r := runAction(t, dir)
	is.True(r.Printed("checksum mismatch for " + name))
	is.Equal(r.StepResult("arch"), "failure")
	is.Equal(r.JobResult(), "failure")
	var annotated bool
	for _, e := range r.Commands("error") {
		annotated = annotated || e.KV["title"] == "architect could not be installed"
	}
	is.True(annotated)
	is.True(!r.Printed("success=true"))
}
