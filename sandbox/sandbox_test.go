package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/usererr"
)

func TestParseNet(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string // NetSpec.String, or the error's start
		err  bool
	}{
		{"", "all", false},
		{"all", "all", false},
		{"none", "none", false},
		{"8080, 443,8080", "ports 443,8080", false},
		{"hosts:API.anthropic.com, *.github.com", "hosts:api.anthropic.com,*.github.com", false},
		{"hosts:", "hosts: names no host", true},
		{"hosts:https://x.com", `"https://x.com" is not a host name`, true},
		{"0", `"0" is not all, none`, true},
		{"70000", `"70000" is not all, none`, true},
		{"example.com", `"example.com" is not all, none`, true},
	} {
		t.Run(c.in, func(t *testing.T) {
			is := is.New(t)
			n, err := ParseNet(c.in)
			if c.err {
				is.True(err != nil)
				is.True(strings.HasPrefix(err.Error(), c.want)) // the message
				return
			}
			is.NoErr(err)
			is.Equal(n.String(), c.want)
		})
	}
}

// TestDecide: workspace and strict refuse what the kernel cannot enforce,
// naming the Linux needed; auto takes less and says what.
func TestDecide(t *testing.T) {
	none, _ := ParseNet("none")
	all, _ := ParseNet("")
	for _, c := range []struct {
		name    string
		mode    string
		net     NetSpec
		sys     system
		applied string
		lack    string // a part of what auto says it lacks
		err     string // a part of the refusal
	}{
		{"full", ModeWorkspace, all, system{kind: "landlock", abi: 7}, ModeWorkspace, "", ""},
		{"strict", ModeStrict, none, system{kind: "landlock", abi: 6}, ModeStrict, "", ""},
		{"no scoping", ModeWorkspace, all, system{kind: "landlock", abi: 5}, "", "", "needs Landlock ABI 6 (Linux 6.12 or later); this kernel has ABI 5"},
		{"no net", ModeStrict, none, system{kind: "landlock", abi: 3}, "", "", "needs Landlock ABI 6"},
		{"no landlock", ModeWorkspace, all, system{why: "no Landlock here"}, "", "", "not supported on this system: no Landlock here"},
		{"auto, no landlock", ModeAuto, all, system{why: "no Landlock here"}, ModeOff, "no Landlock here", ""},
		{"auto, old files", ModeAuto, all, system{kind: "landlock", abi: 2}, ModeOff, "cannot confine files safely", ""},
		{"auto, no scoping", ModeAuto, all, system{kind: "landlock", abi: 4}, ModeWorkspace, "signals and abstract sockets not confined", ""},
		{"auto, no net", ModeAuto, none, system{kind: "landlock", abi: 3}, "", "", "--sandbox-net none needs Landlock ABI 4 (Linux 6.7"},
		{"macOS", ModeStrict, all, system{kind: "sandbox-exec"}, ModeStrict, "", ""},
		{"macOS net", ModeAuto, none, system{kind: "sandbox-exec"}, "", "", "is not supported on this system"},
		{"macOS auto", ModeAuto, all, system{kind: "sandbox-exec"}, ModeOff, "not yet verified on macOS", ""},
		{"macOS workspace", ModeWorkspace, all, system{kind: "sandbox-exec"}, ModeWorkspace, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			applied, lack, err := decide(c.mode, c.net, c.sys)
			if c.err != "" {
				is.True(err != nil)
				is.True(strings.Contains(err.Error(), c.err)) // the refusal says why
				var ue *usererr.Error
				is.True(errors.As(err, &ue))
				is.True(ue.Hint != "") // and what to do
				return
			}
			is.NoErr(err)
			is.Equal(applied, c.applied)
			is.True(strings.Contains(lack, c.lack)) // auto says what it lacks
		})
	}
}

func TestOffIsSaid(t *testing.T) {
	is := is.New(t)
	sb, err := New(Settings{Mode: ModeOff, Workspace: t.TempDir()})
	is.NoErr(err)
	is.Equal(sb.Mode(), ModeOff)
	is.True(strings.HasPrefix(sb.Line(), "sandbox: off: "))
	is.True(sb.AgentWrap() == nil) // nothing wraps
	is.True(sb.CheckWrap() == nil)
	is.Equal(sb.Denials(".", "open /x: permission denied"), []string(nil)) // nothing to name
}

// TestDenials: the shapes permission errors take in what tools print,
// named when the path is outside what the sandbox allows, left alone
// when it is inside (the system refused, not the sandbox).
func TestDenials(t *testing.T) {
	ws := t.TempDir()
	sb := &Sandbox{mode: ModeWorkspace, home: "/home/u",
		agent: Policy{Write: []string{ws, "/tmp/own"}}, check: Policy{Write: []string{ws}}}
	for _, c := range []struct {
		name, out string
		want      []string
	}{
		{"go", "fake-agent: open ../escape.txt: permission denied", []string{"sandbox denied write to " + filepath.Join(filepath.Dir(ws), "escape.txt")}},
		{"node", "Error: EACCES: permission denied, open '/home/u/x'", []string{"sandbox denied write to /home/u/x"}},
		{"python", "PermissionError: [Errno 13] Permission denied: '/etc/passwd'", []string{"sandbox denied write to /etc/passwd"}},
		{"coreutils", "touch: cannot touch '/var/x': Permission denied", []string{"sandbox denied write to /var/x"}},
		{"dash", "sh: 1: cannot create /srv/y: Permission denied", []string{"sandbox denied write to /srv/y"}},
		{"bash", "bash: line 1: /srv/z: Permission denied", []string{"sandbox denied write to /srv/z"}},
		{"git", "fatal: Unable to create '/r/.git/refs/heads/main.lock': Permission denied", []string{"sandbox denied write to /r/.git/refs/heads/main.lock"}},
		{"tilde", "open ~/.bashrc: operation not permitted", []string{"sandbox denied write to /home/u/.bashrc"}},
		{"inside", "open " + ws + "/a: permission denied\nopen /tmp/own/b: permission denied", nil},
		{"a signal", "fake-agent: kill 42: operation not permitted", nil},
		{"go dial", "dial tcp 127.0.0.1:8080: connect: permission denied", []string{"sandbox denied connect to 127.0.0.1:8080"}},
		{"node connect", "Error: connect EACCES 10.0.0.1:443", []string{"sandbox denied connect to 10.0.0.1:443"}},
		{"curl", "curl: (7) Failed to connect to example.com port 443 after 0 ms: Permission denied", []string{"sandbox denied connect to example.com:443"}},
		{"no error", "all is well\npermission granted", nil},
		{"twice", "open /a: permission denied\nopen /a: permission denied", []string{"sandbox denied write to /a"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			is.Equal(sb.Denials(ws, c.out), c.want)
		})
	}
}

// TestReadOnlyDenials: a write refused on a file made read-only to the
// agent (EROFS), or its removal or replacement (EBUSY), is named as the
// sandbox's in the shapes tools print it; the same errors on a file that
// is not one are the system's, and left alone.
func TestReadOnlyDenials(t *testing.T) {
	ws := t.TempDir()
	check := filepath.Join(ws, "tests", "check.sh")
	sb := &Sandbox{mode: ModeWorkspace, home: "/home/u", agent: Policy{Write: []string{ws}},
		check: Policy{Write: []string{ws}}, readOnly: map[string]bool{check: true}}
	want := []string{"sandbox denied write to " + check}
	for _, c := range []struct {
		name, out string
		want      []string
	}{
		{"go", "open tests/check.sh: read-only file system", want},
		{"go rename", "rename " + ws + "/tmp " + check + ": device or resource busy", want},
		{"dash", "sh: 1: cannot create tests/check.sh: Read-only file system", want},
		{"coreutils rm", "rm: cannot remove 'tests/check.sh': Device or resource busy", want},
		{"coreutils mv", "mv: cannot move 'x' to 'tests/check.sh': Device or resource busy", want},
		{"git", "error: unable to unlink old 'tests/check.sh': Device or resource busy", want},
		{"python", "OSError: [Errno 30] Read-only file system: 'tests/check.sh'", want},
		{"node", "Error: EROFS: read-only file system, open '" + check + "'", want},
		{"node rename", "Error: EBUSY: resource busy or locked, rename 'x' -> 'tests/check.sh'", want},
		{"another file", "open tests/other.sh: read-only file system", nil},
		{"no error", "tests/check.sh: ok", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			is.Equal(sb.Denials(ws, c.out), c.want)
		})
	}
}

// TestWatchBounded: the watcher keeps a bounded line and a bounded list,
// however much is printed, and reads lines split across writes.
func TestWatchBounded(t *testing.T) {
	is := is.New(t)
	sb := &Sandbox{mode: ModeWorkspace, agent: Policy{Write: []string{"/ws"}}}
	w := sb.Watch("/ws")
	_, _ = w.Write([]byte("open /a"))
	_, _ = w.Write([]byte("b: permission denied\n"))
	_, _ = w.Write([]byte(strings.Repeat("x", 1<<20) + " open /c: permission denied\n"))
	for i := range 100 {
		fmt.Fprintf(w, "open /d%d: permission denied\n", i)
	}
	d := w.Denials()
	is.Equal(d[0], "sandbox denied write to /ab")              // joined across writes
	is.Equal(len(d), maxDenials)                               // bounded
	is.True(!slices.Contains(d, "sandbox denied write to /c")) // the long line was read by its head alone, never kept whole
}

// TestProxy: an allowed host is tunnelled to; any other is refused with
// 403 before any connection, and recorded.
func TestProxy(t *testing.T) {
	is := is.New(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	is.NoErr(err)
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte("hello\n"))
			_ = c.Close()
		}
	}()
	var refused []string
	p, err := StartProxy([]string{"localhost", "*.example.org"}, func(h string) { refused = append(refused, h) })
	is.NoErr(err)
	defer p.Close()
	connect := func(target string) (string, string) {
		c, err := net.Dial("tcp", p.Addr())
		is.NoErr(err)
		defer c.Close()
		fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
		r := bufio.NewReader(c)
		res, err := http.ReadResponse(r, nil)
		is.NoErr(err)
		if res.StatusCode != 200 {
			return res.Status, ""
		}
		line, _ := r.ReadString('\n')
		return res.Status, line
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	status, line := connect("localhost:" + port)
	is.Equal(status, "200 Connection established")
	is.Equal(line, "hello\n") // through the tunnel
	status, _ = connect("example.com:443")
	is.Equal(status, "403 Forbidden")
	status, _ = connect("evil.example.org.attacker.net:443")
	is.Equal(status, "403 Forbidden")
	is.Equal(refused, []string{"example.com:443", "evil.example.org.attacker.net:443"})
	is.True(p.Allowed("api.example.org"))
	is.True(!p.Allowed("example.org")) // *.x is the subdomains
}

func TestWorktreeGitOnlyForLinkedWorktrees(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	is.NoErr(os.MkdirAll(filepath.Join(dir, ".git"), 0o755))
	is.Equal(worktreeGit(dir), []string(nil)) // a main checkout: nothing of .git is added
}
