//go:build darwin

package helper

import "syscall"

// SandboxExec is macOS's sandbox-exec, which applies a Seatbelt profile
// as it execs a program.
const SandboxExec = "/usr/bin/sandbox-exec"

// enforce has nothing to do here: sandbox-exec applies the profile as it
// execs the program (execve).
func enforce(Policy) error { return nil }

// execve runs the program under sandbox-exec with p's profile.
func execve(p Policy, path string, argv, env []string) error {
	args := append([]string{"sandbox-exec", "-p", profile(p), path}, argv[1:]...)
	return syscall.Exec(SandboxExec, args, env)
}
