//go:build unix

package loop

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/usererr"
)

// The tests here guard promises whose breaking no other test of the
// package saw (issue 46); internal/mutants breaks each of them in CI.

// --max-time spans every session of a run: each resume adds its own time
// to what the earlier ones used, so that after two resumes nothing is
// left of 8 s that three sessions of 4 s each would use.
func TestResumeMaxTimeAddsUpOverSessions(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	cfg.Checks = []string{"false"}
	cfg.MaxIterations = 1
	cfg.MaxTime = 8 * time.Second
	clock := &fakeClock{now: time.Now()}
	fourSeconds := &fnAgent{fn: func(context.Context, agent.Request, int) agent.Outcome {
		_ = clock.Sleep(context.Background(), 4*time.Second)
		return agent.Outcome{FinalMessage: "working"}
	}}
	deps := Deps{Agent: fourSeconds, Now: clock.Now, Sleep: clock.Sleep}
	res, err := Run(context.Background(), cfg, deps)
	is.NoErr(err)
	is.Equal(res.StopReason, runlog.StopMaxIterations)
	res, err = Resume(context.Background(), cfg.Dir, func(c *config.Config) { c.MaxIterations = 2 }, deps)
	is.NoErr(err)
	is.Equal(res.StopReason, runlog.StopMaxIterations)
	st, err := runlog.ReadState(cfg.Dir)
	is.NoErr(err)
	is.Equal(st.Elapsed, 8.0) // both sessions
	is.Equal(res.TotalDuration, 8.0)

	// The third session has nothing left: no agent runs.
	third := &scripted{outcomes: []agent.Outcome{{FinalMessage: "x"}}}
	res, err = Resume(context.Background(), cfg.Dir, func(c *config.Config) { c.MaxIterations = 5 }, Deps{Agent: third})
	is.NoErr(err)
	is.Equal(res.StopReason, runlog.StopTimeout)
	is.Equal(third.runs, 0)
}

// A run killed after recording its successful last iteration, before
// saving that it succeeded, is that success when resumed: no agent runs
// (and costs) again.
func TestResumeAfterRecordedSuccess(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	res, _, _ := run(t, cfg, &scripted{outcomes: []agent.Outcome{done}})
	is.Equal(res.StopReason, runlog.StopSuccess)
	// What a kill between the record and the final save leaves: the state
	// of a running run, the successful record on disk.
	st, err := runlog.ReadState(cfg.Dir)
	is.NoErr(err)
	st.Status, st.Active, st.StopReason, st.StopDetail = runlog.StatusRunning, true, "", ""
	is.NoErr(runlog.WriteJSON(filepath.Join(cfg.Dir, runlog.StateDir, runlog.StateFile), st))
	is.NoErr(os.Remove(filepath.Join(cfg.Dir, runlog.StateDir, runlog.ResultFile)))

	again := &scripted{outcomes: []agent.Outcome{done}}
	res, err = Resume(context.Background(), cfg.Dir, func(c *config.Config) { c.MaxIterations = 5 }, Deps{Agent: again})
	is.NoErr(err)
	is.Equal(res.StopReason, runlog.StopSuccess)
	is.True(res.Success)
	is.Equal(again.runs, 0) // nothing spent again
	is.Equal(res.TotalIterations, 1)

	// Now saved as the success it is: there is nothing to resume.
	_, err = Resume(context.Background(), cfg.Dir, nil, Deps{Agent: again})
	var ue *usererr.Error
	is.True(errorsAs(err, &ue))
	is.True(strings.Contains(ue.Msg, "already succeeded; there is nothing to resume"))
	is.Equal(again.runs, 0)
}

// An iteration is idle when it leaves both the tree and what the checks
// say as they were: one that changes either is not, and ends the streak.
func TestIdleRunNeedsTheSameTreeAndChecks(t *testing.T) {
	rec := func(tree, checks string) record {
		return record{Record: runlog.Record{Tree: tree, ChecksID: checks}}
	}
	for _, tc := range []struct {
		name string
		recs []record
		want int
	}{
		{"nothing changed", []record{rec("t0", "c"), rec("t0", "c"), rec("t0", "c")}, 3},
		{"the tree changed", []record{rec("t0", "c"), rec("t1", "c"), rec("t1", "c")}, 1},
		{"the checks changed each time", []record{rec("t0", "c1"), rec("t0", "c2"), rec("t0", "c3")}, 0},
		{"the checks changed once", []record{rec("t0", "c1"), rec("t0", "c2"), rec("t0", "c2")}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is.New(t).Equal(idleRun(tc.recs, "t0"), tc.want)
		})
	}
}

// The same through the loop: checks whose results change at every
// iteration while the agent changes no file are progress, not idleness.
func TestIdleNotWhileTheChecksChange(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	gitInit(t, cfg.Dir)
	counter := filepath.Join(t.TempDir(), "n")
	// Exit status 1, 2, 3, 1, ... from one iteration to the next.
	cfg.Checks = []string{`n=$(cat "` + counter + `" 2>/dev/null || echo 0); echo $((n+1)) > "` + counter + `"; exit $((n % 3 + 1))`}
	cfg.IdleThreshold = 2
	cfg.MaxIterations = 4
	cfg.StallThreshold = 0
	res, _, _ := run(t, cfg, &scripted{outcomes: []agent.Outcome{{FinalMessage: "thinking"}}})
	is.Equal(res.StopReason, runlog.StopMaxIterations) // not idle
	is.Equal(res.TotalIterations, 4)
}

// An agent that leaves the WAIT file asks not to be restarted: the run
// stops, waiting, after that iteration; a resume removes the file and
// goes on.
func TestWaitFileStopsTheRun(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	cfg.Checks = []string{"false"}
	a := &scripted{outcomes: []agent.Outcome{{FinalMessage: "waiting for a person"}}, edit: func(dir string, run int) {
		if run == 0 {
			_ = os.WriteFile(filepath.Join(dir, runlog.StateDir, runlog.WaitFile), nil, 0o600)
		}
	}}
	res, _, _ := run(t, cfg, a)
	is.Equal(res.StopReason, runlog.StopWaiting)
	is.Equal(res.TotalIterations, 1)
	is.Equal(a.runs, 1) // not restarted
	st, err := runlog.ReadState(cfg.Dir)
	is.NoErr(err)
	is.Equal(st.Status, runlog.StatusWaiting)

	res, err = Resume(context.Background(), cfg.Dir, func(c *config.Config) { c.MaxIterations = 2 }, Deps{Agent: a})
	is.NoErr(err)
	is.Equal(res.StopReason, runlog.StopMaxIterations)
	is.Equal(a.runs, 2)
}

// bareRunner is a runner for calling one step: a workspace folder with
// its state folder, an empty state and result.
func bareRunner(t *testing.T, cfg config.Config) *runner {
	t.Helper()
	r := newRunner(cfg, Deps{})
	r.ws = &workspace{dir: cfg.Dir}
	if err := os.MkdirAll(r.ws.state(), 0o700); err != nil {
		t.Fatal(err)
	}
	r.st, r.res = &runlog.State{}, &runlog.Result{}
	return r
}

// ended puts a step's stop, if any, on r's result, as the run's loop
// does, and reports whether there was one.
func ended(r *runner, s *stop) bool {
	if s != nil {
		r.res.StopReason, r.res.StopDetail = s.reason, s.detail
	}
	return s != nil
}

// The DONE file ends the run in success only when its checks ran to the
// end under a run still going. This tests the loop's own guard alone: the
// checks layer (a check stopped by the cancel does not pass) cannot help
// when there is no check, or when the checks had passed as the stop came.
func TestDoneFileNeedsTheRunGoing(t *testing.T) {
	t.Run("no checks", func(t *testing.T) {
		is := is.New(t)
		cfg := testConfig(t)
		cfg.Checks, cfg.NoChecks = nil, true
		r := bareRunner(t, cfg)
		is.NoErr(os.WriteFile(r.ws.state(runlog.DoneFile), nil, 0o600))
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		is.True(!ended(r, r.doneBeforeIteration(ctx)))
		is.Equal(r.res.StopReason, "")
	})
	t.Run("checks passed as the stop came", func(t *testing.T) {
		is := is.New(t)
		cfg := testConfig(t)
		dir := t.TempDir()
		fifo := filepath.Join(dir, "fifo")
		is.NoErr(syscall.Mkfifo(fifo, 0o600))
		// The check exits 0; a process it leaves, which ignores SIGTERM,
		// waits for it to be gone, says ready, and holds the end of the
		// checks until the test has cancelled the run.
		cfg.Checks = []string{`(trap '' TERM; touch "$D/armed"; while kill -0 $$ 2>/dev/null; do sleep 0.01; done
echo ready > "$D/fifo"; while [ ! -e "$D/ack" ]; do sleep 0.01; done) >/dev/null 2>&1 &
while [ ! -e "$D/armed" ]; do sleep 0.01; done; exit 0`}
		t.Setenv("D", dir)
		cfg.KillGrace = time.Minute
		r := bareRunner(t, cfg)
		is.NoErr(os.WriteFile(r.ws.state(runlog.DoneFile), nil, 0o600))
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			_, _ = os.ReadFile(fifo)
			cancel()
			_ = os.WriteFile(filepath.Join(dir, "ack"), nil, 0o600)
		}()
		t.Cleanup(func() {
			if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				f.Close() // the check never wrote: unblock the reader
			}
		})
		is.True(!ended(r, r.doneBeforeIteration(ctx)))
		is.Equal(r.res.StopReason, "")
		is.True(ctx.Err() != nil)
	})
}

// Checks that a stop cut short are recorded as not run: the loop's own
// guard alone, whatever the checks reported.
func TestChecksCutShortAreNotRun(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	r := bareRunner(t, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	x := &iteration{n: 1, ws: r.ws}
	x.rec.Iteration = runlog.Iteration{Iteration: 1}
	r.runChecks(ctx, x)
	is.True(!x.rec.ChecksRun)
	is.True(!x.rec.AllChecksPassed)
}

// `architect pause` ends a backoff or a usage-limit wait at once: the loop
// pauses then, not when the wait is over.
func TestPauseEndsAWait(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    agent.Outcome
	}{
		{"backoff", failing(agent.ErrTransient)},
		{"usage limit", agent.Outcome{ExitCode: 1, ErrKind: agent.ErrUsageLimit, Err: "429 too many requests"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			cfg := testConfig(t)
			a := &fnAgent{fn: func(_ context.Context, req agent.Request, n int) agent.Outcome {
				if n == 0 {
					is.NoErr(runlog.WriteControl(req.Dir, runlog.ControlPause))
					return tc.o
				}
				return done
			}}
			clock := &fakeClock{now: time.Now()}
			control := filepath.Join(cfg.Dir, runlog.StateDir, runlog.ControlFile)
			var waited time.Duration // sleeping while the pause was asked, before the loop paused
			paused := false
			sleep := func(ctx context.Context, d time.Duration) error {
				if runlog.ReadControl(control) == runlog.ControlPause {
					st, _ := runlog.ReadState(cfg.Dir)
					if st != nil && st.Status == runlog.StatusPaused {
						paused = true
						if err := runlog.WriteControl(cfg.Dir, "resume"); err != nil {
							return err
						}
					} else {
						waited += d
					}
				}
				return clock.Sleep(ctx, d)
			}
			var log strings.Builder
			res, err := Run(context.Background(), cfg, Deps{Agent: a, Log: &log, Now: clock.Now, Sleep: sleep, Jitter: func(time.Duration) time.Duration { return 0 }})
			is.NoErr(err)
			is.Equal(res.StopReason, runlog.StopSuccess)
			is.True(paused)                    // the pause took effect
			is.Equal(waited, time.Duration(0)) // at once
			is.True(strings.Contains(log.String(), "paused: the loop waits for `architect resume`"))
		})
	}
}

// One loop per workspace: while a run holds the workspace's lock, a second
// run there fails at once, naming the holder, and changes nothing.
func TestSecondRunInAWorkspaceRefused(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	held, err := runlog.LockWorkspace(filepath.Join(cfg.Dir, runlog.StateDir))
	is.NoErr(err)
	defer held.Unlock()
	a := &scripted{outcomes: []agent.Outcome{done}}
	_, err = Run(context.Background(), cfg, Deps{Agent: a})
	var ue *usererr.Error
	is.True(errorsAs(err, &ue))
	is.True(strings.Contains(ue.Msg, fmt.Sprintf("another architect loop (pid %d) is running in %s", os.Getpid(), cfg.Dir)))
	is.Equal(a.runs, 0)
	_, err = os.Stat(filepath.Join(cfg.Dir, runlog.StateDir, runlog.StateFile))
	is.True(os.IsNotExist(err)) // nothing written
}

// A secret in what the agent says last and in what a check prints is
// masked where it enters: no file of the run holds it.
func TestSecretsInAgentAndCheckOutputMasked(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	const secret = "tok-9f8e7d6c5b4a"
	cfg.Checks = []string{`printf '%s-%s\n' tok 9f8e7d6c5b4a; exit 1`} // the command does not hold it
	cfg.MaxIterations = 1
	redact := func(s string) string { return strings.ReplaceAll(s, secret, "***") }
	a := &scripted{outcomes: []agent.Outcome{{FinalMessage: "I used " + secret + " to log in"}}}
	res, err := Run(context.Background(), cfg, Deps{Agent: a, Redact: redact})
	is.NoErr(err)
	is.Equal(res.Iterations[0].FinalMessage, "I used *** to log in")
	is.Equal(res.Iterations[0].CheckResults[0].Output, "***\n")
	filepath.WalkDir(filepath.Join(cfg.Dir, runlog.StateDir), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(path)
			if bytes.Contains(data, []byte(secret)) {
				t.Errorf("%s holds the secret", path)
			}
		}
		return nil
	})
}

// A run the DONE file ends before any iteration of its session (here, on
// resume) keeps on its result the last look that let it succeed: no
// iteration's record holds that look.
func TestDoneFileLookOnTheResult(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	cfg.FinalCheck = config.FinalCheckSame
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := &fnAgent{fn: func(ctx context.Context, _ agent.Request, _ int) agent.Outcome {
		cancel(ErrInterrupted)
		<-ctx.Done()
		return agent.Outcome{ExitCode: -1, Canceled: true}
	}}
	res, err := Run(ctx, cfg, Deps{Agent: stop})
	is.NoErr(err)
	is.Equal(res.StopReason, runlog.StopCancelled)
	is.NoErr(os.WriteFile(filepath.Join(cfg.Dir, runlog.StateDir, runlog.DoneFile), nil, 0o600))

	a := &scripted{outcomes: []agent.Outcome{done}}
	res, err = Resume(context.Background(), cfg.Dir, nil, Deps{Agent: a})
	is.NoErr(err)
	is.Equal(res.StopReason, runlog.StopSuccess)
	is.Equal(a.runs, 0) // the DONE file ended it before an agent ran
	is.True(res.FinalCheck != nil)
	is.Equal(res.FinalCheck.Status, runlog.FinalPassed)
	var onDisk runlog.Result
	b, err := os.ReadFile(filepath.Join(cfg.Dir, runlog.StateDir, runlog.ResultFile))
	is.NoErr(err)
	is.NoErr(json.Unmarshal(b, &onDisk))
	is.True(onDisk.FinalCheck != nil) // result.json says it too
}
