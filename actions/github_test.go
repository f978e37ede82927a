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
	w := newIssueWorkflow(t, "AGENT_MODE=fix")
	api, run, snapshot := w.api, w.run, w.snapshot

	r := run(t)
	is.Equal(r.StepResult("architect"), "success")
	is.True(r.Printed("architect: issue #1 is open and has no pull request yet: starting"))
	is.True(r.Printed("architect: opened pull request #2"))
	st := snapshot(t)
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
	tree := gitOut(t, w.remote, "ls-tree", "-r", "--name-only", "architect/issue-1")
	is.True(strings.Contains(tree, ".verbatim"))
	is.True(!strings.Contains(tree, "pwned"))

	// The issue changed: the next event updates the same pull request.
	api.Update(func(st *fakegithub.State) { st.Issues[1].Body += "\nAnd subtraction." })
	r = run(t)
	is.Equal(r.StepResult("architect"), "success")
	is.True(r.Printed("architect: updated pull request #2"))
	st = snapshot(t)
	is.Equal(len(st.PRs), 1)
	is.Equal(st.PRs[0].Updates, 1)
	is.Equal(len(st.Comments), 2)

	// Nothing changed and the checks are green: no agent, one line.
	api.Update(func(st *fakegithub.State) { st.CheckRuns[api.HeadSHA("architect/issue-1")] = "success" })
	r = run(t)
	is.Equal(r.StepResult("architect"), "success")
	is.True(r.Printed("has green checks and issue #1 has not changed since its run: nothing to do"))
	is.True(!r.Printed("running the command agent")) // (the agent's own lines go to its transcript, not the log)
	is.True(strings.Contains(r.Summaries(), "nothing to do"))
	is.Equal(len(snapshot(t).Comments), 2)
}

// TestIssueWorkflowReaderStartsNothing: under act, a "/architect" comment
// by someone the API says can only read starts no agent; the step
// succeeds, its log and summary say why, and the only call made is the
// permission's: no issue read, no comment, no push, no pull request.
func TestIssueWorkflowReaderStartsNothing(t *testing.T) {
	is := is.New(t)
	w := newIssueWorkflow(t, "AGENT_MODE=fix")
	w.api.Update(func(st *fakegithub.State) { st.Permissions["mallory"] = "read" })
	data, err := os.ReadFile("testdata/issue/comment-reader.json")
	is.NoErr(err)
	is.NoErr(os.WriteFile(filepath.Join(w.dir, "comment-event.json"), data, 0o644))

	r := w.runEvent(t, "issue_comment", "comment-event.json")
	is.Equal(r.StepResult("architect"), "success")
	why := "architect: not started: @mallory has read access to acme/widgets, and only people with write access start architect"
	is.True(r.Printed(why))
	is.True(strings.Contains(r.Summaries(), why))
	is.True(!r.Printed("running the command agent")) // no agent ran
	st := w.snapshot(t)
	is.Equal(len(st.Calls), 1)
	is.Equal(st.Calls[0].Method+" "+st.Calls[0].Path, "GET /repos/acme/widgets/collaborators/mallory/permission")
	is.Equal(len(st.Comments), 0)
	is.Equal(len(st.PRs), 0)
	is.Equal(gitOut(t, w.remote, "for-each-ref", "--format=%(refname)", "refs/heads"), "refs/heads/main") // nothing pushed
}

// TestIssueWorkflowClosedMidRun: under act, the issue is closed while the
// loop works on it (the fake closes it when the issue is read the second
// time: the look after the first iteration, the first being the facts
// before any agent): the loop stops after that iteration with
// issue_closed, the step succeeds, no branch is pushed and no pull request
// opened, and the issue's comment says why it stopped.
func TestIssueWorkflowClosedMidRun(t *testing.T) {
	is := is.New(t)
	w := newIssueWorkflow(t, "AGENT_MODE=idle") // the agent fixes nothing: the checks keep failing
	reads := 0
	w.api.Update(func(st *fakegithub.State) {
		st.Before = func(st *fakegithub.State, method, path string) {
			if method == "GET" && path == "/repos/acme/widgets/issues/1" {
				if reads++; reads == 2 {
					st.Issues[1].State, st.Issues[1].UpdatedAt = "closed", time.Now().UTC()
				}
			}
		}
	})

	r := w.run(t)
	is.Equal(r.StepResult("architect"), "success")
	is.True(r.Printed("architect: issue #1 is open and has no pull request yet: starting"))
	is.True(r.Printed("stopping after iteration 1: issue #1 was closed while the run worked on it"))
	is.True(r.Printed("architect: issue #1 was closed while the run worked on it; the run is saved"))
	is.Equal(strings.Count(r.Output(), "running the command agent"), 1) // one iteration, one agent
	is.True(!r.Printed("iteration 2/"))
	st := w.snapshot(t)
	is.Equal(reads, 2) // the facts, then the look after iteration 1
	is.Equal(len(st.PRs), 0)
	is.Equal(gitOut(t, w.remote, "for-each-ref", "--format=%(refname)", "refs/heads"), "refs/heads/main") // nothing pushed
	is.Equal(len(st.Comments), 1)
	is.Equal(st.Comments[0].Edits, 1)
	is.True(strings.Contains(st.Comments[0].Body, "Stopped: issue #1 was closed while the run worked on it"))
}

// issueWorkflow is examples/workflows/issue-to-pr.yml in a repository of
// its own, with a bare repository as origin and a fake GitHub API that
// has issue 1 (testdata/issue/event.json's text) and alice, who can
// write.
type issueWorkflow struct {
	api         *fakegithub.Server
	dir, remote string
}

// newIssueWorkflow sets the workflow up; env goes into the steps'
// environment (AGENT_MODE=fix: the agent fixes calc.go).
func newIssueWorkflow(t *testing.T, env ...string) *issueWorkflow {
	is := is.New(t)
	acttest.Bin(t)
	api := fakegithub.New("acme", "widgets", issueToken)
	t.Cleanup(api.Close)
	remote := filepath.Join(t.TempDir(), "remote.git")
	gitRun(t, "", "init", "-q", "--bare", remote)
	api.SetHeadSHA(func(branch string) string {
		return gitOut(t, remote, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch)
	})
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
	dotenv := "GITHUB_API_URL=" + api.URL() + "\nGITHUB_REPOSITORY=acme/widgets\nGITHUB_SERVER_URL=https://github.example\nGITHUB_RUN_ID=42\n"
	for _, kv := range env {
		dotenv += kv + "\n"
	}
	is.NoErr(os.WriteFile(filepath.Join(dir, ".env"), []byte(dotenv), 0o644))
	is.NoErr(os.WriteFile(filepath.Join(dir, ".secrets"), []byte("GITHUB_TOKEN="+issueToken+"\n"), 0o600))
	return &issueWorkflow{api: api, dir: dir, remote: remote}
}

const issueToken = "tok-act-fake-0123456789"

// run runs the workflow on the issues event of testdata/issue/event.json.
func (w *issueWorkflow) run(t *testing.T) *acttest.Result {
	return w.runEvent(t, "issues", "issue-event.json")
}

// runEvent runs the workflow on event, whose payload is file in the
// repository: the token never printed and masked, the issue's text run
// by nothing.
func (w *issueWorkflow) runEvent(t *testing.T, event, file string) *acttest.Result {
	is := is.New(t)
	stubs, err := filepath.Abs(filepath.Join("testdata", "batch", "stubs"))
	is.NoErr(err)
	local := acttest.ThisAction(t)
	local["actions/setup-go@v5"] = filepath.Join(stubs, "setup-go")
	r := acttest.Run(t, acttest.Options{Dir: w.dir, Event: event, EventFile: file, LocalRepos: local})
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("act printed:\n%s", r.Log)
		}
	})
	is.True(!strings.Contains(r.Output(), issueToken)) // no step printed the token
	masked := false
	for _, m := range r.Commands("add-mask") {
		masked = masked || m.Arg == issueToken
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

// snapshot is the fake's state now.
func (w *issueWorkflow) snapshot(t *testing.T) fakegithub.State {
	var st fakegithub.State
	is.New(t).NoErr(json.Unmarshal(w.api.Snapshot(), &st))
	return st
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
