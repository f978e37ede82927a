//go:build !linux && !darwin

package sandbox

import "errors"

// system: no sandbox on this system.
type system struct {
	kind string
	abi  int
	why  string
}

func (s system) name() string { return "none" }

func probe() system { return system{why: "not supported on this system"} }

var errUnsupported = errors.New("the sandbox is not supported on this system")

func platformWrap(Policy, string, []string, string) (string, []string, string, error) {
	return "", nil, "", errUnsupported
}
