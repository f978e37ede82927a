package sandbox

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/proc"
	"github.com/architect-dev/architect/sandbox/mountns"
)

// needMounts skips a test where the system offers no user namespace with
// the right to mount (told by the kernel, not by the code under test),
// and otherwise requires the sandbox's probe to have found them.
func needMounts(t *testing.T) {
	t.Helper()
	needLandlock(t, abiScope)
	if b, _ := os.ReadFile("/proc/sys/kernel/apparmor_restrict_unprivileged_userns"); strings.TrimSpace(string(b)) == "1" {
		t.Skip("AppArmor gives unprivileged user namespaces no right to mount")
	}
	cmd := exec.Command("/bin/true")
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	mountns.SetAttr(cmd.SysProcAttr)
	if err := cmd.Run(); err != nil {
		t.Skipf("no user namespace here: %v", err)
	}
	if ok, why := probeMounts(); !ok {
		t.Fatalf("user namespaces are available, yet the probe says: %s", why)
	}
}

// runStart runs the probe as an agent started by st.
func runStart(t *testing.T, st AgentStart, dir string, args ...string) (int, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	res := proc.Run(context.Background(), exe, append([]string{"probe"}, args...), proc.Options{
		Dir: dir, Stdout: &out, Stderr: &out, Timeout: 30 * time.Second, Wrap: st.Wrap, Attr: st.Attr,
	})
	if res.StartErr != nil {
		t.Fatal(res.StartErr)
	}
	return res.ExitCode, out.String()
}

// TestProtectedReadOnly: a protected file refuses every change the agent
// tries, by the kernel, while the rest of the workspace stays writable;
// the refusals are named as the sandbox's.
func TestProtectedReadOnly(t *testing.T) {
	needMounts(t)
	f := newFixture(t)
	sb := f.sandbox(t, Settings{Mode: ModeWorkspace, Protect: true})
	is.New(t).True(strings.Contains(sb.Line(), "protected files read-only to the agent"))
	check := filepath.Join(f.ws, "check.sh")
	tmp := filepath.Join(f.ws, "tmp")
	theirs := filepath.Join(f.ws, "theirs.go")
	if err := os.WriteFile(theirs, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if os.Getuid() == 0 {
		if err := os.Chown(theirs, 12345, 12345); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name string
		args []string
		ok   bool
		errs string // in the output when refused
	}{
		{"write the protected file", []string{"write", check}, false, "read-only file system"},
		{"remove it", []string{"remove", check}, false, "device or resource busy"},
		{"rename over it", []string{"rename", tmp, check}, false, "device or resource busy"},
		{"unmount it", []string{"umount", check}, false, "operation not permitted"},
		{"remount it writable", []string{"remount", check}, false, "operation not permitted"},
		{"write another file", []string{"write", filepath.Join(f.ws, "main.go")}, true, ""},
		// root keeps its power over every user's files (see mountns.SetAttr)
		{"write another user's file", []string{"write", theirs}, true, ""},
		{"rename another file", []string{"rename", tmp, filepath.Join(f.ws, "other")}, true, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			for name, text := range map[string]string{check: "#!/bin/sh\nexit 0\n", tmp: "new"} {
				if err := os.WriteFile(name, []byte(text), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			st := sb.AgentStart([]string{"check.sh"})
			is.True(st.Attr != nil) // started in namespaces of its own
			code, out := runStart(t, st, f.ws, c.args...)
			t.Log(out)
			is.Equal(code == 0, c.ok)
			got, err := os.ReadFile(check)
			is.NoErr(err)
			is.Equal(string(got), "#!/bin/sh\nexit 0\n") // the protected file is unchanged, with nothing restored
			if !c.ok {
				is.True(strings.Contains(strings.ToLower(out), c.errs))
			}
			if c.errs != "operation not permitted" && !c.ok {
				is.Equal(sb.Denials(f.ws, out), []string{"sandbox denied write to " + check})
			}
		})
	}
	// A user who is not root runs the agent with no capability: the one
	// the helper had to mount is given up before the agent starts.
	if os.Getuid() != 0 {
		code, out := runStart(t, sb.AgentStart([]string{check}), f.ws, "caps")
		t.Log(out)
		is := is.New(t)
		is.Equal(code, 0)
		is.True(strings.Contains(out, "CapEff:\t0000000000000000"))
		is.True(strings.Contains(out, "CapAmb:\t0000000000000000"))
		is.True(strings.Contains(out, "CapPrm:\t0000000000000000"))
		is.True(strings.Contains(out, "CapInh:\t0000000000000000"))
	}
	// The mounts were the agent's namespace's alone: none is left here.
	info, err := os.ReadFile("/proc/self/mountinfo")
	is.New(t).NoErr(err)
	is.New(t).True(!strings.Contains(string(info), check))
}

// TestReadOnlyLeavesOthers: only the agent's start mounts; the checks'
// wrap, and a start without protected files, need no namespace.
func TestReadOnlyLeavesOthers(t *testing.T) {
	needMounts(t)
	is := is.New(t)
	f := newFixture(t)
	sb := f.sandbox(t, Settings{Mode: ModeWorkspace, Protect: true})
	check := filepath.Join(f.ws, "check.sh")
	is.NoErr(os.WriteFile(check, []byte("x"), 0o644))
	_ = sb.AgentStart([]string{check})
	code, out := runProbe(t, sb.CheckWrap(), f.ws, "write", check)
	t.Log(out)
	is.Equal(code, 0) // a check may write it
	st := sb.AgentStart(nil)
	is.True(st.Attr == nil)
	st = sb.AgentStart([]string{filepath.Join(f.ws, "missing"), filepath.Join(f.outside, "secret")})
	is.True(st.Attr == nil) // nothing to mount: missing, or outside what the agent may write anyway
}

// TestReadOnlyBounded: beyond maxReadOnly files the rest are left to the
// restore, said once.
func TestReadOnlyBounded(t *testing.T) {
	needMounts(t)
	is := is.New(t)
	f := newFixture(t)
	sb := f.sandbox(t, Settings{Mode: ModeWorkspace, Protect: true})
	var files []string
	for i := range maxReadOnly + 5 {
		p := filepath.Join(f.ws, "t"+strconv.Itoa(i))
		is.NoErr(os.WriteFile(p, []byte("x"), 0o644))
		files = append(files, p)
	}
	st := sb.AgentStart(files)
	is.True(strings.Contains(st.Note, "the other 5 are guarded by restore only")) // st.Note
	code, _ := runStart(t, st, f.ws, "write", files[0])
	is.True(code != 0) // the first are read-only
	code, out := runStart(t, st, f.ws, "write", files[len(files)-1])
	t.Log(out)
	is.Equal(code, 0)                       // the last are not
	is.Equal(sb.AgentStart(files).Note, "") // said once
}

// TestReadOnlyUnavailable: where user namespaces are off (a real limit:
// user.max_user_namespaces=0 in a namespace of the test's own, which the
// kernel then enforces on every process in it), a run with protected
// files still starts confined by Landlock, says that the files are
// guarded by restore only, and starts its agent without namespaces.
func TestReadOnlyUnavailable(t *testing.T) {
	needMounts(t)
	if os.Getenv("ARCHITECT_TEST_NO_USERNS") == "1" {
		t.Skip("inside the test's own namespace: see the parent")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	script := `echo 0 > /proc/sys/user/max_user_namespaces && exec "$0" -test.run '^TestUnavailableInside$' -test.count=1 -test.v`
	res := proc.Run(context.Background(), "/bin/sh", []string{"-c", script, exe}, proc.Options{
		Stdout: &out, Stderr: &out, Timeout: 60 * time.Second,
		Env:  append(os.Environ(), "ARCHITECT_TEST_NO_USERNS=1"),
		Attr: nsOnly,
	})
	is := is.New(t)
	is.NoErr(res.StartErr)
	t.Log(out.String())
	is.Equal(res.ExitCode, 0)
	is.True(strings.Contains(out.String(), "--- PASS: TestUnavailableInside"))
}

func TestUnavailableInside(t *testing.T) {
	if os.Getenv("ARCHITECT_TEST_NO_USERNS") != "1" {
		t.Skip("run by TestReadOnlyUnavailable")
	}
	is := is.New(t)
	f := newFixture(t)
	sb := f.sandbox(t, Settings{Mode: ModeWorkspace, Protect: true})
	ok, why := sb.ReadOnlyMounts()
	is.True(!ok)
	is.True(strings.Contains(why, "user namespaces are not available")) // why
	is.True(strings.Contains(sb.Line(), "protected files guarded by restore only: user namespaces are not available"))
	check := filepath.Join(f.ws, "check.sh")
	is.NoErr(os.WriteFile(check, []byte("x"), 0o644))
	st := sb.AgentStart([]string{check})
	is.True(st.Wrap != nil && st.Attr == nil) // confined, without namespaces
	code, out := runStart(t, st, f.ws, "write", filepath.Join(f.ws, "..", "escape"))
	is.True(code != 0 && strings.Contains(out, "permission denied")) // still confined by Landlock
	code, _ = runStart(t, st, f.ws, "write", check)
	is.Equal(code, 0) // writable: the restore guards it
}

// nsOnly starts a process in a user namespace of its own, as its root
// (mapped to the test's user): it may then lower the namespace's limits.
func nsOnly(a *syscall.SysProcAttr) {
	a.Cloneflags |= syscall.CLONE_NEWUSER
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}}
}

// TestReadOnlyAsUser: where the tests run as root, the read-only mounts
// are tried again as a user who is not (the common case: a user maps only
// itself into the namespace), in a user namespace where the test is that
// user.
func TestReadOnlyAsUser(t *testing.T) {
	needMounts(t)
	if os.Getuid() != 0 {
		t.Skip("the tests already run as a user who is not root")
	}
	if os.Getenv("ARCHITECT_TEST_AS_USER") == "1" {
		t.Skip("inside: see the parent")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	res := proc.Run(context.Background(), exe, []string{"-test.run", "^(TestProtectedReadOnly|TestReadOnlyLeavesOthers)$", "-test.count=1", "-test.v"}, proc.Options{
		Stdout: &out, Stderr: &out, Timeout: 60 * time.Second,
		Env: append(os.Environ(), "ARCHITECT_TEST_AS_USER=1"),
		Attr: func(a *syscall.SysProcAttr) {
			a.Cloneflags |= syscall.CLONE_NEWUSER
			a.UidMappings = []syscall.SysProcIDMap{{ContainerID: 1000, HostID: 0, Size: 1}}
			a.GidMappings = []syscall.SysProcIDMap{{ContainerID: 1000, HostID: 0, Size: 1}}
			a.Credential = &syscall.Credential{Uid: 1000, Gid: 1000, NoSetGroups: true}
		},
	})
	t.Log(out.String())
	is := is.New(t)
	is.NoErr(res.StartErr)
	is.Equal(res.ExitCode, 0)
	is.True(strings.Contains(out.String(), "--- PASS: TestProtectedReadOnly"))
	is.True(!strings.Contains(out.String(), "--- SKIP: TestProtectedReadOnly"))
	is.True(strings.Contains(out.String(), "CapAmb:\t0000000000000000")) // the capabilities were looked at
}

// TestReadOnlyPartial: a file the kernel refuses to mount read-only does
// not keep the agent from running: the others are read-only, and the
// refusal is said as a warning ("/" stands for such a path: a folder
// with the mounts the namespace inherited beneath it cannot be bound
// alone).
func TestReadOnlyPartial(t *testing.T) {
	needMounts(t)
	is := is.New(t)
	f := newFixture(t)
	sb := f.sandbox(t, Settings{Mode: ModeWorkspace, Protect: true})
	check := filepath.Join(f.ws, "check.sh")
	is.NoErr(os.WriteFile(check, []byte("x"), 0o644))
	p := sb.agent
	p.ReadOnly = []string{"/", check}
	code, out := runStart(t, AgentStart{Wrap: p.wrap, Attr: mountns.SetAttr}, f.ws, "write", check)
	t.Log(out)
	is.Equal(code, 1) // the probe ran, and its write was refused
	is.True(strings.Contains(out, "architect: warning: sandbox: 1 of the files stay writable: bind-mounting /: "))
	is.True(strings.Contains(out, "read-only file system"))
}
