//go:build unix

package main

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"

	"github.com/architect-dev/architect/sandbox"
	"github.com/architect-dev/architect/sandbox/mountns"
)

// sandboxUsable says whether --sandbox workspace can run here (the
// architect processes the scripts start serve the sandbox's helper).
func sandboxUsable() bool {
	sandbox.EnableHelper()
	return sandbox.Check(sandbox.ModeWorkspace, "") == nil
}

// readOnlyUsable says whether the system offers what makes protected
// files read-only to the agent: a user and mount namespace in which an
// unprivileged process may mount. It asks the kernel, not the code under
// test, so that a broken mount fails the scripts instead of skipping them.
func readOnlyUsable() bool {
	if runtime.GOOS != "linux" || !sandboxUsable() {
		return false
	}
	if b, _ := os.ReadFile("/proc/sys/kernel/apparmor_restrict_unprivileged_userns"); strings.TrimSpace(string(b)) == "1" {
		return false // namespaces without the right to mount
	}
	cmd := exec.Command("/bin/true")
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	mountns.SetAttr(cmd.SysProcAttr)
	return cmd.Run() == nil
}
