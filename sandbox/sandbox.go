// Package sandbox confines the agent and the checks a run starts with the
// kernel's own means: Landlock on Linux (file access, TCP ports, signals
// and abstract Unix sockets), sandbox-exec on macOS (file access). It is
// applied before exec: the process proc starts is architect itself, run
// as the hidden command Command, which applies the rules to itself and
// then replaces itself with the agent or the check, so that the rules
// bind it and everything it starts. This re-exec helper is the one place
// outside proc that starts a program, and it only replaces itself.
//
// A run builds one Sandbox (New) from Settings; its AgentWrap and
// CheckWrap go into proc.Options.Wrap. Denials reads the permission errors
// a confined process printed and names the ones the sandbox caused; the
// host allow-list (--sandbox-net hosts:...) is a CONNECT proxy on loopback
// (proxy.go) whose refusals the run records.
package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/architect-dev/architect/sandbox/mountns"
	"github.com/architect-dev/architect/usererr"
)

// The modes (--sandbox, sandbox:).
const (
	ModeOff       = "off"       // nothing is confined
	ModeWorkspace = "workspace" // writes only where declared; reads anywhere
	ModeStrict    = "strict"    // reads and writes only where declared
	ModeAuto      = "auto"      // workspace, as far as the kernel allows, said out loud
)

// Modes lists the modes, for the flag's completion and the schema.
func Modes() []string { return []string{ModeAuto, ModeWorkspace, ModeStrict, ModeOff} }

// Command is the hidden command with which architect starts itself as the
// sandbox's helper: `architect __sandbox POLICY PATH ARG0 [ARG...]`.
const Command = "__sandbox"

// Policy is what the helper applies before it execs PATH: the whole of a
// confined process's rules, passed as JSON in its first argument (it holds
// no secret: paths, ports and two variables).
type Policy struct {
	// Write lists the files and folders the process may change (and read).
	Write []string `json:"write,omitempty"`
	// Read, when Strict, lists all else it may read and execute;
	// otherwise everything is readable.
	Read   []string `json:"read,omitempty"`
	Strict bool     `json:"strict,omitempty"`
	// Net is NetAll (nothing handled), or the TCP ports it may connect
	// to (none for NetNone).
	Net   string   `json:"net,omitempty"`
	Ports []uint16 `json:"ports,omitempty"`
	// Scope: no signal to, nor abstract Unix socket of, a process outside
	// the confined process's own descendants (Landlock ABI 6).
	Scope bool `json:"scope,omitempty"`
	// ABI is the Landlock ABI the rules are built for (what the kernel
	// had when the run began): the helper builds the same rules whatever
	// happens, or refuses to run the program.
	ABI int `json:"abi"`
	// Env is set in the program's environment (TMPDIR, the proxy).
	Env []string `json:"env,omitempty"`
	// ReadOnly are files made read-only to the program by the kernel,
	// within the workspace it may otherwise write: the helper, started in
	// namespaces of its own (mountns.SetAttr), mounts them read-only
	// before it applies the rest (mountns.ReadOnly).
	ReadOnly []string `json:"readonly,omitempty"`
	// Probe: the helper mounts ReadOnly, checks that the first is
	// read-only, and exits (0 when it is) instead of running PATH.
	Probe bool `json:"probe,omitempty"`
}

// Wrapper is the shape of proc.Options.Wrap: the program to start instead
// of name with args and argv[0].
type Wrapper = func(name string, args []string, arg0 string) (string, []string, string, error)

// wrap starts the helper with p, which then execs name. name is looked up
// on PATH here, as exec would, so that a missing program fails to start
// as it does unconfined (the adapters' install hints depend on it).
func (p Policy) wrap(name string, args []string, arg0 string) (string, []string, string, error) {
	path := name
	if !strings.Contains(name, "/") {
		lp, err := exec.LookPath(name)
		if err != nil {
			return "", nil, "", err
		}
		path = lp
	}
	if arg0 == "" {
		arg0 = name
	}
	return platformWrap(p, path, args, arg0)
}

// helperArgs is the helper's command line after its own name.
func helperArgs(p Policy, path string, args []string, arg0 string) ([]string, error) {
	spec, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	return append([]string{Command, string(spec), path, arg0}, args...), nil
}

// self is the path that starts this program again (see proc's self).
func self() (string, error) {
	if _, err := os.Stat("/proc/self/exe"); err == nil {
		return "/proc/self/exe", nil
	}
	return os.Executable()
}

// Main is the helper: args are POLICY PATH ARG0 [ARG...]. It applies the
// policy to itself, then execs PATH; it returns only when it could not,
// with 126 (the rules could not be applied: nothing ran unconfined) or
// 127 (PATH could not be run).
func Main(args []string) int {
	if len(args) < 3 {
		fmt.Fprintln(os.Stderr, "architect: error: the sandbox helper takes POLICY PATH ARG0 [ARG...]")
		return 2
	}
	var p Policy
	if err := json.Unmarshal([]byte(args[0]), &p); err != nil {
		usererr.Say(os.Stderr, usererr.LevelError, "sandbox: bad policy: %v", err)
		return 2
	}
	env := mergeEnv(os.Environ(), p.Env)
	if err := mountns.ReadOnly(p.ReadOnly); err != nil {
		var some *mountns.Unmounted
		if !errors.As(err, &some) {
			usererr.Say(os.Stderr, usererr.LevelError, "sandbox: the protected files could not be made read-only, so %s was not run: %v", args[1], err)
			return 126
		}
		// The program runs confined all the same; the restore guards
		// what stayed writable.
		usererr.Say(os.Stderr, usererr.LevelWarning, "sandbox: %v (guarded by the restore only)", err)
	}
	if p.Probe {
		if err := mountns.Check(p.ReadOnly); err != nil {
			usererr.Say(os.Stderr, usererr.LevelError, "sandbox: %v", err)
			return 1
		}
		return 0
	}
	if err := enforce(p); err != nil {
		usererr.Say(os.Stderr, usererr.LevelError, "sandbox: the rules could not be applied, so %s was not run: %v", args[1], err)
		return 126
	}
	err := execve(p, args[1], append([]string{args[2]}, args[3:]...), env)
	usererr.Say(os.Stderr, usererr.LevelError, "sandbox: %s: %v", args[1], err)
	return 127
}

// mergeEnv is env with each KEY=VALUE of set replacing its key.
func mergeEnv(env, set []string) []string {
	if len(set) == 0 {
		return env
	}
	out := make([]string, 0, len(env)+len(set))
	keys := map[string]bool{}
	for _, kv := range set {
		k, _, _ := strings.Cut(kv, "=")
		keys[k] = true
	}
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if !keys[k] {
			out = append(out, kv)
		}
	}
	return append(out, set...)
}

// Net settings (--sandbox-net).
const (
	NetAll      = "all"
	NetNone     = "none"
	NetPorts    = "ports"
	NetHosts    = "hosts"
	hostsPrefix = "hosts:"
)

// NetSpec is --sandbox-net read: Kind is NetAll, NetNone, NetPorts or
// NetHosts, with the ports or the hosts.
type NetSpec struct {
	Kind  string
	Ports []uint16
	Hosts []string
}

// ParseNet reads --sandbox-net: all, none, a comma-separated list of TCP
// ports, or hosts:NAME[,NAME...] (a name may be *.example.com). "" is all.
func ParseNet(s string) (NetSpec, error) {
	s = strings.TrimSpace(s)
	switch s {
	case "", NetAll:
		return NetSpec{Kind: NetAll}, nil
	case NetNone:
		return NetSpec{Kind: NetNone}, nil
	}
	if rest, ok := strings.CutPrefix(s, hostsPrefix); ok {
		var hosts []string
		for _, h := range strings.Split(rest, ",") {
			h = strings.ToLower(strings.TrimSpace(h))
			if h == "" {
				continue
			}
			if strings.ContainsAny(h, "/ :@") {
				return NetSpec{}, fmt.Errorf("%q is not a host name (give names like api.anthropic.com or *.github.com, without a scheme or port)", h)
			}
			hosts = append(hosts, h)
		}
		if len(hosts) == 0 {
			return NetSpec{}, errors.New("hosts: names no host")
		}
		return NetSpec{Kind: NetHosts, Hosts: hosts}, nil
	}
	var ports []uint16
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.ParseUint(strings.TrimSpace(f), 10, 16)
		if err != nil || n == 0 {
			return NetSpec{}, fmt.Errorf("%q is not all, none, a list of TCP ports (443,8080) or hosts:NAME[,NAME]", s)
		}
		ports = append(ports, uint16(n))
	}
	slices.Sort(ports)
	return NetSpec{Kind: NetPorts, Ports: slices.Compact(ports)}, nil
}

// String is the spec as the user would write it.
func (n NetSpec) String() string {
	switch n.Kind {
	case NetPorts:
		s := make([]string, len(n.Ports))
		for i, p := range n.Ports {
			s[i] = strconv.Itoa(int(p))
		}
		return "ports " + strings.Join(s, ",")
	case NetHosts:
		return hostsPrefix + strings.Join(n.Hosts, ",")
	case "":
		return NetAll
	}
	return n.Kind
}

// abs makes path absolute and clean; ~ and ~/ are the home folder.
func abs(path, home string) string {
	switch {
	case path == "~":
		path = home
	case strings.HasPrefix(path, "~/"):
		path = filepath.Join(home, path[2:])
	}
	p, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	return p
}

// within says whether path is dir or beneath it.
func within(path, dir string) bool {
	if dir == "/" {
		return strings.HasPrefix(path, "/")
	}
	return path == dir || strings.HasPrefix(path, dir+string(filepath.Separator))
}
