package actions_test

import (
	"archive/zip"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/architect-dev/architect/internal/acttest"
	"github.com/matryer/is"
)

// The action hands the run's records (found in the worktree's .architect
// folder) to actions/upload-artifact with the name and retention asked,
// hidden files included, even when the run did not succeed. Offline, the
// upload is a stand-in that says what it was handed and uploads nothing;
// no artifact is linked then.
func TestActionHandsRecordsToUpload(t *testing.T) {
	is := is.New(t)
	r := run(t, "records.yml", acttest.Options{})
	is.Equal(r.StepResult("arch"), "success") // fail-on-no-success: false
	is.True(r.Printed("upload stand-in: name=records-x retention-days=7 include-hidden-files=true overwrite=true if-no-files-found=warn"))
	for _, f := range []string{"report.html", "result.json", "iterations.log", "run.patch", "transcripts"} {
		is.True(r.Printed("upload stand-in: path .architect-ralph-worktree/.architect/" + f + " exists"))
	}
	is.True(!r.Printed("is missing"))
	is.True(!r.Printed("receipt.json")) // none written: what exists is uploaded
	is.True(r.Printed("artifact-url=[]"))
	is.True(!strings.Contains(r.Summaries(), "**Records:**"))
	is.Equal(len(r.Commands("error")), 1) // the failing check's annotation, in the worktree
	is.Equal(r.Commands("error")[0].KV["file"], "calc.go")
}

// upload-artifact: false uploads nothing.
func TestActionUploadOff(t *testing.T) {
	is := is.New(t)
	r := run(t, "records-off.yml", acttest.Options{})
	is.Equal(r.StepResult("arch"), "success")
	is.True(r.Printed("iteration 1/1"))
	is.True(!r.Printed("upload stand-in"))
	is.True(!r.Printed("uploading"))
}

// A retention out of 1..90 fails the step before the run: no agent starts.
func TestActionBadRetentionStopsBeforeTheRun(t *testing.T) {
	is := is.New(t)
	r := run(t, "records-bad.yml", acttest.Options{})
	is.Equal(r.StepResult("arch"), "failure")
	errs := r.Commands("error")
	is.Equal(len(errs), 1)
	is.Equal(errs[0].KV["title"], "architect: artifact-retention-days")
	is.Equal(errs[0].Arg, `"0" is not a number of days from 1 to 90`)
	is.True(!r.Printed("iteration 1"))
	is.True(!r.Printed("upload stand-in"))
}

// A real upload: act's artifact server on loopback stores what
// @actions/artifact (the library actions/upload-artifact is built on)
// sends from a stand-in of the action, and the artifact holds the run's
// records; the step summary links it and the action outputs its URL.
// @actions/artifact comes from npm, installed once into the user's cache
// (ARCHITECT_TEST_NPM_CACHE overrides where); without it the test skips.
// @azure/storage-blob is held at 12.17.0: act's server (0.2.89) refuses
// the block uploads of later versions as unauthorized (nektos/act#6021).
func TestActionUploadsRecords(t *testing.T) {
	is := is.New(t)
	standIn := realUploadAction(t)
	store := t.TempDir()
	r := run(t, "records.yml", acttest.Options{
		LocalRepos: map[string]string{"actions/upload-artifact@v4": standIn},
		Args:       []string{"--artifact-server-path", store, "--artifact-server-addr", "127.0.0.1", "--artifact-server-port", freePort(t)},
	})
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("act printed:\n%s", r.Log)
		}
	})
	is.Equal(r.StepResult("arch"), "success")
	is.True(r.Printed("upload (real): name=records-x retention-days=7 files="))

	zips, _ := filepath.Glob(filepath.Join(store, "*", "records-x", "records-x.zip"))
	is.Equal(len(zips), 1)
	zr, err := zip.OpenReader(zips[0])
	is.NoErr(err)
	defer zr.Close()
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	for _, want := range []string{"report.html", "result.json", "iterations.log", "run.patch",
		"transcripts/iteration-1/agent.out", "transcripts/iteration-1/transcript.md"} {
		if !slices.Contains(names, want) {
			t.Errorf("the artifact lacks %s; it has %v", want, names)
		}
	}
	is.True(r.Printed("artifact-url=[https://github.com/"))
	is.True(strings.Contains(r.Summaries(), "**Records:** [records-x](https://github.com/"))
}

// realUploadAction is a copy of testdata/upload-artifact-real with
// node_modules holding @actions/artifact; the test skips when npm cannot
// install it.
func realUploadAction(t *testing.T) string {
	t.Helper()
	cache := os.Getenv("ARCHITECT_TEST_NPM_CACHE")
	if cache == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			t.Skipf("no cache folder for @actions/artifact: %v", err)
		}
		cache = filepath.Join(c, "architect-test", "actions-artifact-2.1.11")
	}
	mods := filepath.Join(cache, "node_modules")
	if _, err := os.Stat(filepath.Join(mods, "@actions", "artifact", "package.json")); err != nil {
		if _, err := exec.LookPath("npm"); err != nil {
			t.Skip("npm is not installed: cannot install @actions/artifact for the real upload")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		if err := os.MkdirAll(cache, 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund", "--prefix", cache, "@actions/artifact@2.1.11", "@actions/core@1.11.1", "@azure/storage-blob@12.17.0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Skipf("cannot install @actions/artifact (offline?): %v\n%s", err, out)
		}
	}
	dir := t.TempDir()
	for _, f := range []string{"action.yml", "index.js"} {
		data, err := os.ReadFile(filepath.Join("testdata", "upload-artifact-real", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(mods, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// freePort is a loopback TCP port free a moment ago.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// artifact.sh collects the records that exist, the run receipt
// (receipt.json, when the run wrote one) among them, from the worktree's
// .architect folder; with none, it says so and nothing is uploaded.
func TestArtifactScriptCollects(t *testing.T) {
	is := is.New(t)
	wt := t.TempDir()
	rec := filepath.Join(wt, ".architect")
	is.NoErr(os.MkdirAll(filepath.Join(rec, "transcripts", "iteration-1"), 0o755))
	for _, f := range []string{"report.html", "receipt.json", "transcripts/iteration-1/transcript.md", "state.json"} {
		is.NoErr(os.WriteFile(filepath.Join(rec, f), []byte("x"), 0o644))
	}
	collect := func(worktree string) map[string]string {
		outFile := filepath.Join(t.TempDir(), "out")
		cmd := exec.Command("bash", "artifact.sh", "collect")
		cmd.Env = append(os.Environ(), "GITHUB_OUTPUT="+outFile, "GITHUB_JOB=loop", "ARCHITECT_WORKTREE_PATH="+worktree,
			"INPUT_ARTIFACT_NAME=", "INPUT_ARTIFACT_RETENTION_DAYS=")
		out, err := cmd.CombinedOutput()
		is.NoErr(err)
		t.Logf("%s", out)
		data, err := os.ReadFile(outFile)
		is.NoErr(err)
		m := map[string]string{}
		lines := strings.Split(string(data), "\n")
		for i := 0; i < len(lines); i++ {
			if name, delim, ok := strings.Cut(lines[i], "<<"); ok {
				var v []string
				for i++; i < len(lines) && lines[i] != delim; i++ {
					v = append(v, lines[i])
				}
				m[name] = strings.Join(v, "\n")
			} else if name, v, ok := strings.Cut(lines[i], "="); ok {
				m[name] = v
			}
		}
		return m
	}
	m := collect(wt)
	is.Equal(m["found"], "true")
	is.Equal(m["name"], "architect-loop")
	is.Equal(m["retention"], "")
	is.Equal(m["paths"], strings.Join([]string{rec + "/report.html", rec + "/receipt.json", rec + "/transcripts"}, "\n"))

	m = collect(t.TempDir()) // no records
	is.Equal(m["found"], "false")
	is.Equal(m["paths"], "")
}
