//go:build windows

package cli

import "errors"

// terminate: no loop runs on Windows (see refusePlatform), so there is
// none to stop.
func terminate(int) error { return errors.New("architect runs no loops on Windows") }
