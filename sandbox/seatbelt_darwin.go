//go:build darwin

package sandbox

import (
	"errors"
	"os"

	"github.com/architect-dev/architect/sandbox/helper"
)

// system is what the machine offers: kind "sandbox-exec" (macOS's
// Seatbelt, files only), or "" with why not.
type system struct {
	kind string
	abi  int
	why  string
}

func (s system) name() string { return "sandbox-exec" }

func probe() system {
	if _, err := os.Stat(helper.SandboxExec); err != nil {
		return system{why: "sandbox-exec is not on this system"}
	}
	return system{kind: "sandbox-exec"}
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
