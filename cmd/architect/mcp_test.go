//go:build unix

package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/architect-dev/architect/internal/testutil"
	"github.com/architect-dev/architect/runlog"
	"github.com/matryer/is"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpFixture is a scratch repository, the real binary serving MCP over a
// stdio pipe, and the SDK's client session on it.
type mcpFixture struct {
	t      *testing.T
	work   string
	repo   string
	server *exec.Cmd
	cs     *sdk.ClientSession
}

func newMCPFixture(t *testing.T) *mcpFixture {
	t.Helper()
	work := t.TempDir()
	bin := buildArchitect(t, work)
	testutil.IsolateGit(t, true)
	repo := filepath.Join(work, "repo")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	testutil.Git(t, repo, "init", "-q")
	testutil.WriteFile(t, repo, "README.md", "scratch\n")
	testutil.Commit(t, repo, "initial")
	server := exec.Command(bin, "mcp")
	server.Env = append(os.Environ(), "ARCHITECT_SANDBOX=off", "WORK="+work, "GORACE=atexit_sleep_ms=0")
	server.Stderr = os.Stderr
	client := sdk.NewClient(&sdk.Implementation{Name: "architect-test", Version: "v0"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: server}, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := &mcpFixture{t: t, work: work, repo: repo, server: server, cs: cs}
	t.Cleanup(func() {
		_ = cs.Close()
		if server.ProcessState == nil && server.Process != nil {
			_ = server.Process.Kill()
		}
	})
	return f
}

// agent writes the fake agent's scripts for a loop into WORK/NAME and
// returns the agent command that reads them.
func (f *mcpFixture) agent(name string, scripts map[string]string) string {
	dir := filepath.Join(f.work, name)
	for file, text := range scripts {
		testutil.WriteFile(f.t, dir, file, text)
	}
	return "FAKE_AGENT_DIR=" + dir + " fake-agent"
}

// call calls a tool and returns its structured output, or its error text.
func (f *mcpFixture) call(tool string, args map[string]any) (map[string]any, string) {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := f.cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		f.t.Fatalf("%s: %v", tool, err)
	}
	if res.IsError {
		var text []string
		for _, c := range res.Content {
			if tc, ok := c.(*sdk.TextContent); ok {
				text = append(text, tc.Text)
			}
		}
		return nil, strings.Join(text, "\n")
	}
	data, _ := json.Marshal(res.StructuredContent)
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		f.t.Fatalf("%s: %v: %s", tool, err, data)
	}
	return out, ""
}

func (f *mcpFixture) must(tool string, args map[string]any) map[string]any {
	f.t.Helper()
	out, errText := f.call(tool, args)
	if errText != "" {
		f.t.Fatalf("%s: %s", tool, errText)
	}
	return out
}

// waitStopped polls loop_status until the loop no longer runs.
func (f *mcpFixture) waitStopped(name string) map[string]any {
	f.t.Helper()
	var st map[string]any
	if !testutil.Until(2*time.Minute, func() bool {
		st = f.must("loop_status", map[string]any{"repo": f.repo, "name": name})
		return st["running"] == false && st["state"] != nil
	}) {
		f.t.Fatalf("loop %s still running: %v", name, st)
	}
	return st
}

// The MCP tools through the real binary over a stdio pipe: listed; a real
// loop started in a worktree, watched until it succeeds, its report read;
// another started and stopped; a third left running when the client goes,
// which the server stops; no process left.
func TestMCPStartWatchStop(t *testing.T) {
	is := is.New(t)
	f := newMCPFixture(t)
	ctx := context.Background()

	tools, err := f.cs.ListTools(ctx, nil)
	is.NoErr(err)
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	is.Equal(names, []string{"answer_question", "loop_report", "loop_status", "pause_loop", "resume_loop", "start_loop", "stop_loop"})

	// A loop that succeeds. The task holds shell syntax: it is data.
	// It starts with what looks like a flag: it is not read as one.
	task := `--check=true make done.txt; $(touch "$WORK/pwned") ` + "`touch $WORK/pwned2`"
	one := f.agent("one", map[string]string{"default.txt": "prompt $WORK/one-prompt.txt\nwrite done.txt yes\nsay done <promise>COMPLETE</promise>\n"})
	out := f.must("start_loop", map[string]any{"repo": f.repo, "name": "one", "task": task, "checks": []string{"test -f done.txt"}, "agent_cmd": one, "max_iterations": 3})
	is.Equal(out["worktree"], filepath.Join(f.repo, ".architect-worktrees", "one"))
	is.Equal(out["branch"], "architect/one")
	st := f.waitStopped("one")
	is.Equal(st["exit"], 0.0)
	state := st["state"].(map[string]any)
	is.Equal(state["status"], runlog.StatusSucceeded)
	rep := f.must("loop_report", map[string]any{"repo": f.repo, "name": "one"})
	is.Equal(rep["finished"], true)
	is.Equal(rep["success"], true)
	is.Equal(rep["iterations"], 1.0)
	prompt, err := os.ReadFile(filepath.Join(f.work, "one-prompt.txt"))
	is.NoErr(err)
	is.True(strings.Contains(string(prompt), task)) // the task reached the prompt as written
	_, err = os.Stat(filepath.Join(f.work, "pwned"))
	is.True(os.IsNotExist(err)) // and no shell ran it
	_, err = os.Stat(filepath.Join(f.work, "pwned2"))
	is.True(os.IsNotExist(err))

	// A loop that hangs, stopped: the loop, its agent and what the agent
	// spawned all end, and the state says it was stopped.
	two := f.agent("two", map[string]string{"default.txt": "spawn $WORK/two-spawned.pid\ntouch $WORK/two-running\nhang\n"})
	f.must("start_loop", map[string]any{"repo": f.repo, "name": "two", "task": "never ends", "checks": []string{"false"}, "agent_cmd": two})
	if !testutil.Until(time.Minute, func() bool { _, err := os.Stat(filepath.Join(f.work, "two-running")); return err == nil }) {
		t.Fatal("the second loop's agent did not start")
	}
	ws := filepath.Join(f.repo, ".architect-worktrees", "two")
	st2, err := runlog.ReadState(ws)
	is.NoErr(err)
	loopPID := st2.PID
	spawned := readPID(t, filepath.Join(f.work, "two-spawned.pid"))
	is.True(testutil.Alive(loopPID))
	stop := f.must("stop_loop", map[string]any{"repo": f.repo, "name": "two"})
	is.True(strings.Contains(stop["message"].(string), "ended"))
	is.True(!testutil.Alive(loopPID)) // the loop ended before stop_loop returned
	is.True(testutil.Until(10*time.Second, func() bool { return !testutil.Alive(spawned) }))
	st = f.waitStopped("two")
	is.Equal(st["exit"], 130.0)
	is.True(st["state"].(map[string]any)["status"] != "running")
	rep = f.must("loop_report", map[string]any{"repo": f.repo, "name": "two"})
	is.Equal(rep["success"], false)

	// resume_loop restarts the stopped loop from its state, as a child of
	// the server again; stop_loop ends it again.
	is.NoErr(os.Remove(filepath.Join(f.work, "two-running")))
	out = f.must("resume_loop", map[string]any{"repo": f.repo, "name": "two"})
	is.True(strings.Contains(out["message"].(string), "restarted"))
	if !testutil.Until(time.Minute, func() bool { _, err := os.Stat(filepath.Join(f.work, "two-running")); return err == nil }) {
		t.Fatal("the restarted loop's agent did not start")
	}
	st2, err = runlog.ReadState(ws)
	is.NoErr(err)
	is.True(st2.PID != loopPID) // a new process, the same run
	f.must("stop_loop", map[string]any{"repo": f.repo, "name": "two"})
	is.True(!testutil.Alive(st2.PID))

	// Bad input: clear errors, nothing started.
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"repo": "repo", "name": "x", "task": "t"}, "is not an absolute path"},
		{map[string]any{"repo": f.repo, "name": "../escape", "task": "t"}, "is not a loop name"},
		{map[string]any{"repo": f.repo, "name": "x", "task": "  "}, "task is empty"},
		{map[string]any{"repo": f.repo, "name": "x", "task": "t", "agent": "nope", "checks": []string{"true"}}, "the loop was not started"},
		{map[string]any{"repo": filepath.Join(f.work, "missing"), "name": "x", "task": "t"}, "is not a folder"},
	} {
		_, errText := f.call("start_loop", tc.args)
		is.True(strings.Contains(errText, tc.want)) // the error says what is wrong
	}
	_, errText := f.call("loop_status", map[string]any{"repo": f.repo, "name": "never"})
	is.True(strings.Contains(errText, "no loop named never"))
	_, err = os.Stat(filepath.Join(f.repo, ".architect-worktrees", "x"))
	is.True(os.IsNotExist(err))

	// A loop still running when the client goes: the server stops it and
	// exits; nothing it started is left.
	three := f.agent("three", map[string]string{"default.txt": "spawn $WORK/three-spawned.pid\ntouch $WORK/three-running\nhang\n"})
	f.must("start_loop", map[string]any{"repo": f.repo, "name": "three", "task": "never ends", "checks": []string{"false"}, "agent_cmd": three})
	if !testutil.Until(time.Minute, func() bool { _, err := os.Stat(filepath.Join(f.work, "three-running")); return err == nil }) {
		t.Fatal("the third loop's agent did not start")
	}
	st3, err := runlog.ReadState(filepath.Join(f.repo, ".architect-worktrees", "three"))
	is.NoErr(err)
	spawned3 := readPID(t, filepath.Join(f.work, "three-spawned.pid"))
	is.NoErr(f.cs.Close())
	is.True(f.server.ProcessState != nil) // Close waited for the server
	is.True(f.server.ProcessState.Success())
	is.True(!testutil.Alive(st3.PID))
	is.True(testutil.Until(10*time.Second, func() bool { return !testutil.Alive(spawned3) }))
	st3, err = runlog.ReadState(filepath.Join(f.repo, ".architect-worktrees", "three"))
	is.NoErr(err)
	is.Equal(st3.Status, runlog.StatusStopped) // its state saved as stopped, resumable
}

func readPID(t *testing.T, path string) int {
	t.Helper()
	pid := 0
	if !testutil.Until(30*time.Second, func() bool {
		b, _ := os.ReadFile(path)
		n, err := strconv.Atoi(strings.TrimSpace(string(b)))
		pid = n
		return err == nil && n > 0
	}) {
		t.Fatalf("no pid in %s", path)
	}
	return pid
}

// pause_loop and resume_loop act through the control files: a loop asked
// to pause during its first agent run waits, paused, after it; resumed, it
// runs its second iteration and succeeds.
func TestMCPPauseResume(t *testing.T) {
	is := is.New(t)
	f := newMCPFixture(t)
	agent := f.agent("p", map[string]string{
		"iter-1.txt": "touch $WORK/p-1\nwaitfor $WORK/p-go\nsay not yet\n",
		"iter-2.txt": "write done.txt yes\nsay done <promise>COMPLETE</promise>\n",
	})
	f.must("start_loop", map[string]any{"repo": f.repo, "name": "p", "task": "make done.txt", "checks": []string{"test -f done.txt"}, "agent_cmd": agent, "max_iterations": 3})
	if !testutil.Until(time.Minute, func() bool { _, err := os.Stat(filepath.Join(f.work, "p-1")); return err == nil }) {
		t.Fatal("the agent did not start")
	}
	out := f.must("pause_loop", map[string]any{"repo": f.repo, "name": "p"})
	is.True(strings.Contains(out["message"].(string), "paused"))
	testutil.WriteFile(t, f.work, "p-go", "")
	var st map[string]any
	if !testutil.Until(time.Minute, func() bool {
		st = f.must("loop_status", map[string]any{"repo": f.repo, "name": "p"})
		s, _ := st["state"].(map[string]any)
		return s != nil && s["status"] == runlog.StatusPaused
	}) {
		t.Fatalf("the loop did not pause: %v", st)
	}
	is.Equal(st["running"], true)
	_, err := os.Stat(filepath.Join(f.repo, ".architect-worktrees", "p", "done.txt"))
	is.True(os.IsNotExist(err)) // no second iteration while paused
	out = f.must("resume_loop", map[string]any{"repo": f.repo, "name": "p"})
	is.True(strings.Contains(out["message"].(string), "resumed"))
	st = f.waitStopped("p")
	is.Equal(st["exit"], 0.0)
	rep := f.must("loop_report", map[string]any{"repo": f.repo, "name": "p"})
	is.Equal(rep["success"], true)
	is.Equal(rep["iterations"], 2.0)
}

// answer_question answers what a loop's agent asked: the loop, started
// with questions on, waits after the agent asked; the answer (text that
// looks like a flag and a shell substitution, taken as data) reaches the
// next iteration's prompt, and the loop succeeds.
func TestMCPAnswerQuestion(t *testing.T) {
	is := is.New(t)
	f := newMCPFixture(t)
	agent := f.agent("q", map[string]string{
		"iter-1.txt": "say I need a decision. <question>Which colour should the button be?</question>\n",
		"iter-2.txt": "prompt $WORK/q-prompt-2.md\nwrite done.txt yes\nsay done <promise>COMPLETE</promise>\n",
	})
	_, errText := f.call("answer_question", map[string]any{"repo": f.repo, "name": "q", "answer": "blue"})
	is.True(errText != "") // no loop, no question
	f.must("start_loop", map[string]any{"repo": f.repo, "name": "q", "task": "make done.txt", "checks": []string{"test -f done.txt"}, "agent_cmd": agent, "max_iterations": 3, "questions": true})
	var st map[string]any
	if !testutil.Until(time.Minute, func() bool {
		st = f.must("loop_status", map[string]any{"repo": f.repo, "name": "q"})
		s, _ := st["state"].(map[string]any)
		return s != nil && s["status"] == runlog.StatusWaiting
	}) {
		t.Fatalf("the loop does not wait for an answer: %v", st)
	}
	_, errText = f.call("answer_question", map[string]any{"repo": f.repo, "name": "q", "answer": "  "})
	is.True(strings.Contains(errText, "answer is empty"))
	answer := "--blue, as in $(touch $WORK/pwned) the logo"
	out := f.must("answer_question", map[string]any{"repo": f.repo, "name": "q", "answer": answer})
	is.True(strings.Contains(out["message"].(string), "answer sent"))
	st = f.waitStopped("q")
	is.Equal(st["exit"], 0.0)
	prompt, err := os.ReadFile(filepath.Join(f.work, "q-prompt-2.md"))
	is.NoErr(err)
	is.True(strings.Contains(string(prompt), "Which colour should the button be?"))
	is.True(strings.Contains(string(prompt), answer)) // verbatim
	_, err = os.Stat(filepath.Join(f.work, "pwned"))
	is.True(os.IsNotExist(err)) // no shell read it
}
