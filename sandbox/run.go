package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/architect-dev/architect/sandbox/helper"
	"github.com/architect-dev/architect/usererr"
)

// Settings is what a run tells the sandbox.
type Settings struct {
	Mode string // a Mode; "" is auto
	// Net is --sandbox-net for the agent and the checks; "" is all, except
	// that in strict mode the checks then get none.
	Net string
	// Write and Read are more paths the processes may write, or (strict)
	// read: --sandbox-write, --sandbox-read.
	Write, Read []string
	// Workspace is where the agent works: the workspace, or its worktree.
	Workspace string
	// Agents are the agents the run may start (its agent and fallbacks):
	// each one's home and cache folders are writable to the agent.
	Agents []string
	// Protect says that files in the workspace are protected (--protect,
	// --judge protect): the sandbox finds out whether it can make them
	// read-only to the agent (AgentStart) and its line says.
	Protect bool
	// Home is the home folder ("": the user's); Getenv reads the
	// environment (nil: os.Getenv).
	Home   string
	Getenv func(string) string
}

// Sandbox is one run's confinement: the agent's and the checks' policies,
// the run's private temporary folder, and the host proxy when there is
// one. Its methods are safe for concurrent use.
type Sandbox struct {
	mode     string   // the mode applied: off, workspace or strict
	missing  []string // --sandbox-write/-read paths that do not exist: nothing granted there
	line     string   // what is confined, in one line
	tmp      string   // the private temporary folder ("" when off)
	agent    Policy
	check    Policy
	proxy    *Proxy
	readable []string // strict: what may be read, for Denials
	home     string

	// protect: files are protected; nsOK: they can be made read-only to
	// the agent (else nsWhy says why not).
	protect bool
	nsOK    bool
	nsWhy   string

	mu       sync.Mutex
	refused  []string        // hosts the proxy refused since the last Refused
	readOnly map[string]bool // the files made read-only to an agent, for Denials
	overSaid bool            // AgentStart's note on too many files was given
}

// The Landlock ABI each kind of rule needs, and the Linux that brought it.
const (
	abiFiles = helper.ABIFiles // truncate is handled from ABI 3: below it a file outside could be emptied
	abiNet   = 4
	abiScope = 6
)

var abiKernel = map[int]string{1: "5.13", 2: "5.19", 3: "6.2", 4: "6.7", 5: "6.10", 6: "6.12", 7: "6.15"}

// modeHint is how to run anyway.
const modeHint = "run with --sandbox auto (the best this system offers, said at the start) or --sandbox off (nothing confined)"

// served is set by a program that serves Command (EnableHelper).
var served atomic.Bool

// EnableHelper says that this program serves Command: architect's command
// line does, before anything else. A program that does not (a test binary
// of a package that runs the loop) would take the helper's command line
// for its own: New then confines nothing in auto mode, saying so, and
// refuses workspace and strict.
func EnableHelper() { served.Store(true) }

// Check refuses, as New would, a mode or network setting this system
// cannot enforce, without setting anything up.
func Check(mode, net string) error {
	_, _, _, _, err := settle(mode, net)
	return err
}

// settle reads the mode and network settings and decides what applies.
func settle(mode, netSetting string) (applied, lack string, net NetSpec, sys system, err error) {
	if mode == "" {
		mode = ModeAuto
	}
	if !slices.Contains(Modes(), mode) {
		return "", "", net, sys, &usererr.Error{Msg: fmt.Sprintf("--sandbox: %q is not a sandbox mode", mode), Hint: "give one of " + strings.Join(Modes(), ", ")}
	}
	if net, err = ParseNet(netSetting); err != nil {
		return "", "", net, sys, &usererr.Error{Msg: "--sandbox-net: " + err.Error(), Hint: "give all, none, a list of ports like 443,8080, or hosts:api.anthropic.com,github.com"}
	}
	if mode == ModeOff {
		return ModeOff, "", net, sys, nil
	}
	sys = probe()
	if !served.Load() {
		sys = system{why: "this program cannot start the sandbox's helper (it is not architect)"}
	}
	applied, lack, err = decide(mode, net, sys)
	return applied, lack, net, sys, err
}

// offLine says that nothing is confined, and why when it was not asked.
func offLine(why string) string {
	if why != "" {
		why += "; "
	}
	return "sandbox: off: " + why + "the agent, the checks and the hooks can write, read and connect wherever you can"
}

// named is a path the user named with flag; one that does not exist is
// kept in Missing (the kernel grants only on what exists).
func (sb *Sandbox) named(flag, path string) string {
	if _, err := os.Stat(path); err != nil {
		sb.missing = append(sb.missing, flag+" "+path)
	}
	return path
}

// Missing lists the paths given with --sandbox-write or --sandbox-read
// that do not exist, each after its flag: nothing is granted there.
func (sb *Sandbox) Missing() []string {
	if sb == nil {
		return nil
	}
	return sb.missing
}

// New sets up the run's sandbox. workspace and strict refuse, with a
// *usererr.Error, what the system cannot enforce; auto takes what there
// is and says so in Line; off confines nothing and says that too.
func New(s Settings) (*Sandbox, error) {
	if s.Getenv == nil {
		s.Getenv = os.Getenv
	}
	if s.Home == "" {
		s.Home, _ = os.UserHomeDir()
	}
	applied, lack, net, sys, err := settle(s.Mode, s.Net)
	if err != nil {
		return nil, err
	}
	if applied == ModeOff {
		return &Sandbox{mode: ModeOff, line: offLine(lack)}, nil
	}
	tmp, err := os.MkdirTemp("", "architect-sandbox-")
	if err != nil {
		return nil, fmt.Errorf("sandbox: the private temporary folder: %w", err)
	}
	sb := &Sandbox{mode: applied, tmp: tmp, home: s.Home, readOnly: map[string]bool{}}
	sb.build(s, net, sys)
	if s.Protect {
		sb.protect = true
		if sys.kind == "landlock" {
			sb.nsOK, sb.nsWhy = probeMounts()
		} else {
			sb.nsWhy = "read-only mounts need Linux"
		}
	}
	if net.Kind == NetHosts {
		if sb.proxy, err = StartProxy(net.Hosts, sb.refuse); err != nil {
			sb.Close()
			return nil, fmt.Errorf("sandbox: the host allow-list proxy: %w", err)
		}
		sb.pointAtProxy()
	}
	sb.line = sb.describe(net, sys, lack)
	return sb, nil
}

// decide is the mode applied given what the system has: workspace and
// strict refuse what cannot be enforced; auto takes less, saying what
// (lack).
func decide(mode string, net NetSpec, sys system) (applied, lack string, err error) {
	need := abiFiles
	if net.Kind != NetAll {
		need = max(need, abiNet)
	}
	if sys.kind == "landlock" {
		need = max(need, abiScope)
	}
	switch {
	case sys.kind == "sandbox-exec" && net.Kind != NetAll:
		return "", "", &usererr.Error{Msg: "--sandbox-net " + net.String() + " is not supported on this system (sandbox-exec confines files only)", Hint: "leave --sandbox-net unset (all) on macOS, or " + modeHint}
	case sys.kind == "sandbox-exec" && mode == ModeAuto:
		// The generated profile has never run on a Mac: applied by default it
		// could break every macOS run (an agent's login, its caches) in ways no
		// test here can see. auto says so; workspace and strict apply it.
		return ModeOff, "the sandbox-exec profile is not yet verified on macOS (--sandbox workspace applies it)", nil
	case sys.kind == "sandbox-exec":
		return pick(mode), "", nil
	case sys.kind == "" && mode == ModeAuto:
		return ModeOff, sys.why, nil
	case sys.kind == "":
		return "", "", &usererr.Error{Msg: "--sandbox " + mode + " is not supported on this system: " + sys.why, Hint: modeHint}
	case sys.abi >= need:
		return pick(mode), "", nil
	case mode != ModeAuto:
		return "", "", &usererr.Error{
			Msg:  fmt.Sprintf("--sandbox %s needs Landlock ABI %d (Linux %s or later); this kernel has ABI %d", mode, need, abiKernel[need], sys.abi),
			Hint: "upgrade the kernel, or " + modeHint,
		}
	case sys.abi < abiFiles:
		return ModeOff, fmt.Sprintf("this kernel's Landlock (ABI %d) cannot confine files safely (ABI %d, Linux %s, is needed)", sys.abi, abiFiles, abiKernel[abiFiles]), nil
	case net.Kind != NetAll && sys.abi < abiNet:
		return "", "", &usererr.Error{
			Msg:  fmt.Sprintf("--sandbox-net %s needs Landlock ABI %d (Linux %s or later); this kernel has ABI %d", net, abiNet, abiKernel[abiNet], sys.abi),
			Hint: "leave --sandbox-net unset, or upgrade the kernel",
		}
	}
	return ModeWorkspace, fmt.Sprintf("signals and abstract sockets not confined (Landlock ABI %d, Linux %s, is needed)", abiScope, abiKernel[abiScope]), nil
}

func pick(mode string) string {
	if mode == ModeAuto {
		return ModeWorkspace
	}
	return mode
}

// build fills the two policies.
func (sb *Sandbox) build(s Settings, net NetSpec, sys system) {
	ws := abs(s.Workspace, s.Home)
	common := []string{ws, sb.tmp}
	common = append(common, cacheDirs(s.Home, s.Getenv)...)
	for _, p := range s.Write {
		common = append(common, sb.named("--sandbox-write", abs(p, s.Home)))
	}
	common = append(common, worktreeGit(ws)...)
	var homes []string
	for _, a := range s.Agents {
		homes = append(homes, agentHomes(a, s.Home, s.Getenv)...)
	}
	env := []string{"TMPDIR=" + sb.tmp, "TMP=" + sb.tmp, "TEMP=" + sb.tmp}
	base := Policy{Strict: sb.mode == ModeStrict, ABI: sys.abi, Scope: sys.abi >= abiScope, Env: env}
	if sb.mode == ModeStrict {
		read := systemReads(s.Home, s.Getenv)
		for _, p := range s.Read {
			read = append(read, sb.named("--sandbox-read", abs(p, s.Home)))
		}
		if exe, err := os.Executable(); err == nil {
			read = append(read, exe)
		}
		base.Read = dedupe(read)
		sb.readable = base.Read
	}
	sb.agent, sb.check = base, base
	sb.agent.Write = dedupe(append(slices.Clone(common), homes...))
	sb.check.Write = dedupe(slices.Clone(common))
	sb.agent.Net, sb.agent.Ports = netRules(net)
	sb.check.Net, sb.check.Ports = sb.agent.Net, sb.agent.Ports
	if sb.mode == ModeStrict && strings.TrimSpace(s.Net) == "" {
		sb.check.Net, sb.check.Ports = NetNone, nil
	}
	sb.agent.Env = slices.Clone(env)
	sb.check.Env = slices.Clone(env)
}

// netRules is the Landlock side of a NetSpec: hosts become the proxy's
// port, filled in when the proxy has started.
func netRules(n NetSpec) (string, []uint16) {
	switch n.Kind {
	case NetNone:
		return NetNone, nil
	case NetPorts:
		return NetPorts, slices.Clone(n.Ports)
	case NetHosts:
		return NetPorts, nil
	}
	return NetAll, nil
}

// pointAtProxy lets the agent and the checks connect only to the proxy,
// and tells their HTTP clients to use it.
func (sb *Sandbox) pointAtProxy() {
	url := "http://" + sb.proxy.Addr()
	vars := []string{"HTTPS_PROXY=" + url, "HTTP_PROXY=" + url, "https_proxy=" + url, "http_proxy=" + url,
		"ALL_PROXY=" + url, "all_proxy=" + url, "NO_PROXY=", "no_proxy=",
		// Node's fetch honours the variables only when asked.
		"NODE_USE_ENV_PROXY=1"}
	for _, p := range []*Policy{&sb.agent, &sb.check} {
		if p.Net == NetPorts {
			p.Ports = []uint16{sb.proxy.Port()}
		}
		p.Env = append(p.Env, vars...)
	}
}

// describe is the one line that says what is confined.
func (sb *Sandbox) describe(net NetSpec, sys system, lack string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "sandbox: %s (%s): the agent, the checks and the hooks write only to %s, a private temporary folder and the caches",
		sb.mode, sys.name(), shortPath(sb.agent.Write[0]))
	if sb.mode == ModeStrict {
		b.WriteString(", and read only the workspace, the system's folders and what is declared")
	}
	fmt.Fprintf(&b, "; network: %s", net)
	if sb.check.Net != sb.agent.Net {
		b.WriteString(" (checks: none)")
	}
	if sys.abi >= abiScope {
		b.WriteString("; no signal or abstract socket outside the run")
	}
	if sb.protect {
		b.WriteString("; " + sb.readOnlyLine())
	}
	if lack != "" {
		b.WriteString("; " + lack)
	}
	return b.String()
}

func shortPath(p string) string {
	if wd, err := os.Getwd(); err == nil {
		if r, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(r, "..") {
			if r == "." {
				return "the workspace"
			}
			return r
		}
	}
	return p
}

// Mode is the mode applied: off, workspace or strict.
func (sb *Sandbox) Mode() string { return sb.mode }

// Line says in one line what is confined (or that nothing is).
func (sb *Sandbox) Line() string { return sb.line }

// AgentWrap is the agent's proc.Options.Wrap; nil when off.
func (sb *Sandbox) AgentWrap() Wrapper {
	if sb == nil || sb.mode == ModeOff {
		return nil
	}
	return sb.agent.wrap
}

// CheckWrap is the checks' (and hooks') proc.Options.Wrap; nil when off.
func (sb *Sandbox) CheckWrap() Wrapper {
	if sb == nil || sb.mode == ModeOff {
		return nil
	}
	return sb.check.wrap
}

// CheckWrapIn is CheckWrap for checks that run in dir, outside the
// workspace (the last look's clean checkout): dir is writable to them too.
func (sb *Sandbox) CheckWrapIn(dir string) Wrapper {
	if sb == nil || sb.mode == ModeOff {
		return nil
	}
	p := sb.check
	p.Write = dedupe(append(slices.Clone(p.Write), abs(dir, sb.home)))
	return p.wrap
}

// refuse records a host the proxy refused.
func (sb *Sandbox) refuse(hostport string) {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	if !slices.Contains(sb.refused, hostport) && len(sb.refused) < maxDenials {
		sb.refused = append(sb.refused, hostport)
	}
}

// Refused returns the hosts the proxy refused since the last call, as
// "sandbox refused connect to HOST:PORT (not in the allow-list)".
func (sb *Sandbox) Refused() []string {
	if sb == nil {
		return nil
	}
	sb.mu.Lock()
	defer sb.mu.Unlock()
	var out []string
	for _, h := range sb.refused {
		out = append(out, "sandbox refused connect to "+h+" (not in --sandbox-net hosts)")
	}
	sb.refused = nil
	return out
}

// TempDir is the run's private temporary folder, which the confined
// agent and checks may write; "" when nothing is confined.
func (sb *Sandbox) TempDir() string {
	if sb == nil {
		return ""
	}
	return sb.tmp
}

// Close stops the proxy and removes the private temporary folder.
func (sb *Sandbox) Close() {
	if sb == nil {
		return
	}
	if sb.proxy != nil {
		sb.proxy.Close()
	}
	if sb.tmp != "" {
		_ = os.RemoveAll(sb.tmp)
	}
}

func dedupe(paths []string) []string {
	var out []string
	for _, p := range paths {
		if p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}
