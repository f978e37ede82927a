package batch

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/internal/testutil"
	"github.com/matryer/is"
)

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadMergesDefaults(t *testing.T) {
	is := is.New(t)
	path := writeFile(t, "b.yaml", `defaults:
  checks: [go test ./...]
  max_iterations: 7
  agent_cmd: my-agent
  prices: {m: {input: 1, output: 2}}
tasks:
  - id: one
    task: first
  - id: two
    spec: specs/two.md
    max_iterations: 3
    checks: [make lint]
    prices: {n: {input: 5}}
`)
	is.NoErr(os.MkdirAll(filepath.Join(filepath.Dir(path), "specs"), 0o755))
	is.NoErr(os.WriteFile(filepath.Join(filepath.Dir(path), "specs", "two.md"), []byte("spec"), 0o644))
	tasks, warnings, err := Load(path)
	is.NoErr(err)
	is.Equal(len(warnings), 0)
	is.Equal(len(tasks), 2)
	one, two := tasks[0].Config, tasks[1].Config
	is.Equal(tasks[0].ID, "one")
	is.Equal(one.Task, "first")
	is.Equal(one.MaxIterations, 7)
	is.Equal(one.Checks, []string{"go test ./..."})
	is.Equal(one.Agent, "command") // agent_cmd selects the command agent
	is.True(one.Worktree)
	is.Equal(one.WorktreeName, "one")
	is.Equal(two.MaxIterations, 3)
	is.Equal(two.Checks, []string{"make lint"})
	is.Equal(two.Spec, filepath.Join(filepath.Dir(path), "specs", "two.md")) // relative to the file
	is.Equal(two.WorktreeName, "two")
	is.Equal(len(one.Prices), 1) // a task's prices do not leak into another's
	is.Equal(len(two.Prices), 2)
	is.Equal(Matrix(tasks), map[string][]string{"task": {"one", "two"}})
}

func TestLoadErrorsNameTaskAndKey(t *testing.T) {
	cases := []struct{ name, yaml, want string }{
		{"bad value", "tasks:\n  - id: a\n    task: t\n    max_iterations: x\n", `b.yaml:4: tasks.a.max_iterations: "x" is not a whole number`},
		{"unknown key", "tasks:\n  - id: a\n    tsk: t\n", `b.yaml:3: tasks.a: unknown key "tsk" in a task`},
		{"missing id", "tasks:\n  - task: t\n", `b.yaml:2: tasks[0].id: the task has no id`},
		{"bad id", "tasks:\n  - id: ../x\n    task: t\n", `b.yaml:2: tasks[0].id: "../x" is not usable`},
		{"top level", "task: x\ntasks:\n  - id: a\n", `b.yaml:1: task: unknown key "task" at the top level`},
		{"defaults", "defaults:\n  max_cost: -1\ntasks:\n  - id: a\n    task: t\n", `b.yaml:2: tasks.a.max_cost: must not be negative`},
		{"not a list", "tasks: {a: 1}\n", `b.yaml:1: tasks: no tasks`},
		{"worktree", "defaults:\n  worktree: true\ntasks:\n  - id: a\n    task: t\n", `b.yaml:2: defaults.worktree: a batch runs every task`},
		{"yaml indentation", "tasks:\n  - id: a\n    task: t\n   max_cost: 1\n", `b.yaml:4: not valid YAML: did not find expected '-' indicator`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			path := writeFile(t, "b.yaml", c.yaml)
			_, _, err := Load(path)
			is.True(err != nil)
			var all []string
			for _, e := range err.(config.Errors) {
				all = append(all, strings.TrimPrefix(e.Error(), filepath.Dir(path)+"/"))
			}
			text := strings.Join(all, "\n")
			if !strings.Contains(text, c.want) {
				t.Fatalf("errors:\n%s\nwant one containing %q", text, c.want)
			}
		})
	}
}

// gate is an agent that succeeds (or not) and records how many of its
// runs were in flight at once; each run waits until two are, so the test
// sees whether two tasks really run together.
type gate struct {
	mu       sync.Mutex
	inflight int
	peak     int
	two      chan struct{}
	once     sync.Once
}

type gateAgent struct {
	g       *gate
	succeed bool
}

func (a gateAgent) Name() string { return "gate" }

func (a gateAgent) Run(ctx context.Context, req agent.Request) agent.Outcome {
	g := a.g
	g.mu.Lock()
	g.inflight++
	g.peak = max(g.peak, g.inflight)
	if g.inflight == 2 {
		g.once.Do(func() { close(g.two) })
	}
	g.mu.Unlock()
	defer func() { g.mu.Lock(); g.inflight--; g.mu.Unlock() }()
	select {
	case <-g.two:
	case <-ctx.Done():
	case <-time.After(20 * time.Second):
	}
	o := agent.Outcome{CostKnown: true, Cost: 0.5}
	if a.succeed {
		_ = os.WriteFile(filepath.Join(req.Dir, "done.txt"), []byte("ok"), 0o644)
		o.FinalMessage = "<promise>COMPLETE</promise>"
	}
	return o
}

func gitRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, "gitconfig"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"} {
		t.Setenv(k, "t")
	}
	for _, k := range []string{"GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"} {
		t.Setenv(k, "t@example.com")
	}
	for _, args := range [][]string{{"init", "-q"}, {"commit", "-q", "--allow-empty", "-m", "init"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	return dir
}

func TestRunParallelIsolatesFailures(t *testing.T) {
	is := is.New(t)
	repo := gitRepo(t)
	path := writeFile(t, "b.yaml", "defaults:\n  agent_cmd: unused\n  checks: [test -f done.txt]\n  max_iterations: 1\n  task: t\ntasks:\n  - id: a\n  - id: b\n  - id: c\n  - id: d\n")
	tasks, _, err := Load(path)
	is.NoErr(err)
	g := &gate{two: make(chan struct{})}
	agents := map[string]agent.Agent{"a": gateAgent{g, true}, "b": gateAgent{g, false}, "c": gateAgent{g, true}, "d": gateAgent{g, true}}
	is.NoErr(Preflight(context.Background(), repo, tasks))
	var log testutil.Buffer
	res := Run(context.Background(), tasks, Options{Dir: repo, Parallel: 2, Agents: agents, Log: &log})
	is.Equal(g.peak, 2) // two at a time, never more
	is.Equal(len(res), 4)
	for i, want := range []string{Succeeded, Failed, Succeeded, Succeeded} {
		is.Equal(res[i].Outcome, want)
	}
	is.Equal(res[1].StopReason, "max_iterations")
	is.Equal(res[0].Branch, "architect/a")
	is.Equal(*res[0].Cost, 0.5)
	is.True(strings.Contains(log.String(), "architect: [b] failed: stopped on max_iterations"))
	err = Preflight(context.Background(), repo, tasks) // the worktrees are there now
	is.True(err != nil)
	is.True(strings.Contains(err.Error(), "task a, b, c, d already exists"))
}

func TestPrefixWriter(t *testing.T) {
	is := is.New(t)
	var out strings.Builder
	p := &prefixWriter{mu: &sync.Mutex{}, w: &out, prefix: "architect: [x] "}
	_, _ = p.Write([]byte("architect: one\nplain"))
	_, _ = p.Write([]byte(" two\narchitect: warning: three\n"))
	p.flush()
	is.Equal(out.String(), "architect: [x] one\narchitect: [x] plain two\narchitect: [x] warning: three\n")
}

// The example documents a file that loads.
func TestExampleLoads(t *testing.T) {
	is := is.New(t)
	tasks, _, err := Load("../ralph-batch.yaml.example")
	is.NoErr(err)
	is.Equal(Matrix(tasks), map[string][]string{"task": {"fix-auth", "docs-api", "lint"}})
	is.Equal(tasks[2].Config.Agent, "codex")
	is.Equal(tasks[1].Config.MaxIterations, 5)
	is.Equal(tasks[0].Config.MaxIterations, 15)
}

// A task whose loop cannot run at all ends as an error line of its own,
// with the reason, and as outcome "error".
func TestErroredTaskSaysError(t *testing.T) {
	is := is.New(t)
	repo := gitRepo(t)
	path := writeFile(t, "b.yaml", "defaults:\n  agent_cmd: unused\n  checks: [true]\n  max_iterations: 1\n  task: t\ntasks:\n  - id: e\n")
	tasks, _, err := Load(path)
	is.NoErr(err)
	var log testutil.Buffer
	res := Run(context.Background(), tasks, Options{Dir: repo, Parallel: 1, Log: &log}) // no agent for e
	is.Equal(res[0].Outcome, Errored)
	is.Equal(res[0].Error, "no agent for task e")
	is.Equal(log.String(), "architect: [e] error: no agent for task e\n")
}

func TestLoadPullRequest(t *testing.T) {
	for _, tc := range []struct {
		name, defaults string
		want           []bool // per task one, two, three
		err            string
	}{
		{"unset", "", []bool{false, true, false}, ""},
		{"defaults", "  pull_request: true\n", []bool{true, true, false}, ""},
		{"not a bool", "  pull_request: maybe\n", nil, `defaults.pull_request: pull_request must be true or false, not "maybe"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			path := writeFile(t, "b.yaml", "defaults:\n  agent_cmd: a\n  checks: [true]\n"+tc.defaults+`tasks:
  - id: one
    task: first
  - id: two
    task: second
    pull_request: true
  - id: three
    task: third
    pull_request: false
`)
			tasks, _, err := Load(path)
			if tc.err != "" {
				is.True(err != nil)
				is.True(strings.Contains(err.Error(), tc.err)) // the error names the key and the value
				return
			}
			is.NoErr(err)
			got := []bool{}
			for _, tk := range tasks {
				got = append(got, tk.PullRequest)
			}
			is.Equal(got, tc.want)
		})
	}
}
