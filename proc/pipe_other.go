//go:build !linux

package proc

import (
	"os"
	"time"
)

// growPipe: pipes keep their size on this system.
func growPipe(f *os.File, size int) bool { return false }

// pause sleeps d.
func pause(d time.Duration) { time.Sleep(d) }
