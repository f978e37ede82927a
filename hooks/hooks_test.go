package hooks

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/architect-dev/architect/runlog"
	"github.com/matryer/is"
)

func ptr[T any](v T) *T { return &v }

func started(dir, branch string) runlog.Event {
	return runlog.Event{Type: runlog.EventLoopStarted, MaxIterations: 5, Workspace: dir, Branch: branch}
}

func TestHooksGetTheirVariables(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	var log bytes.Buffer
	o := New(context.Background(), Config{
		OnIteration: `env | grep ^ARCHITECT_ | sort > it-$ARCHITECT_ITERATION.env`,
		OnFinish:    `env | grep ^ARCHITECT_ | sort > finish.env`,
		Log:         &log,
	})
	o.Observe(started(dir, "architect/ralph-loop"))
	o.Observe(runlog.Event{Type: runlog.EventIterationFinished, Iteration: 2, AllChecksPassed: ptr(true), Cost: ptr(0.25), Duration: ptr(1.5), Commit: "abc123", CompletionSignal: "tag"})
	o.Observe(runlog.Event{Type: runlog.EventLoopFinished, Iteration: 2, Success: ptr(false), StopReason: "max_iterations", TotalIterations: ptr(2), TotalCost: ptr(0.5), Duration: ptr(3.0)})
	is.Equal(log.String(), "") // no warnings

	it, err := os.ReadFile(filepath.Join(dir, "it-2.env"))
	is.NoErr(err)
	for _, want := range []string{"ARCHITECT_ITERATION=2", "ARCHITECT_MAX_ITERATIONS=5", "ARCHITECT_ALL_CHECKS_PASSED=true", "ARCHITECT_COST=0.25",
		"ARCHITECT_DURATION=1.5", "ARCHITECT_COMMIT=abc123", "ARCHITECT_COMPLETION_SIGNAL=tag", "ARCHITECT_BRANCH=architect/ralph-loop", "ARCHITECT_WORKSPACE=" + dir} {
		is.True(strings.Contains(string(it), want+"\n")) // on_iteration variable
	}
	fin, err := os.ReadFile(filepath.Join(dir, "finish.env"))
	is.NoErr(err)
	for _, want := range []string{"ARCHITECT_OUTCOME=failure", "ARCHITECT_STOP_REASON=max_iterations", "ARCHITECT_ITERATIONS=2", "ARCHITECT_TOTAL_COST=0.5",
		"ARCHITECT_BRANCH=architect/ralph-loop", "ARCHITECT_REPORT_PATH=" + filepath.Join(dir, ".architect", "report.html")} {
		is.True(strings.Contains(string(fin), want+"\n")) // on_finish variable
	}
}

func TestFailingHookIsAWarning(t *testing.T) {
	is := is.New(t)
	var log bytes.Buffer
	o := New(context.Background(), Config{OnIteration: "echo no such thing >&2; exit 3", Log: &log})
	o.Observe(started(t.TempDir(), ""))
	o.Observe(runlog.Event{Type: runlog.EventIterationFinished, Iteration: 1})
	is.Equal(log.String(), "architect: warning: on_iteration hook failed (exit status 3: no such thing); the loop goes on\n")
}

// TestHookPipelineFails: a hook whose failing command is piped into tail
// fails, as a check does (pipefail); a shell that cannot be used is said.
func TestHookPipelineFails(t *testing.T) {
	for _, tc := range []struct{ shell, want string }{
		{"", "architect: warning: on_iteration hook failed (exit status 4: deploy failed); the loop goes on\n"},
		{"bash", "architect: warning: on_iteration hook failed (exit status 4: deploy failed); the loop goes on\n"},
		{"architect-no-such-shell", "architect: warning: on_iteration hook not run: the check shell architect-no-such-shell is not installed (not found on PATH)\n"},
	} {
		t.Run("shell="+tc.shell, func(t *testing.T) {
			if _, err := exec.LookPath("bash"); err != nil && tc.shell == "bash" {
				t.Skip("no bash")
			}
			is := is.New(t)
			var log bytes.Buffer
			o := New(context.Background(), Config{OnIteration: "(echo deploy failed; exit 4) 2>&1 | tail -1", Shell: tc.shell, Log: &log})
			o.Observe(started(t.TempDir(), ""))
			o.Observe(runlog.Event{Type: runlog.EventIterationFinished, Iteration: 1})
			is.Equal(log.String(), tc.want)
		})
	}
}

func TestFinishHookOutlivesCancellation(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	o := New(ctx, Config{OnFinish: "echo $ARCHITECT_OUTCOME > out"})
	o.Observe(started(dir, ""))
	cancel() // interrupted: the result is still reported
	o.Observe(runlog.Event{Type: runlog.EventLoopFinished, Success: ptr(true), TotalIterations: ptr(1)})
	data, err := os.ReadFile(filepath.Join(dir, "out"))
	is.NoErr(err)
	is.Equal(string(data), "success\n")
}

func TestNotify(t *testing.T) {
	is := is.New(t)
	finished := runlog.Event{Type: runlog.EventLoopFinished, Success: ptr(true), TotalIterations: ptr(3), TotalCost: ptr(1.234)}

	var bell bytes.Buffer
	o := New(context.Background(), Config{Notify: true, Bell: &bell, LookPath: func(string) (string, error) { return "", errors.New("not found") }})
	o.Observe(started(t.TempDir(), ""))
	o.Observe(finished)
	is.Equal(bell.String(), "\a") // no notify-send: the bell

	dir := t.TempDir()
	fake := filepath.Join(dir, "notify-send")
	is.NoErr(os.WriteFile(fake, []byte("#!/bin/sh\nprintf '%s|' \"$@\" > "+filepath.Join(dir, "args")+"\n"), 0o755))
	bell.Reset()
	o = New(context.Background(), Config{Notify: true, Bell: &bell, LookPath: func(string) (string, error) { return fake, nil }})
	o.Observe(started(dir, ""))
	o.Observe(finished)
	is.Equal(bell.String(), "")
	args, err := os.ReadFile(filepath.Join(dir, "args"))
	is.NoErr(err)
	is.Equal(string(args), "--app-name=architect|architect: success|all checks pass after 3 iterations, $1.23|")
}

// TestConfineWrapsTheUsersHooksOnly: once Confine has a wrapper, the
// on_iteration and on_finish hooks start through it (here a wrapper that
// marks the command); notify-send, architect's own, does not; nil
// unconfines again.
func TestConfineWrapsTheUsersHooksOnly(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	fake := filepath.Join(dir, "notify-send")
	is.NoErr(os.WriteFile(fake, []byte("#!/bin/sh\necho \"notify wrapped=$WRAPPED\" >> log\n"), 0o755))
	var log bytes.Buffer
	o := New(context.Background(), Config{
		OnIteration: `echo "it wrapped=$WRAPPED" >> log`,
		OnFinish:    `echo "finish wrapped=$WRAPPED" >> log`,
		Notify:      true, Log: &log, Bell: &log,
		LookPath: func(string) (string, error) { return fake, nil },
	})
	o.Observe(started(dir, ""))
	o.Observe(runlog.Event{Type: runlog.EventIterationFinished, Iteration: 1}) // before Confine: as is
	o.Confine(func(name string, args []string, arg0 string) (string, []string, string, error) {
		return "env", append([]string{"WRAPPED=yes", name}, args...), "", nil
	}, nil)
	o.Observe(runlog.Event{Type: runlog.EventIterationFinished, Iteration: 2})
	o.Observe(runlog.Event{Type: runlog.EventLoopFinished, Success: ptr(true), TotalIterations: ptr(2)})
	o.Confine(nil, nil)
	o.Observe(runlog.Event{Type: runlog.EventIterationFinished, Iteration: 3})
	is.Equal(log.String(), "") // no warnings
	got, err := os.ReadFile(filepath.Join(dir, "log"))
	is.NoErr(err)
	is.Equal(string(got), "it wrapped=\nit wrapped=yes\nfinish wrapped=yes\nnotify wrapped=\nit wrapped=\n")
}

// git runs git in dir with a fixed identity, failing the test on error.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com",
		"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestPush(t *testing.T) {
	is := is.New(t)
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	root := t.TempDir()
	remote, repo := filepath.Join(root, "remote.git"), filepath.Join(root, "repo")
	git(t, root, "init", "-q", "--bare", remote)
	git(t, root, "init", "-q", "-b", "work", repo)
	git(t, repo, "commit", "-q", "--allow-empty", "-m", "initial")
	git(t, repo, "remote", "add", "origin", "file://"+filepath.Join(root, "nowhere.git")) // broken at first

	var log bytes.Buffer
	o := New(context.Background(), Config{Push: true, Log: &log})
	o.Observe(started(repo, "")) // not a worktree run: the checked-out branch
	o.Observe(runlog.Event{Type: runlog.EventIterationFinished, Iteration: 1})
	is.Equal(log.String(), "") // nothing committed, nothing pushed

	git(t, repo, "commit", "-q", "--allow-empty", "-m", "by the agent")
	o.Observe(runlog.Event{Type: runlog.EventIterationFinished, Iteration: 2})
	is.True(strings.Contains(log.String(), "architect: warning: --push: could not push work to origin (tried again after the next iteration)"))

	git(t, repo, "remote", "set-url", "origin", remote) // fixed: the retry succeeds
	log.Reset()
	o.Observe(runlog.Event{Type: runlog.EventLoopFinished, Success: ptr(true)})
	is.Equal(log.String(), "architect: pushed work to origin\n")
	is.Equal(git(t, remote, "rev-parse", "work"), git(t, repo, "rev-parse", "HEAD"))
}

func TestPushOutsideGit(t *testing.T) {
	is := is.New(t)
	var log bytes.Buffer
	o := New(context.Background(), Config{Push: true, Log: &log})
	o.Observe(started(t.TempDir(), ""))
	o.Observe(runlog.Event{Type: runlog.EventIterationFinished, Iteration: 1})
	is.True(strings.Contains(log.String(), "is not in a git repository; nothing will be pushed"))
}
