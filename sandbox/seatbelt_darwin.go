//go:build darwin

package sandbox

import (
	"errors"
	"os"
	"syscall"
)

// system is what the machine offers: kind "sandbox-exec" (macOS's
// Seatbelt, files only), or "" with why not.
type system struct {
	kind string
	abi  int
	why  string
}

func (s system) name() string { return "sandbox-exec" }

const sandboxExec = "/usr/bin/sandbox-exec"

func probe() system {
	if _, err := os.Stat(sandboxExec); err != nil {
		return system{why: "sandbox-exec is not on this system"}
	}
	return system{kind: "sandbox-exec"}
}

// enforce has nothing to do here: sandbox-exec applies the profile as it
// execs the program (execve).
func enforce(Policy) error { return nil }

// execve runs the program under sandbox-exec with p's profile.
func execve(p Policy, path string, argv, env []string) error {
	args := append([]string{"sandbox-exec", "-p", profile(p), path}, argv[1:]...)
	return syscall.Exec(sandboxExec, args, env)
}

func platformWrap(p Policy, path string, args []string, arg0 string) (string, []string, string, error) {
	exe, err := self()
	if err != nil {
		return "", nil, "", err
	}
	if p.Net != NetAll && p.Net != "" {
		return "", nil, "", errors.New("sandbox: network rules are not supported on this system")
	}
	hargs, err := helperArgs(p, path, args, arg0)
	return exe, hargs, os.Args[0], err
}
