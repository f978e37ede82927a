package sandbox

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/proc"
)

// needLandlock skips a test on a kernel without the ABI it needs.
func needLandlock(t *testing.T, abi int) {
	t.Helper()
	if s := probe(); s.abi < abi {
		t.Skipf("this kernel has Landlock ABI %d; the test needs %d", s.abi, abi)
	}
}

// env is a fixed environment for Settings.Getenv: no caches outside the
// test's folders.
func env(home string) func(string) string {
	vals := map[string]string{
		"GOCACHE": filepath.Join(home, "gocache"), "GOMODCACHE": filepath.Join(home, "gomod"),
		"npm_config_cache": filepath.Join(home, "npm"), "PIP_CACHE_DIR": filepath.Join(home, "pip"),
		"CARGO_HOME": filepath.Join(home, "cargo"), "PATH": os.Getenv("PATH"),
	}
	return func(k string) string { return vals[k] }
}

type fixture struct {
	ws, home, outside string
}

func newFixture(t *testing.T) fixture {
	root := t.TempDir()
	f := fixture{ws: filepath.Join(root, "ws"), home: filepath.Join(root, "home"), outside: filepath.Join(root, "outside")}
	for _, d := range []string{f.ws, f.home, f.outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(f.outside, "secret"), []byte("s"), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f fixture) sandbox(t *testing.T, s Settings) *Sandbox {
	t.Helper()
	s.Workspace, s.Home, s.Getenv = f.ws, f.home, env(f.home)
	sb, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sb.Close)
	return sb
}

// runProbe runs the probe through wrap, in dir.
func runProbe(t *testing.T, wrap Wrapper, dir string, args ...string) (int, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	res := proc.Run(context.Background(), exe, append([]string{"probe"}, args...), proc.Options{
		Dir: dir, Stdout: &out, Stderr: &out, Timeout: 30 * time.Second, Wrap: wrap,
	})
	if res.StartErr != nil {
		t.Fatal(res.StartErr)
	}
	return res.ExitCode, out.String()
}

func TestWorkspaceFiles(t *testing.T) {
	needLandlock(t, abiScope)
	f := newFixture(t)
	sb := f.sandbox(t, Settings{Mode: ModeWorkspace})
	// Outside t.TempDir on purpose: the shared temporary folder itself.
	sharedTmp := filepath.Join(os.TempDir(), "architect-escape-"+strconv.Itoa(os.Getpid()))
	t.Cleanup(func() { _ = os.Remove(sharedTmp) })
	cases := []struct {
		name, verb, path string
		ok               bool
	}{
		{"inside the workspace", "write", filepath.Join(f.ws, "a.txt"), true},
		{"a new folder's file", "write", filepath.Join(f.ws, "b.txt"), true},
		{"the private temp folder", "write", filepath.Join(sb.tmp, "t.txt"), true},
		{"a cache", "write", filepath.Join(f.home, "gocache", "c"), true},
		{"next to the workspace", "write", filepath.Join(f.ws, "..", "escape.txt"), false},
		{"the home folder", "write", filepath.Join(f.home, "x"), false},
		{"the shared temp folder", "write", sharedTmp, false},
		{"/dev/null", "write", "/dev/null", true},
		{"read outside", "read", filepath.Join(f.outside, "secret"), true},
	}
	_ = os.MkdirAll(filepath.Join(f.home, "gocache"), 0o755)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			code, out := runProbe(t, sb.AgentWrap(), f.ws, c.verb, c.path)
			is.Equal(code == 0, c.ok) // out: see below
			if !c.ok {
				is.True(strings.Contains(out, "permission denied"))
				_, err := os.Stat(c.path)
				is.True(os.IsNotExist(err)) // nothing was written
			}
		})
	}
}

func TestTmpdirIsPrivate(t *testing.T) {
	needLandlock(t, abiScope)
	is := is.New(t)
	f := newFixture(t)
	sb := f.sandbox(t, Settings{Mode: ModeWorkspace})
	code, out := runProbe(t, sb.AgentWrap(), f.ws, "env", "TMPDIR")
	is.Equal(code, 0)
	is.Equal(strings.TrimSpace(out), sb.tmp)
	is.True(strings.HasPrefix(filepath.Base(sb.tmp), "architect-sandbox-"))
	sb.Close()
	_, err := os.Stat(sb.tmp)
	is.True(os.IsNotExist(err)) // removed with the run
}

func TestStrictReads(t *testing.T) {
	needLandlock(t, abiScope)
	f := newFixture(t)
	if err := os.WriteFile(filepath.Join(f.ws, "in"), []byte("i"), 0o644); err != nil {
		t.Fatal(err)
	}
	extra := filepath.Join(f.outside, "declared")
	if err := os.WriteFile(extra, []byte("d"), 0o644); err != nil {
		t.Fatal(err)
	}
	sb := f.sandbox(t, Settings{Mode: ModeStrict, Read: []string{extra}})
	for _, c := range []struct {
		path string
		ok   bool
	}{
		{filepath.Join(f.ws, "in"), true},
		{extra, true},
		{filepath.Join(f.outside, "secret"), false},
		{"/etc/hostname", true},
	} {
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			is := is.New(t)
			if _, err := os.Stat(c.path); err != nil {
				t.Skip(err)
			}
			code, out := runProbe(t, sb.AgentWrap(), f.ws, "read", c.path)
			is.Equal(code == 0, c.ok) // out: see below
			if !c.ok {
				is.Equal(sb.Denials(f.ws, out), []string{"sandbox denied read of " + c.path})
			}
		})
	}
}

// listen serves TCP on loopback, accepting and closing, until the test ends.
func listen(t *testing.T) (string, uint16) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
	return ln.Addr().String(), uint16(ln.Addr().(*net.TCPAddr).Port)
}

func TestNetByPort(t *testing.T) {
	needLandlock(t, abiScope)
	f := newFixture(t)
	addr, port := listen(t)
	_, other := listen(t)
	for _, c := range []struct {
		net      string
		agent    bool // the agent may connect
		check    bool
		mode     string
		wantLine string
	}{
		{"", true, true, ModeWorkspace, "network: all"},
		{"none", false, false, ModeWorkspace, "network: none"},
		{strconv.Itoa(int(port)), true, true, ModeWorkspace, "network: ports " + strconv.Itoa(int(port))},
		{strconv.Itoa(int(other)), false, false, ModeWorkspace, "network: ports"},
		{"", true, false, ModeStrict, "(checks: none)"},
		{"all", true, true, ModeStrict, "network: all"},
	} {
		t.Run(c.mode+"-"+c.net, func(t *testing.T) {
			is := is.New(t)
			sb := f.sandbox(t, Settings{Mode: c.mode, Net: c.net})
			is.True(strings.Contains(sb.Line(), c.wantLine)) // the line says it
			code, out := runProbe(t, sb.AgentWrap(), f.ws, "dial", addr)
			is.Equal(code == 0, c.agent) // the agent
			if !c.agent {
				is.Equal(sb.Denials(f.ws, out), []string{"sandbox denied connect to " + addr})
			}
			code, _ = runProbe(t, sb.CheckWrap(), f.ws, "dial", addr)
			is.Equal(code == 0, c.check) // a check
		})
	}
}

func TestSignalsScoped(t *testing.T) {
	needLandlock(t, abiScope)
	is := is.New(t)
	f := newFixture(t)
	pid := strconv.Itoa(os.Getpid())
	code, _ := runProbe(t, nil, f.ws, "signal", pid)
	is.Equal(code, 0) // unconfined, the signal goes
	sb := f.sandbox(t, Settings{Mode: ModeWorkspace})
	code, out := runProbe(t, sb.AgentWrap(), f.ws, "signal", pid)
	is.Equal(code, 1) // confined, it does not
	is.True(strings.Contains(out, "operation not permitted"))
}

// git runs git in dir, unconfined.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestWorktreeCommits: in a linked worktree the confined agent commits
// (objects, its branch's ref and reflog, its own index and HEAD), while
// the main checkout's HEAD, its other branches and its files stay out of
// reach.
func TestWorktreeCommits(t *testing.T) {
	needLandlock(t, abiScope)
	is := is.New(t)
	f := newFixture(t)
	main := filepath.Join(f.ws, "repo")
	is.NoErr(os.MkdirAll(main, 0o755))
	git(t, main, "init", "-q", "-b", "main")
	is.NoErr(os.WriteFile(filepath.Join(main, "a.txt"), []byte("a\n"), 0o644))
	git(t, main, "add", "a.txt")
	git(t, main, "commit", "-qm", "first")
	wt := filepath.Join(main, ".architect-ralph-worktree")
	git(t, main, "worktree", "add", "-q", "-b", "architect/ralph-loop", wt)
	before := git(t, main, "rev-parse", "main")

	sb, err := New(Settings{Mode: ModeWorkspace, Workspace: wt, Home: f.home, Getenv: env(f.home)})
	is.NoErr(err)
	defer sb.Close()
	gitEnv := []string{"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t",
		"GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "PATH=" + os.Getenv("PATH"), "HOME=" + f.home}
	confined := func(args ...string) (int, string) {
		var out bytes.Buffer
		res := proc.Run(context.Background(), "git", args, proc.Options{Dir: wt, Env: gitEnv, Stdout: &out, Stderr: &out, Timeout: 30 * time.Second, Wrap: sb.AgentWrap()})
		is.NoErr(res.StartErr)
		return res.ExitCode, out.String()
	}
	is.NoErr(os.WriteFile(filepath.Join(wt, "b.txt"), []byte("b\n"), 0o644))
	code, out := confined("add", "b.txt")
	if code != 0 {
		t.Fatalf("the confined git add failed: %s", out)
	}
	code, out = confined("commit", "-qm", "agent's commit")
	if code != 0 {
		t.Fatalf("the confined commit failed: %s", out)
	}
	is.Equal(git(t, main, "log", "-1", "--format=%s", "architect/ralph-loop"), "agent's commit")
	is.True(strings.Contains(git(t, main, "reflog", "architect/ralph-loop"), "agent's commit")) // the reflog too

	// The main checkout's HEAD, its branch main, its files: denied.
	code, out = runProbe(t, sb.AgentWrap(), wt, "write", filepath.Join(main, ".git", "HEAD"))
	is.Equal(code, 1)
	is.Equal(sb.Denials(wt, out), []string{"sandbox denied write to " + filepath.Join(main, ".git", "HEAD")})
	code, _ = confined("update-ref", "refs/heads/main", "architect/ralph-loop")
	is.True(code != 0) // main cannot be moved
	is.Equal(git(t, main, "rev-parse", "main"), before)
	code, _ = runProbe(t, sb.AgentWrap(), wt, "write", filepath.Join(main, "a.txt"))
	is.Equal(code, 1)
	is.Equal(git(t, main, "symbolic-ref", "HEAD"), "refs/heads/main")
}

// TestHelperNeverRunsUnconfined: when the rules cannot be applied, the
// helper does not run the program at all.
func TestHelperNeverRunsUnconfined(t *testing.T) {
	is := is.New(t)
	f := newFixture(t)
	target := filepath.Join(f.outside, "ran")
	p := Policy{Write: []string{f.ws}, ABI: 1} // rules this build refuses to apply
	code, out := runProbe(t, p.wrap, f.ws, "write", target)
	is.Equal(code, 126)
	is.True(strings.Contains(out, "the rules could not be applied"))
	_, err := os.Stat(target)
	is.True(os.IsNotExist(err)) // the program never ran
}

// TestMissingNamedPaths: a --sandbox-write or --sandbox-read path that does
// not exist grants nothing, and is listed so the run can say so; one that
// exists is not listed.
func TestMissingNamedPaths(t *testing.T) {
	needLandlock(t, 3)
	is := is.New(t)
	f := newFixture(t)
	gone := filepath.Join(f.outside, "typo")
	sb := f.sandbox(t, Settings{Mode: ModeStrict, Write: []string{f.outside, gone}, Read: []string{gone + "-read"}})
	is.Equal(sb.Missing(), []string{"--sandbox-write " + gone, "--sandbox-read " + gone + "-read"})
}

// TestConfinedCannotReachArchitect: a confined agent, check or hook can
// neither signal any thread of architect (kill(2) given a thread's ID
// signals the whole process: SIGKILL, SIGSTOP) nor get the right to
// ptrace one (opening /proc/TID/mem needs it, as PTRACE_ATTACH and
// process_vm_writev do: all of architect's memory). Landlock lets a
// process signal and ptrace whatever shares its domain, so no thread of
// architect may ever be in the domain of what it confines: each thread of
// this process, listed once confined processes have been started, is out
// of their reach.
func TestConfinedCannotReachArchitect(t *testing.T) {
	needLandlock(t, abiScope)
	f := newFixture(t)
	sb := f.sandbox(t, Settings{Mode: ModeWorkspace})
	confined := []struct {
		name string
		wrap Wrapper
	}{{"agent", sb.AgentWrap()}, {"check", sb.CheckWrap()}}
	for _, c := range confined {
		if code, out := runProbe(t, c.wrap, f.ws, "env", "TMPDIR"); code != 0 {
			t.Fatalf("%s: %d %s", c.name, code, out)
		}
	}
	entries, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	// Unconfined, the probe reaches them: the test can tell (a kernel
	// with Yama's ptrace_scope above 0 refuses the ptrace right anyway).
	first := entries[len(entries)-1].Name()
	code, out := runProbe(t, nil, f.ws, "signal", first)
	if code != 0 {
		t.Fatalf("unconfined, the signal did not go: %s", out)
	}
	memToo := true
	if code, _ := runProbe(t, nil, f.ws, "mem", first); code != 0 {
		memToo = false
		t.Log("this kernel refuses the ptrace right to an unconfined process: /proc/TID/mem not tested")
	}
	for _, e := range entries {
		for _, c := range confined {
			t.Run(c.name+"-"+e.Name(), func(t *testing.T) {
				is := is.New(t)
				code, out := runProbe(t, c.wrap, f.ws, "signal", e.Name())
				is.Equal(code, 1) // no signal to a thread of architect
				is.True(strings.Contains(out, "operation not permitted"))
				if memToo {
					code, out = runProbe(t, c.wrap, f.ws, "mem", e.Name())
					is.Equal(code, 1) // no ptrace right on a thread of architect
					is.True(strings.Contains(out, "permission denied"))
				}
			})
		}
	}
}
