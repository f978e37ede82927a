//go:build !linux

package cli

// termSize reports no terminal: plain lines everywhere but Linux.
func termSize(int) (int, bool) { return 0, false }
