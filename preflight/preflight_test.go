package preflight

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/loop"
	"github.com/matryer/is"
)

// repo makes a git repository with one commit, isolated from the
// developer's configuration.
func repo(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, "gitconfig"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"-c", "user.name=T", "-c", "user.email=t@x", "commit", "-qm", "one"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

func item(r Report, check string) Item {
	for _, it := range r.Items {
		if it.Check == check {
			return it
		}
	}
	return Item{}
}

func commandAgent(t *testing.T, cmd string) agent.Agent {
	t.Helper()
	ag, err := agent.New(agent.Config{Name: "command", Cmd: cmd})
	if err != nil {
		t.Fatal(err)
	}
	return ag
}

func TestUncommittedChanges(t *testing.T) {
	is := is.New(t)
	dir := repo(t)
	is.NoErr(os.WriteFile(filepath.Join(dir, "PROMPT.md"), []byte("task\n"), 0o644))
	cfg := config.Defaults()
	cfg.Dir, cfg.Agent, cfg.AgentCmd = dir, "command", "true"
	ctx := context.Background()

	cfg.Worktree = true
	r := Run(ctx, cfg, commandAgent(t, "true"), Options{})
	is.NoErr(r.Err())
	u := item(r, "uncommitted changes")
	is.Equal(u.Status, Warn)
	is.True(strings.Contains(u.Detail, "1 uncommitted change (PROMPT.md)"))
	is.True(strings.Contains(u.Hint, "--include-uncommitted"))

	cfg.IncludeUncommitted = true
	u = item(Run(ctx, cfg, commandAgent(t, "true"), Options{}), "uncommitted changes")
	is.Equal(u.Status, OK)

	cfg.Worktree, cfg.Mode = false, config.ModeBuild
	u = item(Run(ctx, cfg, commandAgent(t, "true"), Options{}), "commits")
	is.Equal(u.Status, Warn)
	is.True(strings.Contains(u.Detail, "on your current branch, main, starting with the 1 uncommitted change already there (PROMPT.md)"))

	cfg.Mode = ""
	is.Equal(item(Run(ctx, cfg, commandAgent(t, "true"), Options{}), "commits").Check, "") // not said outside build mode
}

func TestWorkspaceRefusal(t *testing.T) {
	is := is.New(t)
	cfg := config.Defaults()
	cfg.Dir, cfg.Worktree = t.TempDir(), true // not a repository
	r := Run(context.Background(), cfg, commandAgent(t, "true"), Options{})
	err := r.Err()
	is.True(err != nil)
	f := err.(Failures)
	is.Equal(f[0].Check, "workspace")
	is.True(strings.Contains(f[0].Hint, "git init"))
	is.Equal(len(Run(context.Background(), cfg, commandAgent(t, "true"), Options{NoWorkspace: true}).Items), 2) // agent, limits
}

func TestAgentProgram(t *testing.T) {
	ctx := context.Background()
	cfg := config.Defaults()
	cfg.Dir = t.TempDir()
	bin := t.TempDir()
	script := func(name, body string) string {
		p := filepath.Join(bin, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name, bin string
		status    Status
		detail    string
	}{
		{"runs", script("ok", `echo "codex-cli 0.169.0"`), OK, "codex-cli 0.169.0 ("},
		{"fails", script("bad", `echo "Error: cannot find module" >&2; exit 1`), Fail, "failed (exit status 1): Error: cannot find module"},
		{"hangs", script("slow", `exec sleep 60`), Warn, "did not answer within 300ms"},
		{"missing", filepath.Join(bin, "nowhere"), Fail, "is not an executable file"},
		{"not executable", func() string { p := filepath.Join(bin, "plain"); _ = os.WriteFile(p, nil, 0o644); return p }(), Fail, "is not an executable file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			ag, err := agent.New(agent.Config{Name: "codex", Bin: tc.bin})
			is.NoErr(err)
			start := time.Now()
			r := Run(ctx, cfg, ag, Options{NoWorkspace: true, VersionTimeout: 300 * time.Millisecond})
			it := item(r, "agent codex")
			is.Equal(it.Status, tc.status)
			is.True(strings.Contains(it.Detail, tc.detail)) // it.Detail
			is.True(time.Since(start) < 10*time.Second)     // a hung CLI does not hold the start up
			if tc.status == Fail {
				is.True(strings.Contains(it.Hint, "npm install -g @openai/codex"))
			}
		})
	}
	// Not on PATH.
	is := is.New(t)
	ag, err := agent.New(agent.Config{Name: "gemini"})
	is.NoErr(err)
	it := item(Run(ctx, cfg, ag, Options{NoWorkspace: true, LookPath: installed()}), "agent gemini")
	is.Equal(it.Status, Fail)
	is.Equal(it.Detail, "gemini is not installed (not found on PATH)")
	is.True(strings.Contains(it.Hint, "@google/gemini-cli"))
}

func TestChecksAndLimits(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no near name to suggest
	is := is.New(t)
	cfg := config.Defaults()
	cfg.Dir = t.TempDir()
	cfg.Checks = []string{"go test ./...", "pytest -q", "ruff check . && mypy ."}
	cfg.InactivityTimeout, cfg.IterationTimeout = time.Hour, time.Minute
	cfg.MaxTime = 30 * time.Second
	r := Run(context.Background(), cfg, commandAgent(t, "go run ./agent"), Options{NoWorkspace: true, LookPath: installed("go")})
	f := r.Err().(Failures)
	is.Equal(len(f), 2) // every missing program at once
	is.Equal(f[0].Check, "check `pytest -q`")
	is.True(strings.Contains(f[0].Hint, "pip install pytest"))
	is.Equal(f[1].Detail, "ruff, mypy are not installed (not found on PATH): the check would fail at every iteration")
	is.True(strings.Contains(f[1].Hint, "install ruff (pip install ruff, or uv tool install ruff) and mypy (pip install mypy), or fix the check"))
	l := item(r, "limits")
	is.Equal(l.Status, Warn)
	is.True(strings.Contains(l.Detail, "inactivity_timeout (1h) is not shorter than iteration_timeout (1m)"))
	is.True(strings.Contains(l.Detail, "max_time (30s) is shorter than check_timeout (2m)"))
	is.Equal(len(r.Warnings()), 1)
}

// A batch asks each agent program for its version once.
func TestAgentCache(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	count := filepath.Join(dir, "count")
	bin := filepath.Join(dir, "claude")
	is.NoErr(os.WriteFile(bin, []byte("#!/bin/sh\necho x >> "+count+"\necho 1.0\n"), 0o755))
	ag, err := agent.New(agent.Config{Name: "claude", Bin: bin})
	is.NoErr(err)
	cfg := config.Defaults()
	cache := &AgentCache{}
	for range 3 {
		is.NoErr(Run(context.Background(), cfg, ag, Options{NoWorkspace: true, Agents: cache, Geteuid: func() int { return 1000 }}).Err())
	}
	runs, err := os.ReadFile(count)
	is.NoErr(err)
	is.Equal(string(runs), "x\n")
}

// Each fallback agent is checked as the run's own is: installed, runs,
// priced when --max-cost needs it.
func TestFallbackAgents(t *testing.T) {
	is := is.New(t)
	bin := t.TempDir()
	codex := filepath.Join(bin, "codex")
	is.NoErr(os.WriteFile(codex, []byte("#!/bin/sh\necho 'codex-cli 0.169.0'\n"), 0o755))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	cfg := config.Defaults()
	cfg.Dir = t.TempDir()
	cfg.Agent, cfg.AgentCmd = "command", "true"
	cfg.Fallback = []string{"codex:gpt-5.5", "gemini:gemini-2.5-pro", "command:definitely-not-installed-xyz --go"}
	look := func(name string) (string, error) {
		if name == "codex" {
			return codex, nil
		}
		return "", exec.ErrNotFound
	}
	r := Run(context.Background(), cfg, commandAgent(t, "true"), Options{NoWorkspace: true, LookPath: look})
	is.Equal(item(r, "fallback agent codex:gpt-5.5").Status, OK)
	gem := item(r, "fallback agent gemini:gemini-2.5-pro")
	is.Equal(gem.Status, Fail)
	is.True(strings.Contains(gem.Detail, "gemini is not installed"))
	is.True(strings.Contains(gem.Hint, "@google/gemini-cli"))
	cmd := item(r, "fallback agent command")
	is.Equal(cmd.Status, Fail)
	is.True(strings.Contains(cmd.Detail, "definitely-not-installed-xyz"))
	is.True(r.Err() != nil)

	// --max-cost needs every fallback's price.
	cfg.Fallback = []string{"codex:no-such-model"}
	cfg.MaxCost, cfg.AgentReportsCost = 5, true
	r = Run(context.Background(), cfg, commandAgent(t, "true"), Options{NoWorkspace: true, LookPath: look})
	it := item(r, "fallback agent codex:no-such-model")
	is.Equal(it.Status, Fail)
	is.True(strings.Contains(it.Detail, `no price for model "no-such-model"`))
}

// The pre-flight says how the last look will be made and what it brings
// in; outside git it warns that there is no clean tree.
func TestFinalLookItem(t *testing.T) {
	git := loop.WorkspacePlan{Dir: "/w", Repo: "/w"}
	cases := []struct {
		name  string
		mode  string
		p     loop.WorkspacePlan
		none  bool
		check []string
		want  Status
		says  string
	}{
		{"no checks", config.FinalCheckClean, git, true, nil, OK, ""},
		{"off", config.FinalCheckOff, git, false, []string{"true"}, OK, "off: a success rests on the checks run in the agent's tree"},
		{"same", config.FinalCheckSame, git, false, []string{"true"}, OK, "the checks once more in the workspace before a success"},
		{"clean, nothing to bring", config.FinalCheckClean, git, false, []string{"true"}, OK, "clean checkout of the final tree; no ignored node_modules"},
		{"clean, node_modules", config.FinalCheckClean, loop.WorkspacePlan{Dir: "/w", Repo: "/w", Environment: []string{"node_modules", ".env"}}, false, []string{"true"}, OK,
			"clean checkout of the final tree; brought in as at the start: node_modules, .env"},
		{"outside git", config.FinalCheckClean, loop.WorkspacePlan{Dir: "/w"}, false, []string{"true"}, Warn, "not a git repository"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			cfg := config.Defaults()
			cfg.FinalCheck, cfg.Checks = c.mode, c.check
			it := finalLook(cfg, c.p, false)
			if c.none {
				is.Equal(it.Check, "")
				return
			}
			is.Equal(it.Check, "last look")
			is.Equal(it.Status, c.want)
			is.True(strings.HasPrefix(it.Detail, c.says))
		})
	}
}
