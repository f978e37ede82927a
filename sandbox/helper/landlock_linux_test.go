package helper

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"github.com/matryer/is"
)

// TestMain lets the test binary be the helper, and a probe that writes a
// file (`probe write PATH`).
func TestMain(m *testing.M) {
	if len(os.Args) > 2 {
		switch os.Args[1] {
		case Command:
			os.Exit(Main(os.Args[2:]))
		case "probe":
			if err := os.WriteFile(os.Args[len(os.Args)-1], []byte("x"), 0o644); err != nil {
				os.Stderr.WriteString("probe: " + err.Error() + "\n")
				os.Exit(1)
			}
			os.Exit(0)
		}
	}
	os.Exit(m.Run())
}

// TestConstants: the numbers written out here are the kernel's, as
// go-landlock and x/sys/unix have them.
func TestConstants(t *testing.T) {
	is := is.New(t)
	is.Equal([]uint64{fsExecute, fsWriteFile, fsReadFile, fsReadDir, fsRemoveDir, fsRemoveFile, fsMakeChar, fsMakeDir, fsMakeReg, fsMakeSock, fsMakeFifo, fsMakeBlock, fsMakeSym, fsRefer, fsTruncate},
		[]uint64{ll.AccessFSExecute, ll.AccessFSWriteFile, ll.AccessFSReadFile, ll.AccessFSReadDir, ll.AccessFSRemoveDir, ll.AccessFSRemoveFile, ll.AccessFSMakeChar, ll.AccessFSMakeDir, ll.AccessFSMakeReg, ll.AccessFSMakeSock, ll.AccessFSMakeFifo, ll.AccessFSMakeBlock, ll.AccessFSMakeSym, ll.AccessFSRefer, ll.AccessFSTruncate})
	is.Equal(uint64(netConnectTCP), uint64(ll.AccessNetConnectTCP))
	is.Equal([]uint64{scopeAbstractUnixSocket, scopeSignal}, []uint64{ll.ScopeAbstractUnixSocket, ll.ScopeSignal})
	is.Equal([]int{rulePathBeneath, ruleNetPort}, []int{ll.RuleTypePathBeneath, ll.RuleTypeNetPort})
	is.Equal(oPath, 0x200000)
	v, err := ll.LandlockGetABIVersion()
	if err == nil && v >= 1 {
		is.True(KernelABI() >= 1) // the version call is the kernel's
	}
}

// TestCheck: the helper refuses rules it cannot apply in full.
func TestCheck(t *testing.T) {
	for _, c := range []struct {
		name string
		p    Policy
		have int
		want string // "" to accept
	}{
		{"files", Policy{ABI: 3}, 3, ""},
		{"built for ABI 2", Policy{ABI: 2}, 7, "need Landlock ABI 3 or later, not 2"},
		{"no Landlock", Policy{ABI: 7}, 0, "this kernel has no Landlock"},
		{"files on ABI 2", Policy{ABI: 3}, 2, "(ABI 2) cannot apply them (ABI 3 is needed)"},
		{"ports on ABI 3", Policy{ABI: 4, Net: "ports", Ports: []uint16{443}}, 3, "(ABI 3) cannot apply them (ABI 4 is needed)"},
		{"none on ABI 4", Policy{ABI: 4, Net: "none"}, 4, ""},
		{"all on ABI 3", Policy{ABI: 3, Net: NetAll}, 3, ""},
		{"scope on ABI 5", Policy{ABI: 6, Scope: true}, 5, "(ABI 5, or 6 without the fix to its signal scoping) cannot apply them (ABI 6 is needed)"},
		{"scope on ABI 4", Policy{ABI: 6, Scope: true}, 4, "(ABI 4) cannot apply them (ABI 6 is needed)"},
		{"scope on ABI 7", Policy{ABI: 7, Scope: true, Net: "none"}, 7, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			err := check(c.p, c.have)
			if c.want == "" {
				is.NoErr(err)
				return
			}
			is.True(err != nil && strings.Contains(err.Error(), c.want)) // refused, saying why
		})
	}
}

// TestGrants: everything readable (or, strict, the declared paths), the
// writable paths with refer, the devices; a file gets only the rights
// that apply to files.
func TestGrants(t *testing.T) {
	is := is.New(t)
	rw := uint64(readRights | writeRights)
	g := grants(Policy{Write: []string{"/ws"}})
	is.Equal(g[0], grant{"/", readRights})
	is.Equal(g[1], grant{"/ws", rw | fsRefer})
	is.Equal(g[2], grant{Devices[0], rw})
	is.Equal(len(g), 2+len(Devices))
	g = grants(Policy{Write: []string{"/ws"}, Read: []string{"/usr", "/etc/passwd"}, Strict: true})
	is.Equal(g[:3], []grant{{"/usr", readRights}, {"/etc/passwd", readRights}, {"/ws", rw | fsRefer}})
	is.Equal(handled(Policy{}), rulesetAttr{fs: handledFS})
	is.Equal(handled(Policy{Net: "ports", Scope: true}), rulesetAttr{fs: handledFS, net: netConnectTCP, scoped: scopeSignal | scopeAbstractUnixSocket})
	is.Equal(uint64(fileRights)&^(readRights|writeRights), uint64(0)) // a file gets no right a folder would not
	is.Equal(uint64(handledFS)&fsRefer, uint64(fsRefer))
}

// runHelper runs the test binary as the helper with policy, to probe-write
// target; it returns the exit code and what it printed.
func runHelper(t *testing.T, policy, target string) (int, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd := exec.Command(exe, Command, policy, exe, exe, "probe", "write", target)
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), out.String()
	}
	t.Fatal(err)
	return 0, ""
}

// TestMainConfines: through the helper, a write inside the writable
// folder goes and one outside is denied; rules the helper cannot apply,
// or a policy it cannot read, stop it before the program runs.
func TestMainConfines(t *testing.T) {
	have := KernelABI()
	if have < 6 {
		t.Skipf("this kernel has Landlock ABI %d; the test needs 6", have)
	}
	dir := t.TempDir()
	ws, outside := filepath.Join(dir, "ws"), filepath.Join(dir, "outside")
	for _, d := range []string{ws, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	pol := func(extra string) string {
		return `{"write":["` + ws + `"],"scope":true,"abi":` + extra + `}`
	}
	for _, c := range []struct {
		name, policy, target string
		code                 int
		out                  string
	}{
		{"inside", pol("6"), filepath.Join(ws, "a"), 0, ""},
		{"outside", pol("6"), filepath.Join(outside, "a"), 1, "permission denied"},
		{"built for ABI 1", pol("1"), filepath.Join(outside, "b"), 126, "architect: error: sandbox: the rules could not be applied, so "},
		{"a field unknown", pol(`6,"hide":["` + outside + `"]`), filepath.Join(outside, "c"), 2, `architect: error: sandbox: bad policy: unknown field "hide"`},
		{"not JSON", "write", filepath.Join(outside, "d"), 2, "architect: error: sandbox: bad policy: want an object"},
	} {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			code, out := runHelper(t, c.policy, c.target)
			is.Equal(code, c.code)                // out: see below
			is.True(strings.Contains(out, c.out)) // what it said
			if code != 0 {
				_, err := os.Stat(c.target)
				is.True(os.IsNotExist(err)) // nothing written: the program was confined, or never ran
			}
			if t.Failed() {
				t.Logf("output: %s", out)
			}
		})
	}
}

// TestMainExecFails: a program that cannot be run is 127, said.
func TestMainExecFails(t *testing.T) {
	if KernelABI() < 3 {
		t.Skip("no Landlock")
	}
	is := is.New(t)
	exe, err := os.Executable()
	is.NoErr(err)
	cmd := exec.Command(exe, Command, `{"abi":3}`, "/nonexistent/program", "program")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	is.True(errors.As(err, &ee))
	is.Equal(ee.ExitCode(), 127)
	is.Equal(string(out), "architect: error: sandbox: /nonexistent/program: "+syscall.ENOENT.Error()+"\n")
}

// BenchmarkRuleset is what the helper does besides starting: the ruleset
// made for a workspace policy (the restriction itself is one system call,
// and cannot be undone in a benchmark).
func BenchmarkRuleset(b *testing.B) {
	if KernelABI() < 6 {
		b.Skip("no Landlock ABI 6")
	}
	p := Policy{Write: []string{b.TempDir(), b.TempDir(), b.TempDir()}, Scope: true, ABI: 6, Net: "ports", Ports: []uint16{443}}
	for b.Loop() {
		fd, err := ruleset(p)
		if err != nil {
			b.Fatal(err)
		}
		_ = syscall.Close(fd)
	}
}

// BenchmarkDecode is the policy read.
func BenchmarkDecode(b *testing.B) {
	in := `{"write":["/home/u/project","/tmp/architect-sandbox-123","/home/u/.cache/go-build","/home/u/go/pkg/mod","/home/u/.npm","/home/u/.claude"],"scope":true,"abi":7,"env":["TMPDIR=/tmp/architect-sandbox-123","TMP=/tmp/architect-sandbox-123","TEMP=/tmp/architect-sandbox-123"]}`
	for b.Loop() {
		if _, err := decode(in); err != nil {
			b.Fatal(err)
		}
	}
}
