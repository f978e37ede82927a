package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
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

// readOnlyUsable says whether the sandbox can make protected files
// read-only to the agent here: the helper, started as the scripts'
// architect and in namespaces of its own, mounts a file read-only and
// finds it so (the probe every run with protected files makes).
func readOnlyUsable() bool {
	if !sandboxUsable() {
		return false
	}
	exe, err := os.Executable()
	if err != nil {
		return false
	}
	dir, err := os.MkdirTemp("", "architect-readonly-")
	if err != nil {
		return false
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "f")
	if os.WriteFile(file, nil, 0o600) != nil {
		return false
	}
	spec, _ := json.Marshal(map[string]any{"readonly": []string{file}, "probe": true})
	cmd := exec.Command(exe, sandbox.Command, string(spec), "/", "probe")
	cmd.Args[0] = "architect"
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	mountns.SetAttr(cmd.SysProcAttr)
	return cmd.Run() == nil
}
