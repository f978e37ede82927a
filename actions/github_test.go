package actions_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/architect-dev/architect/github"
	"github.com/architect-dev/architect/internal/acttest"
	"github.com/architect-dev/architect/internal/fakegithub"
	"github.com/matryer/is"
)

// TestIssueToPullRequestWorkflow runs examples/workflows/issue-to-pr.yml
// unchanged under act, on an issue labeled "architect", against a fake
// GitHub API on 127.0.0.1 (act runs on the host) and a bare repository as
// origin: one pull request opened with the body and the receipt, the
// issue's comment written then updated; a second event after the issue
// changed updates the same pull request; a third, with the pull request's
// checks green, starts no agent. The hostile issue text runs nothing.
func TestIssueToPullRequestWorkflow(t *testing.T) {
	is := is.New(t)
	acttest.Bin(t)
	const token = "tok-act-fake-0123456789"
	api := fakegithub.New("acme", "widgets", token)
	t.Cleanup(api.Close)
	remote := filepath.Join(t.TempDir(), "remote.git")
	gitRun(t, "", "init", "-q", "--bare", remote)
	api.HeadSHA = func(branch string) string {
		return gitOut(t, remote, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch)
	}
	event, err := os.ReadFile("testdata/issue/event.json")
	is.NoErr(err)
	var ev struct {
		Issue struct{ Title, Body string }
	}
	is.NoErr(json.Unmarshal(event, &ev))
	api.Update(func(st *fakegithub.State) {
		st.Issues[1] = &fakegithub.Issue{Number: 1, Title: ev.Issue.Title, Body: ev.Issue.Body, State: "open", UpdatedAt: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
		st.Permissions["alice"] = "write"
	})

	root := acttest.ModuleRoot(t)
	wf, err := os.ReadFile(filepath.Join(root, "examples", "workflows", "issue-to-pr.yml"))
	is.NoErr(err)
	files := map[string]string{".github/workflows/issue-to-pr.yml": string(wf), "issue-event.json": string(event)}
	for src, dst := range map[string]string{"project/agent.sh": "agent.sh", "project/check.sh": "check.sh", "project/calc.go": "calc.go", "issue/ralph.yaml": "ralph.yaml"} {
		data, err := os.ReadFile(filepath.Join("testdata", src))
		is.NoErr(err)
		files[dst] = string(data)
	}
	dir := acttest.Repo(t, files)
	gitRun(t, dir, "remote", "add", "origin", remote)
	gitRun(t, dir, "push", "-q", "origin", "main")
	// act reads .env and .secrets from its working folder: the API, the
	// repository and the run as a runner would have them, and the token.
	is.NoErr(os.WriteFile(filepath.Join(dir, ".env"), []byte("GITHUB_API_URL="+api.URL()+"\nGITHUB_REPOSITORY=acme/widgets\nGITHUB_SERVER_URL=https://github.example\nGITHUB_RUN_ID=42\nAGENT_MODE=fix\n"), 0o644))
	is.NoErr(os.WriteFile(filepath.Join(dir, ".secrets"), []byte("GITHUB_TOKEN="+token+"\n"), 0o600))
	stubs, err := filepath.Abs(filepath.Join("testdata", "batch", "stubs"))
	is.NoErr(err)
	local := acttest.ThisAction(t)
	local["actions/setup-go@v5"] = filepath.Join(stubs, "setup-go")
	// Offline, the action's upload step gets the stand-in that uploads
	// nothing (artifact_test.go makes the real upload).
	noop, err := filepath.Abs(filepath.Join("testdata", "upload-artifact-noop"))
	is.NoErr(err)
	local["actions/upload-artifact@v4"] = noop
	run := func() *acttest.Result {
		r := acttest.Run(t, acttest.Options{Dir: dir, Event: "issues", EventFile: "issue-event.json", LocalRepos: local})
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("act printed:\n%s", r.Log)
			}
		})
		is.True(!strings.Contains(r.Output(), token)) // no step printed the token
		masked := false
		for _, m := range r.Commands("add-mask") {
			masked = masked || m.Arg == token
		}
		is.True(masked) // architect has the runner mask it
		_ = filepath.WalkDir(r.Tmp, func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.Name() == "pwned" {
				t.Errorf("the issue's text ran: found %s", path)
			}
			return nil
		})
		return r
	}
	snapshot := func() fakegithub.State {
		var st fakegithub.State
		is.NoErr(json.Unmarshal(api.Snapshot(), &st))
		return st
	}

	r := run()
	is.Equal(r.StepResult("architect"), "success")
	is.True(r.Printed("architect: issue #1 is open and has no pull request yet: starting"))
	is.True(r.Printed("architect: opened pull request #2"))
	st := snapshot()
	is.Equal(len(st.PRs), 1)
	pr := st.PRs[0]
	is.Equal(pr.Head, "architect/issue-1")
	is.Equal(pr.Base, "main")
	is.Equal(pr.Labels, []string{"architect"})
	is.True(strings.Contains(pr.Body, "## ✅ architect: every check passed"))
	is.True(strings.Contains(pr.Body, "Closes #1."))
	is.True(strings.Contains(pr.Body, "| ` ./check.sh ` | ✅ passed |"))
	is.True(strings.Contains(pr.Body, "https://github.example/acme/widgets/actions/runs/42"))
	rc := github.ReadReceipt(pr.Body)
	is.True(rc != nil)
	is.Equal(rc.Head, api.HeadSHA("architect/issue-1")) // the receipt names the pushed head
	is.Equal(rc.Checks[0].Command, "./check.sh")
	is.Equal(rc.Cost.Provenance, github.CostReported)
	is.True(strings.Contains(r.Summaries(), "Pull request: [#2](https://github.example/acme/widgets/pull/2)"))
	is.Equal(len(st.Comments), 1)
	is.Equal(st.Comments[0].Edits, 1)
	is.True(strings.HasPrefix(st.Comments[0].Body, "✅ architect: every check passed after 1 iteration"))
	// The agent got the issue's text as it is (agent.sh writes .verbatim
	// then), and nothing ran it: the branch, which takes every file made in
	// the worktree, holds no pwned.
	tree := gitOut(t, remote, "ls-tree", "-r", "--name-only", "architect/issue-1")
	is.True(strings.Contains(tree, ".verbatim"))
	is.True(!strings.Contains(tree, "pwned"))

	// The issue changed: the next event updates the same pull request.
	api.Update(func(st *fakegithub.State) { st.Issues[1].Body += "\nAnd subtraction." })
	r = run()
	is.Equal(r.StepResult("architect"), "success")
	is.True(r.Printed("architect: updated pull request #2"))
	st = snapshot()
	is.Equal(len(st.PRs), 1)
	is.Equal(st.PRs[0].Updates, 1)
	is.Equal(len(st.Comments), 2)

	// Nothing changed and the checks are green: no agent, one line.
	api.Update(func(st *fakegithub.State) { st.CheckRuns[api.HeadSHA("architect/issue-1")] = "success" })
	r = run()
	is.Equal(r.StepResult("architect"), "success")
	is.True(r.Printed("has green checks and issue #1 has not changed since its run: nothing to do"))
	is.True(!r.Printed("agent: thinking about it"))
	is.True(strings.Contains(r.Summaries(), "nothing to do"))
	is.Equal(len(snapshot().Comments), 2)
}

func gitRun(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func gitOut(t *testing.T, dir string, args ...string) string {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, _ := cmd.Output()
	return strings.TrimSpace(string(out))
}
