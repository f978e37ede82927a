package cli

import (
	"runtime"

	"github.com/architect-dev/architect/usererr"
)

// refusePlatform is the refusal of a loop or batch on a system where
// architect cannot keep its promises: on Windows it cannot end an agent's
// or a check's whole process tree (no process groups, and proc does not
// use Job Objects), nor confine them. Better no run than a run that
// silently keeps fewer promises.
func refusePlatform(goos string) error {
	if goos != "windows" {
		return nil
	}
	return &usererr.Error{
		Msg:  "architect does not run loops or batches on Windows: it cannot end an agent's or a check's process tree there, nor confine them",
		Hint: "run architect in WSL (Windows Subsystem for Linux: wsl --install, then install architect inside it); see docs/platforms.md",
	}
}

// platformRefusal is refusePlatform for the system architect runs on.
func platformRefusal() error { return refusePlatform(runtime.GOOS) }
