//go:build unix

package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/architect-dev/architect/runlog/runlogtest"
	"github.com/matryer/is"
)

// SIGINT during an iteration stops the agent (and what it spawned, even in
// a new session), prints the result and exits 130.
func TestInterruptMidIteration(t *testing.T) {
	is := is.New(t)
	repo, agentDir := loopFixture(t, "spawn $WORK/daemon.pid\ntouch $WORK/started\nhang\n")
	p := startLoop(t, agentDir, "loop", "task", "-C", repo, "--check", "true", "--agent-cmd", "fake-agent")
	p.waitFile(t, filepath.Join(filepath.Dir(agentDir), "started"))
	is.True(len(leftovers(agentDir)) > 0) // the agent and its daemon are running

	is.NoErr(p.cmd.Process.Signal(syscall.SIGINT))
	is.Equal(p.exit(t, 7*time.Second), 130)                              // it stops within 7 s of SIGINT
	is.True(strings.Contains(p.stderr.String(), "stopped on cancelled")) // the summary is printed
	is.Equal(leftovers(agentDir), []string(nil))                         // nothing left behind
	res := runlogtest.Result(t, repo)
	is.Equal(res.StopReason, "cancelled")
}

// --max-time stops a hanging agent at once, not at the next iteration.
func TestMaxTimeStopsHangingAgent(t *testing.T) {
	is := is.New(t)
	repo, agentDir := loopFixture(t, "touch $WORK/started\nhang\n")
	start := time.Now()
	p := startLoop(t, agentDir, "loop", "task", "-C", repo, "--check", "true", "--agent-cmd", "fake-agent", "--max-time", "2")
	code := p.exit(t, time.Minute)
	elapsed := time.Since(start)
	is.Equal(code, 1)
	if elapsed > 4*time.Second {
		t.Fatalf("stopped %s after start, more than 2 s past the 2 s limit; stderr:\n%s", elapsed, p.stderr)
	}
	res := runlogtest.Result(t, repo)
	is.Equal(res.StopReason, "timeout")
	is.Equal(leftovers(agentDir), []string(nil))
}
