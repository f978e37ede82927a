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
	"os"
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
	// Steps that change what the program sees go here, before enforce
	// (Landlock forbids mounting once it binds): protect:'s paths made
	// read-only in a mount namespace of the program's own. A step that
	// fails refuses with 126, as enforce does.
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
func sayError(msg string) {
	_, _ = os.Stderr.WriteString(errorLine(msg))
}

func errorLine(msg string) string { return "architect: error: " + msg + "\n" }

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
