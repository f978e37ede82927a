//go:build !linux && !darwin

package helper

import "errors"

var errUnsupported = errors.New("the sandbox is not supported on this system")

func enforce(Policy) error { return errUnsupported }

func execve(Policy, string, []string, []string) error { return errUnsupported }
