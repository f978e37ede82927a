package testutil

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// A running process is alive; once it has ended (a zombie until it is
// reaped, then gone) it is not.
func TestAlive(t *testing.T) {
	if !Alive(os.Getpid()) {
		t.Fatal("this process is not alive")
	}
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	if !Alive(pid) {
		t.Fatal("a sleeping child is not alive")
	}
	_ = cmd.Process.Kill()
	if !Until(5*time.Second, func() bool { return !Alive(pid) }) {
		t.Fatal("a killed child, not yet reaped (a zombie), is still alive")
	}
	_ = cmd.Wait()
	if Alive(pid) {
		t.Fatal("a reaped child is alive")
	}
}
