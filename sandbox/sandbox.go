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

	"github.com/architect-dev/architect/sandbox/helper"
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
const Command = helper.Command

// Policy is what the helper applies before it execs the program: the
// whole of a confined process's rules (see helper.Policy, which the
// helper reads).
type Policy helper.Policy

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
// 127 (PATH could not be run). architect serves it from the init of
// package helper/serve, before this package is initialised.
func Main(args []string) int { return helper.Main(args) }

// Net settings (--sandbox-net).
const (
	NetAll      = helper.NetAll
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
