//go:build linux

package sandbox

import (
	"fmt"
	"os"

	"github.com/architect-dev/architect/sandbox/helper"
)

// system is what the machine offers: kind "landlock" with its ABI, or ""
// with why not.
type system struct {
	kind string
	abi  int
	why  string
}

func (s system) name() string { return fmt.Sprintf("Landlock ABI %d", s.abi) }

// probe asks the kernel which Landlock ABI it has, as the helper asks it
// (ABI 6 counts only with its signal scoping fixed: a kernel without the
// fix would have every confined start refused).
func probe() system {
	v := helper.KernelABI()
	if v < 1 {
		return system{why: "this kernel has no Landlock (Linux 5.13 or later with Landlock enabled is needed)"}
	}
	return system{kind: "landlock", abi: v}
}

func platformWrap(p Policy, path string, args []string, arg0 string) (string, []string, string, error) {
	exe, err := self()
	if err != nil {
		return "", nil, "", err
	}
	hargs, err := helperArgs(p, path, args, arg0)
	return exe, hargs, os.Args[0], err
}
