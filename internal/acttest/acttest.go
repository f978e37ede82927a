// Package acttest runs GitHub Actions workflows for tests with nektos/act
// in host mode (no Docker) and offline, and reads back what happened from
// act's JSON log: step and job results, workflow commands (annotations,
// groups, masks), step outputs and step summaries.
//
// Reuse it for any workflow test (the action in actions/, batch and
// matrix workflows):
//
//	dir := acttest.Repo(t, map[string]string{".github/workflows/ci.yml": wf, "agent.sh": script})
//	run := acttest.Run(t, acttest.Options{Dir: dir, LocalRepos: acttest.ThisAction(t)})
//	is.Equal(run.JobResult(), "success")
//	is.True(run.Printed("architect: success"))
//
// act is installed by .ci/run (go install github.com/nektos/act@v0.2.89).
// When it is missing, tests skip, or fail when CI=true.
package acttest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Bin returns the path of act, skipping t (failing it when CI=true) when
// act is not installed.
func Bin(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("act"); err == nil {
		return p
	}
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		p := filepath.Join(strings.TrimSpace(string(out)), "bin", "act")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("act is required in CI: go install github.com/nektos/act@v0.2.89")
	}
	t.Skip("act is not installed (go install github.com/nektos/act@v0.2.89); skipping the workflow test")
	return ""
}

// ModuleRoot is the root of this repository (where action.yml is).
func ModuleRoot(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// ThisAction maps the name users write, OWNER/architect@v1, to a copy of
// this checkout's files, for Options.LocalRepos.
// UploadArtifact is the action the Action uploads its records with.
const UploadArtifact = "actions/upload-artifact@v4"

func ThisAction(t testing.TB) map[string]string {
	return map[string]string{"OWNER/architect@v1": Source(t)}
}

// Source copies the files of this checkout that git tracks or would track
// (git ls-files -co --exclude-standard) to a temporary directory: act
// copies an action's whole directory, ignored caches and all, on every use.
func Source(t testing.TB) string {
	t.Helper()
	root := ModuleRoot(t)
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "-co", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("listing the source files: %v", err)
	}
	dst := t.TempDir()
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		src := filepath.Join(root, filepath.FromSlash(name))
		fi, err := os.Lstat(src)
		if err != nil || !fi.Mode().IsRegular() {
			continue // deleted in the working tree, or not a file
		}
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dst, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, fi.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// gitEnv keeps a developer's git configuration out and fixes the author
// and dates, so that fixture repositories are the same everywhere.
var gitEnv = []string{
	"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
	"GIT_AUTHOR_NAME=Fixture", "GIT_AUTHOR_EMAIL=fixture@example.com",
	"GIT_COMMITTER_NAME=Fixture", "GIT_COMMITTER_EMAIL=fixture@example.com",
	"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z",
}

// Repo creates a git repository in a temporary directory holding files
// (path → content; paths ending in .sh are executable), committed on
// branch main, and returns its path.
func Repo(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "fixture"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), gitEnv...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// Options say what to run.
type Options struct {
	Dir        string            // the workflow repository (see Repo)
	Workflow   string            // file under .github/workflows; "" runs them all
	Event      string            // "" means push
	EventFile  string            // the event's payload (-e), relative to Dir
	LocalRepos map[string]string // owner/name@ref → directory, for uses: (see ThisAction)
	Env        []string          // extra environment for act and the steps (KEY=VALUE)
	Timeout    time.Duration     // 0 means 5 minutes
	Args       []string          // more arguments for act (e.g. --artifact-server-path)
}

// Event is one line of act's JSON log. Which fields are set depends on
// the line: a step's output (RawOutput), a workflow command (Command,
// Arg, KV), a step output (Command "set-output", Name, Arg), a step
// summary (Command "summary", Content), a step or job result. Every line
// of a job names it: Job is "WORKFLOW/JOB" (with "-N" for the Nth entry
// of a matrix), JobID the key under jobs:, Matrix the entry's values.
//
// act keeps one result for a whole matrix, like needs.JOB.result: once an
// entry fails, the entries that end later report "failure" as well. Tell
// the entries apart by their step results.
type Event struct {
	Msg        string            `json:"msg"`
	Level      string            `json:"level"`
	Job        string            `json:"job"`
	JobID      string            `json:"jobID"`
	Matrix     map[string]any    `json:"matrix"`
	Step       string            `json:"step"`
	StepID     []string          `json:"stepID"`
	Stage      string            `json:"stage"`
	RawOutput  bool              `json:"raw_output"`
	Command    string            `json:"command"`
	Arg        string            `json:"arg"`
	Name       string            `json:"name"`
	KV         map[string]string `json:"kvPairs"`
	Content    string            `json:"content"`
	Raw        string            `json:"raw"`
	StepResult string            `json:"stepResult"`
	JobResult  string            `json:"jobResult"`
}

// Result is what act reported.
type Result struct {
	Events []Event
	Log    string // act's whole output, for failure messages
	Err    error  // act's exit error (a failed job makes act exit 1)
	Tmp    string // act's TMPDIR: the job's workspace and runner temp are under it
}

// Run runs act on opts.Dir: host mode (-P ubuntu-latest=-self-hosted), no
// cache server, a fresh action cache, --json, stdin closed. HOME and TMPDIR
// are temporary; the Go build and module caches are the caller's, so that
// building Go code in a step is quick and needs no network.
func Run(t testing.TB, opts Options) *Result {
	t.Helper()
	act := Bin(t)
	timeout := opts.Timeout
	if timeout == 0 {
		timeout = 5 * time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	event := opts.Event
	if event == "" {
		event = "push"
	}
	args := []string{event, "-P", "ubuntu-latest=-self-hosted", "--no-cache-server",
		"--action-cache-path", t.TempDir(), "--json"}
	if opts.Workflow != "" {
		args = append(args, "-W", filepath.Join(".github", "workflows", opts.Workflow))
	}
	if opts.EventFile != "" {
		args = append(args, "-e", opts.EventFile)
	}
	for name, dir := range opts.LocalRepos {
		args = append(args, "--local-repository", name+"="+dir)
	}
	if _, ok := opts.LocalRepos[UploadArtifact]; !ok {
		// Offline, the action's upload of its records cannot fetch
		// actions/upload-artifact: a stand-in that uploads nothing takes
		// its place (actions/artifact_test.go maps one that uploads).
		args = append(args, "--local-repository", UploadArtifact+"="+filepath.Join(ModuleRoot(t), "actions", "testdata", "upload-artifact-noop"))
	}
	args = append(args, opts.Args...)
	cmd := exec.CommandContext(ctx, act, args...)
	cmd.Dir = opts.Dir
	cmd.Stdin = nil // /dev/null
	home := t.TempDir()
	cmd.Env = append(os.Environ(), gitEnv...)
	tmp := t.TempDir()
	cmd.Env = append(cmd.Env, "HOME="+home, "TMPDIR="+tmp, "XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		"GOCACHE="+goEnv(t, "GOCACHE"), "GOMODCACHE="+goEnv(t, "GOMODCACHE"), "GOPATH="+goEnv(t, "GOPATH"),
		"GOTOOLCHAIN=local", "GOFLAGS=-mod=readonly", "GOPROXY=off")
	cmd.Env = append(cmd.Env, opts.Env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = 10 * time.Second
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("act did not finish within %s:\n%s", timeout, out.String())
	}
	r := &Result{Log: out.String(), Err: err, Tmp: tmp}
	sc := bufio.NewScanner(bytes.NewReader(out.Bytes()))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev Event
		if json.Unmarshal(sc.Bytes(), &ev) == nil {
			r.Events = append(r.Events, ev)
		}
	}
	return r
}

func goEnv(t testing.TB, name string) string {
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}

// JobResult is the last job's result: success or failure ("" if none).
func (r *Result) JobResult() string {
	res := ""
	for _, e := range r.Events {
		if e.JobResult != "" {
			res = e.JobResult
		}
	}
	return res
}

// StepResult is the result of the step whose id (stepID's first element)
// is id, at the Main stage: success, failure or skipped.
func (r *Result) StepResult(id string) string {
	for _, e := range r.Events {
		if e.StepResult != "" && e.Stage == "Main" && len(e.StepID) > 0 && e.StepID[0] == id && len(e.StepID) == 1 {
			return e.StepResult
		}
	}
	return ""
}

// Output is what steps printed, line by line, in order.
func (r *Result) Output() string {
	var b strings.Builder
	for _, e := range r.Events {
		if e.RawOutput {
			b.WriteString(e.Msg)
		}
	}
	return b.String()
}

// Printed reports whether some step printed s.
func (r *Result) Printed(s string) bool { return strings.Contains(r.Output(), s) }

// Commands are the workflow commands named name (error, group, add-mask,
// …) that steps printed, in order.
func (r *Result) Commands(name string) []Event {
	var out []Event
	for _, e := range r.Events {
		if e.Command == name {
			out = append(out, e)
		}
	}
	return out
}

// Summaries is the step summary markdown that steps wrote.
func (r *Result) Summaries() string {
	var b strings.Builder
	for _, e := range r.Commands("summary") {
		b.WriteString(e.Content)
	}
	return b.String()
}
