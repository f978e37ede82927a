//go:build unix

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/architect-dev/architect/runlog/runlogtest"
	"github.com/matryer/is"
)

// SIGINT stops every running task of a batch gracefully (their agents are
// stopped, their state saved), does not start the queued ones, prints the
// summary and exits 130.
func TestBatchInterruptStopsAll(t *testing.T) {
	is := is.New(t)
	repo, agentDir := loopFixture(t, "touch started\nhang\n")
	file := filepath.Join(filepath.Dir(repo), "batch.yaml")
	is.NoErr(os.WriteFile(file, []byte("defaults:\n  agent_cmd: fake-agent\n  checks: [true]\n  task: wait forever\ntasks:\n  - id: a\n  - id: b\n  - id: c\n"), 0o644))
	p := startLoop(t, agentDir, "batch", file, "-C", repo, "--parallel", "2")
	p.waitFile(t, filepath.Join(repo, ".architect-worktrees", "a", "started"))
	p.waitFile(t, filepath.Join(repo, ".architect-worktrees", "b", "started"))
	is.True(len(leftovers(agentDir)) >= 2) // both agents are running

	is.NoErr(p.cmd.Process.Signal(syscall.SIGINT))
	is.Equal(p.exit(t, 7*time.Second), 130) // it stops within 7 s of SIGINT
	out := p.stderr.String()
	for _, want := range []string{
		`(?m)^a +cancelled +cancelled +1 +unknown `, // the interrupted iteration counts
		`(?m)^b +cancelled +cancelled +1 +unknown `,
		`(?m)^c +not_started +- +0 +- +- +architect/c$`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Fatalf("no match for %q in stderr:\n%s", want, out)
		}
	}
	is.Equal(leftovers(agentDir), []string(nil)) // nothing left behind
	_, err := os.Stat(filepath.Join(repo, ".architect-worktrees", "c"))
	is.True(os.IsNotExist(err)) // the queued task never started
	for _, id := range []string{"a", "b"} {
		res := runlogtest.Result(t, filepath.Join(repo, ".architect-worktrees", id))
		is.Equal(res.StopReason, "cancelled")
	}
}
