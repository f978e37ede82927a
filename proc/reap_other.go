//go:build unix && !linux

package proc

// EnableSubreaper does nothing on this system: only Linux has child
// subreapers.
func EnableSubreaper() error { return nil }

// Sweep does nothing on this system; see the Linux version.
func Sweep() int { return 0 }

// sweepRun does nothing: finding escaped descendants needs /proc.
func sweepRun(string) {}

// killMarked does nothing: finding marked processes needs /proc.
func killMarked(map[string]bool) {}
