// Package helper is the sandbox's helper: the process that applies a
// confined program's rules to itself and then becomes that program
// (`architect __sandbox POLICY PATH ARG0 [ARG...]`). Package sandbox
// builds the Policy and starts the helper; package helper/serve runs Main
// from its init. Go initialises a package once all it imports is, and
// among those ready, in the order of their import paths: this package
// imports only os and packages initialised before it (syscall, strconv,
// errors, unicode/utf8), so that it is ready, and run, right after os,
// before the rest of architect and what it imports (reflect, fmt,
// markdown, YAML, the terminal view) are initialised, which each confined
// process would otherwise pay for at every start.
package helper

import (
	"errors"
	"os"

	"github.com/architect-dev/architect/sandbox/mountns"
)

// Command is the hidden command with which architect starts itself as the
// helper: `architect __sandbox POLICY PATH ARG0 [ARG...]`.
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
	// Net is NetAll or "" (the network is not confined); anything else
	// confines TCP connections to Ports (none when it is empty).
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

// NetAll is Policy.Net when the network is not confined ("" too).
const NetAll = "all"

// ABIFiles is the least Landlock ABI the rules are built for: truncate is
// handled from ABI 3, and below it a file outside could be emptied.
const ABIFiles = 3

// Devices are the device files any program writes, a shell tool's
// pseudo-terminal, and /dev/shm, where POSIX shared memory and semaphores
// live (Python's multiprocessing, Chromium): without it test suites that
// use them fail. Every policy lets them be written.
var Devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx", "/dev/pts", "/dev/shm"}

// Main is the helper: args are POLICY PATH ARG0 [ARG...]. It applies the
// policy to itself, then execs PATH; it returns only when it could not,
// with 126 (the rules could not be applied: nothing ran unconfined) or
// 127 (PATH could not be run).
func Main(args []string) int {
	if len(args) < 3 {
		sayError("the sandbox helper takes POLICY PATH ARG0 [ARG...]")
		return 2
	}
	p, err := decode(args[0])
	if err != nil {
		sayError("sandbox: bad policy: " + err.Error())
		return 2
	}
	env := mergeEnv(os.Environ(), p.Env)
	// The protected files made read-only in the mount namespace the
	// helper was started in, before enforce: Landlock forbids mounting
	// once it binds.
	if err := mountns.ReadOnly(p.ReadOnly); err != nil {
		var some *mountns.Unmounted
		if !errors.As(err, &some) {
			sayError("sandbox: the protected files could not be made read-only, so " + args[1] + " was not run: " + err.Error())
			return 126
		}
		// The program runs confined all the same; the restore guards
		// what stayed writable.
		say("warning", "sandbox: "+err.Error()+" (guarded by the restore only)")
	}
	if p.Probe {
		if err := mountns.Check(p.ReadOnly); err != nil {
			sayError("sandbox: " + err.Error())
			return 1
		}
		return 0
	}
	if err := enforce(p); err != nil {
		sayError("sandbox: the rules could not be applied, so " + args[1] + " was not run: " + err.Error())
		return 126
	}
	err = execve(p, args[1], append([]string{args[2]}, args[3:]...), env)
	sayError("sandbox: " + args[1] + ": " + err.Error())
	return 127
}

// sayError writes msg as usererr.Say writes an error (usererr imports fmt:
// see the package comment).
func sayError(msg string) { say("error", msg) }

// say writes msg as usererr.Say writes a line of level.
func say(level, msg string) {
	_, _ = os.Stderr.WriteString(line(level, msg))
}

func errorLine(msg string) string { return line("error", msg) }

func line(level, msg string) string { return "architect: " + level + ": " + msg + "\n" }

// mergeEnv is env with each KEY=VALUE of set replacing its key.
func mergeEnv(env, set []string) []string {
	if len(set) == 0 {
		return env
	}
	out := make([]string, 0, len(env)+len(set))
	keys := map[string]bool{}
	for _, kv := range set {
		keys[key(kv)] = true
	}
	for _, kv := range env {
		if !keys[key(kv)] {
			out = append(out, kv)
		}
	}
	return append(out, set...)
}

// key is the KEY of KEY=VALUE.
func key(kv string) string {
	for i := 0; i < len(kv); i++ {
		if kv[i] == '=' {
			return kv[:i]
		}
	}
	return kv
}
