package loop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/proc"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/usererr"
	"github.com/matryer/is"
)

// killedRun leaves in cfg's workspace the state of a run whose architect
// was killed (active, with its owner record) while a process of it runs
// on, and returns that process's exit.
func killedRun(t *testing.T, dir string, active bool) <-chan error {
	t.Helper()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	marker := "killed" + strings.ReplaceAll(t.Name(), "/", "")
	left := exec.Command("sleep", "1000")
	left.Env = append(os.Environ(), proc.RunIDEnv+"="+marker+".1")
	if err := left.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = left.Process.Kill() })
	exited := make(chan error, 1)
	go func() { exited <- left.Wait() }()
	owner, _ := json.Marshal(proc.Owner{PID: dead.Process.Pid, Start: 1, Marker: marker})
	st := runlog.State{Active: active, Status: runlog.StatusRunning, Processes: owner}
	data, _ := json.Marshal(st)
	if err := os.MkdirAll(filepath.Join(dir, runlog.StateDir), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, runlog.StateDir, runlog.StateFile), data, 0o600); err != nil {
		t.Fatal(err)
	}
	return exited
}

// A new run in a workspace whose last run was killed ends what that run
// left running before it starts anything, and says so; it does so even
// when it then refuses to start (the killed run is to be resumed, or set
// aside with --new).
func TestRunEndsKilledRunsLeftovers(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	exited := killedRun(t, cfg.Dir, true)
	var log bytes.Buffer
	_, err := Run(context.Background(), cfg, Deps{Agent: &scripted{outcomes: []agent.Outcome{done}}, Log: &log})
	var ue *usererr.Error
	is.True(errors.As(err, &ue)) // refused: the killed run is resumed, or set aside with --new
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		t.Fatal("the killed run's process still runs")
	}
	is.True(strings.Contains(log.String(), "was killed and left 1 process running: ended them (")) // said so
	cfg.New = true
	res, _, _ := run(t, cfg, &scripted{outcomes: []agent.Outcome{done}})
	is.Equal(res.StopReason, runlog.StopSuccess)
	st, err := runlog.ReadState(cfg.Dir)
	is.NoErr(err)
	var owner proc.Owner
	is.NoErr(json.Unmarshal(st.Processes, &owner))
	is.Equal(owner.Marker, proc.Self().Marker) // this run is recorded in its place
}

// A run that ended cleanly left nothing: nobody is looked for.
func TestRunAfterCleanRunLooksForNothing(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	exited := killedRun(t, cfg.Dir, false)
	_, log, _ := run(t, cfg, &scripted{outcomes: []agent.Outcome{done}})
	select {
	case <-exited:
		t.Fatal("a process was ended though the last run had ended cleanly")
	default:
	}
	is.True(!strings.Contains(log, "was killed"))
}
