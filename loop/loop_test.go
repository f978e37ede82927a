package loop

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/runlog"
	"github.com/matryer/is"
)

// scripted is an in-process agent whose i-th run returns outcomes[i] (the
// last one repeats), after applying edit if set.
type scripted struct {
	outcomes []agent.Outcome
	edit     func(dir string, run int)
	runs     int
}

func (s *scripted) Name() string { return "scripted" }

func (s *scripted) Run(_ context.Context, req agent.Request) agent.Outcome {
	n := min(s.runs, len(s.outcomes)-1)
	if s.edit != nil {
		s.edit(req.Dir, s.runs)
	}
	s.runs++
	return s.outcomes[n]
}

// fakeClock advances only when the loop sleeps.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
	return nil
}

func failing(kind agent.ErrorKind) agent.Outcome {
	return agent.Outcome{ExitCode: 1, ErrKind: kind, Err: "boom"}
}

var done = agent.Outcome{FinalMessage: "<promise>COMPLETE</promise>"}

func testConfig(t *testing.T) config.Config {
	c := config.Defaults()
	c.Task = "task"
	c.Dir = t.TempDir()
	c.Checks = []string{"true"}
	return c
}

func run(t *testing.T, cfg config.Config, a agent.Agent) (*runlog.Result, string, *fakeClock) {
	t.Helper()
	clock := &fakeClock{now: time.Now()}
	var log bytes.Buffer
	res, err := Run(context.Background(), cfg, Deps{Agent: a, Log: &log, Now: clock.Now, Sleep: clock.Sleep, Jitter: func(time.Duration) time.Duration { return 0 }})
	if err != nil {
		t.Fatal(err)
	}
	return res, log.String(), clock
}

func waits(log string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`retrying in (\S+) \(attempt (\S+)\)`).FindAllStringSubmatch(log, -1) {
		out = append(out, m[1]+" "+m[2])
	}
	return out
}

func TestBackoffThenCircuitBreaker(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	start := time.Now()
	res, log, clock := run(t, cfg, &scripted{outcomes: []agent.Outcome{failing(agent.ErrTransient)}})
	is.Equal(res.StopReason, runlog.StopCircuitBreaker)
	is.Equal(res.TotalIterations, 5)
	is.Equal(waits(log), []string{"1s 1/5", "2s 2/5", "4s 3/5", "8s 4/5"}) // min(2^(n-1), cap)
	is.True(clock.Now().Sub(start) >= 15*time.Second)                      // the waits happened on the clock
	is.True(strings.Contains(log, "5 consecutive failures, stopping loop"))
}

func TestBackoffCapAndReset(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	cfg.BackoffCap = 3 * time.Second
	cfg.MaxConsecutiveErrors = 0 // never trip
	cfg.MaxIterations = 8
	ok := agent.Outcome{FinalMessage: "not yet"}
	f := failing(agent.ErrTransient)
	res, log, _ := run(t, cfg, &scripted{outcomes: []agent.Outcome{f, f, f, f, ok, f, f, done}})
	is.Equal(res.StopReason, runlog.StopSuccess)
	// capped at 3s; a successful agent run resets the count
	is.Equal(waits(log), []string{"1s 1", "2s 2", "3s 3", "3s 4", "1s 1", "2s 2"})
}

func TestFatalStopsAtOnce(t *testing.T) {
	is := is.New(t)
	res, log, _ := run(t, testConfig(t), &scripted{outcomes: []agent.Outcome{{ExitCode: -1, ErrKind: agent.ErrFatal, Err: "claude: not found", Hint: "install it"}}})
	is.Equal(res.StopReason, runlog.StopAgentError)
	is.Equal(res.TotalIterations, 1)
	is.True(strings.Contains(res.StopDetail, "install it"))
	is.Equal(waits(log), []string(nil))
}

func TestBackoffNeverRunsPastMaxTime(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	cfg.MaxTime = 10 * time.Second
	start := time.Now()
	res, _, clock := run(t, cfg, &scripted{outcomes: []agent.Outcome{failing(agent.ErrTransient)}})
	is.Equal(res.StopReason, runlog.StopTimeout)
	is.True(clock.Now().Sub(start) <= 11*time.Second) // stopped at the deadline, not after the 8 s wait
}

func TestCancelInterruptsBackoff(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	ctx, cancel := context.WithCancelCause(context.Background())
	clock := &fakeClock{now: time.Now()}
	sleeps := 0
	sleep := func(c context.Context, d time.Duration) error {
		if sleeps++; sleeps == 2 {
			cancel(ErrInterrupted)
		}
		return clock.Sleep(c, d)
	}
	res, err := Run(ctx, cfg, Deps{Agent: &scripted{outcomes: []agent.Outcome{failing(agent.ErrTransient)}}, Now: clock.Now, Sleep: sleep})
	is.NoErr(err)
	is.Equal(res.StopReason, runlog.StopCancelled)
	is.Equal(res.TotalIterations, 1) // the first backoff was cut short
	is.True(strings.Contains(res.StopDetail, "backing off"))
}

func TestUsageLimitWaitsForReset(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	clockStart := time.Now()
	limited := agent.Outcome{ExitCode: 1, ErrKind: agent.ErrUsageLimit, Err: "You've hit your limit", ResetAt: clockStart.Add(10 * time.Minute)}
	res, log, clock := run(t, cfg, &scripted{outcomes: []agent.Outcome{limited, done}})
	is.Equal(res.StopReason, runlog.StopSuccess)
	is.Equal(res.TotalIterations, 1) // the limited run is not an iteration
	is.True(clock.Now().Sub(clockStart) >= 10*time.Minute)
	is.True(strings.Contains(log, "usage limit reached"))
	st, err := runlog.ReadState(res.Workspace)
	is.NoErr(err)
	is.Equal(st.ErrorCount, 0) // nor an error
}

func TestUsageLimitWithoutResetDoubles(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	limited := agent.Outcome{ExitCode: 1, ErrKind: agent.ErrUsageLimit, Err: "quota exceeded"}
	res, log, _ := run(t, cfg, &scripted{outcomes: []agent.Outcome{limited, limited, limited, limited, limited, limited, limited, done}})
	is.Equal(res.StopReason, runlog.StopSuccess)
	var got []string
	for _, m := range regexp.MustCompile(`waiting (\S+), until`).FindAllStringSubmatch(log, -1) {
		got = append(got, m[1])
	}
	is.Equal(got, []string{"1m", "2m", "4m", "8m", "16m", "30m", "30m"})
}

func TestUsageLimitPastMaxTimeStops(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	cfg.MaxTime = time.Hour
	limited := agent.Outcome{ExitCode: 1, ErrKind: agent.ErrUsageLimit, Err: "limit", ResetAt: time.Now().Add(5 * time.Hour)}
	res, _, _ := run(t, cfg, &scripted{outcomes: []agent.Outcome{limited}})
	is.Equal(res.StopReason, runlog.StopTimeout)
	is.Equal(res.TotalIterations, 0)
}

func TestUsageLimitStop(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	cfg.OnUsageLimit = "stop"
	res, _, _ := run(t, cfg, &scripted{outcomes: []agent.Outcome{{ExitCode: 1, ErrKind: agent.ErrUsageLimit, Err: "limit"}}})
	is.Equal(res.StopReason, runlog.StopUsageLimit)
}

func TestDonePatternNeedsChecks(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	cfg.DonePattern = `All tasks complete`
	cfg.Checks = []string{"test -f ok"}
	a := &scripted{
		outcomes: []agent.Outcome{{FinalMessage: "All tasks complete"}},
		edit: func(dir string, run int) {
			if run == 1 {
				_ = os.WriteFile(filepath.Join(dir, "ok"), nil, 0o644)
			}
		},
	}
	res, _, _ := run(t, cfg, a)
	is.Equal(res.StopReason, runlog.StopSuccess)
	is.Equal(res.TotalIterations, 2) // the pattern alone did not end iteration 1
	is.Equal(res.Iterations[1].CompletionSignal, "done_pattern")
}

func TestIdleStops(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	cfg.IdleThreshold = 2
	cfg.Checks = []string{"false"}
	for _, args := range [][]string{{"init", "-q"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x"}} {
		if out, err := exec.Command("git", append([]string{"-C", cfg.Dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	changes := &scripted{outcomes: []agent.Outcome{{FinalMessage: "working"}}, edit: func(dir string, run int) {
		if run == 0 {
			_ = os.WriteFile(filepath.Join(dir, "first"), []byte("x"), 0o644)
		}
	}}
	res, _, _ := run(t, cfg, changes)
	is.Equal(res.StopReason, runlog.StopIdle)
	// iteration 1 changed the tree; 2 and 3 changed nothing and left the checks as they were
	is.Equal(res.TotalIterations, 3)
}
