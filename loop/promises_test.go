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
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/usererr"
)

// The tests here guard the promises of issue 12 and 28 where the logic
// lives: each fails when the guarantee it names is broken.

// fnAgent is an in-process agent that runs fn for each run (0-based).
type fnAgent struct {
	mu   sync.Mutex
	fn   func(ctx context.Context, req agent.Request, run int) agent.Outcome
	runs int
	reqs []agent.Request
}

func (a *fnAgent) Name() string { return "fn" }

func (a *fnAgent) Run(ctx context.Context, req agent.Request) agent.Outcome {
	a.mu.Lock()
	n := a.runs
	a.runs++
	a.reqs = append(a.reqs, req)
	a.mu.Unlock()
	return a.fn(ctx, req, n)
}

func costly(c float64, msg string) agent.Outcome {
	return agent.Outcome{FinalMessage: msg, Cost: c, CostKnown: true}
}

func gitInit(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{{"init", "-q"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x"}} {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

func readLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%s: %v in %q", path, err, l)
		}
		out = append(out, m)
	}
	return out
}

// --max-cost stops the loop once the money spent reaches the limit: an
// iteration that brings the total exactly to the limit is the last.
func TestBudgetReachedStops(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	cfg.Checks = []string{"false"}
	cfg.MaxCost = 1.0
	res, _, _ := run(t, cfg, &scripted{outcomes: []agent.Outcome{costly(0.5, "working")}})
	is.Equal(res.StopReason, runlog.StopBudget)
	is.Equal(res.TotalIterations, 2) // $0.50 + $0.50 = the limit: no third run
	is.Equal(*res.TotalCost, 1.0)
}

// The budget holds during an iteration too: when the spending the agent
// reports as it runs reaches the limit, the agent is stopped, and the
// iteration is recorded with what it cost, its checks not run.
func TestBudgetStopsARunningAgent(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	cfg.MaxCost = 2
	a := &fnAgent{fn: func(ctx context.Context, req agent.Request, n int) agent.Outcome {
		if n == 0 {
			return costly(1.5, "first")
		}
		req.OnSpend(agent.Spend{Cost: 0.25, CostKnown: true})
		req.OnSpend(agent.Spend{Cost: 0.75, CostKnown: true}) // $1.50 + $0.75 > $2
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Second):
			t.Error("the agent was not stopped at the budget")
		}
		return agent.Outcome{ExitCode: -1, Canceled: true, Err: "agent stopped"}
	}}
	res, _, _ := run(t, cfg, a)
	is.Equal(res.StopReason, runlog.StopBudget)
	is.Equal(res.TotalIterations, 2)
	it := res.Iterations[1]
	is.Equal(it.Interrupted, runlog.InterruptMaxCost)
	is.Equal(*it.Cost, 0.75) // what it had spent when stopped
	is.True(!it.ChecksRun)
	is.Equal(len(it.CheckResults), 0)
	is.Equal(*res.TotalCost, 2.25)
	is.True(strings.Contains(res.StopDetail, "iteration 2 was stopped"))
}

// A cost that cannot be known is unknown, never $0: the total is null
// (what is known of it is known_cost), the text says so, and --max-cost,
// which can then no longer be enforced, stops the run.
func TestUnknownCost(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	cfg.Checks = []string{"false"}
	cfg.MaxIterations = 2
	res, _, _ := run(t, cfg, &scripted{outcomes: []agent.Outcome{costly(0.5, "a"), {FinalMessage: "b"}}})
	is.Equal(res.TotalCost, (*float64)(nil))
	is.Equal(res.KnownCost, 0.5)
	is.Equal(res.Cost().String(), "at least $0.5000 (1 of 2 iterations' cost unknown)")
	data, err := os.ReadFile(filepath.Join(cfg.Dir, runlog.StateDir, runlog.ResultFile))
	is.NoErr(err)
	is.True(bytes.Contains(data, []byte(`"total_cost": null`)))
	st, err := runlog.ReadState(cfg.Dir)
	is.NoErr(err)
	is.Equal(st.TotalCost, (*float64)(nil))
	is.Equal(runlog.Cost{Unknown: 2, Iterations: 2}.String(), "unknown")

	cfg = testConfig(t)
	cfg.Checks = []string{"false"}
	cfg.MaxCost = 5
	res, _, _ = run(t, cfg, &scripted{outcomes: []agent.Outcome{{FinalMessage: "no cost reported"}}})
	is.Equal(res.StopReason, runlog.StopCostUnknown)
	is.Equal(res.TotalIterations, 1)
}

// A success needs the iteration's own record to allow it: an agent whose
// changes to protected files were undone has not earned it, even with the
// tag and every check passing, and that iteration is a failed one.
func TestProtectedChangeIsAFailureNotASuccess(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	cfg.Protect = []string{"guard.txt"}
	is.NoErr(os.WriteFile(filepath.Join(cfg.Dir, "guard.txt"), []byte("original"), 0o644))
	a := &scripted{outcomes: []agent.Outcome{done}, edit: func(dir string, run int) {
		if run == 0 {
			_ = os.WriteFile(filepath.Join(dir, "guard.txt"), []byte("weakened"), 0o644)
		}
	}}
	res, log, _ := run(t, cfg, a)
	is.Equal(res.StopReason, runlog.StopSuccess)
	is.Equal(res.TotalIterations, 2) // iteration 1 did not succeed
	is.Equal(res.Iterations[0].ProtectedRestored, []string{"guard.txt"})
	is.Equal(res.Iterations[0].CompletionSignal, "")
	is.True(strings.Contains(log, "iteration 1 failed (it changed protected files), retrying in 1s"))
	is.True(!strings.Contains(log, "exit: 0"))
	recs, err := runlog.ReadRecords(filepath.Join(cfg.Dir, runlog.StateDir, runlog.RecordsFile))
	is.NoErr(err)
	is.True(recs[0].Failed) // counted as a failed iteration
	is.True(!recs[1].Failed)
	st, err := runlog.ReadState(cfg.Dir)
	is.NoErr(err)
	is.Equal(st.ErrorCount, 1)
	got, _ := os.ReadFile(filepath.Join(cfg.Dir, "guard.txt"))
	is.Equal(string(got), "original")
}

// An agent stopped by a timeout (iteration or inactivity) did not finish:
// what it printed is no declaration of completion.
func TestTimedOutAgentCannotDeclareCompletion(t *testing.T) {
	for _, o := range []agent.Outcome{
		{TimedOut: true, ExitCode: -1, ErrKind: agent.ErrTransient, Err: "agent timed out", FinalMessage: "<promise>COMPLETE</promise>"},
		{Inactive: true, ExitCode: -1, ErrKind: agent.ErrTransient, Err: "agent inactive", FinalMessage: "<promise>COMPLETE</promise>"},
	} {
		is := is.New(t)
		cfg := testConfig(t)
		cfg.MaxIterations = 2
		res, _, _ := run(t, cfg, &scripted{outcomes: []agent.Outcome{o, done}})
		is.Equal(res.StopReason, runlog.StopSuccess)
		is.Equal(res.TotalIterations, 2)
		is.True(!res.Iterations[0].CompletionTagFound)
		is.True(res.Iterations[0].AgentTimedOut)
	}
	// Nor does a DONE file it made before it was stopped end that iteration.
	is := is.New(t)
	cfg := testConfig(t)
	cfg.MaxIterations = 1
	timedOut := &scripted{outcomes: []agent.Outcome{{TimedOut: true, ExitCode: -1, ErrKind: agent.ErrTransient, Err: "agent timed out"}},
		edit: func(dir string, _ int) {
			_ = os.WriteFile(filepath.Join(dir, runlog.StateDir, runlog.DoneFile), nil, 0o600)
		}}
	res, _, _ := run(t, cfg, timedOut)
	is.Equal(res.StopReason, runlog.StopMaxIterations)
	is.Equal(res.Iterations[0].CompletionSignal, "")
}

// --max-time spans the sessions of a run: a resumed run has only what the
// earlier sessions left of it.
func TestResumeMaxTimeCountsEarlierSessions(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	cfg.Checks = []string{"false"}
	cfg.MaxIterations = 1
	cfg.MaxTime = 10 * time.Second
	res, _, _ := run(t, cfg, &scripted{outcomes: []agent.Outcome{{FinalMessage: "x"}}})
	is.Equal(res.StopReason, runlog.StopMaxIterations)
	st, err := runlog.ReadState(cfg.Dir)
	is.NoErr(err)
	st.Elapsed = 11 // the earlier sessions used it all up
	is.NoErr(runlog.WriteJSON(filepath.Join(cfg.Dir, runlog.StateDir, runlog.StateFile), st))
	a := &scripted{outcomes: []agent.Outcome{{FinalMessage: "x"}}}
	res, err = Resume(context.Background(), cfg.Dir, func(c *config.Config) { c.MaxIterations = 5 }, Deps{Agent: a})
	is.NoErr(err)
	is.Equal(res.StopReason, runlog.StopTimeout)
	is.Equal(a.runs, 0) // no agent started
}

// The previous agent run's error is in the next prompt.
func TestPreviousErrorInNextPrompt(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	a := &fnAgent{fn: func(_ context.Context, _ agent.Request, n int) agent.Outcome {
		if n == 0 {
			return agent.Outcome{ExitCode: 1, ErrKind: agent.ErrTransient, Err: "boom-4242: the model went away"}
		}
		return done
	}}
	res, _, _ := run(t, cfg, a)
	is.Equal(res.StopReason, runlog.StopSuccess)
	is.True(strings.Contains(a.reqs[1].Prompt, "## Execution Error"))
	is.True(strings.Contains(a.reqs[1].Prompt, "boom-4242: the model went away"))
	is.True(!strings.Contains(a.reqs[0].Prompt, "boom-4242"))
}

// No wait that cannot help: none after the last iteration allowed, none
// once the budget is spent, and a wait that would reach --max-time stops
// the run at once instead.
func TestNoBackoffWhenTheLoopStopsAnyway(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	cfg.MaxIterations = 3
	start := time.Now()
	res, log, clock := run(t, cfg, &scripted{outcomes: []agent.Outcome{failing(agent.ErrTransient)}})
	is.Equal(res.StopReason, runlog.StopMaxIterations)
	is.Equal(waits(log), []string{"1s 1/5", "2s 2/5"}) // none after iteration 3
	is.True(clock.Now().Sub(start) < 4*time.Second)

	cfg = testConfig(t)
	cfg.MaxCost = 1
	cfg.AgentReportsCost = true
	expensive := agent.Outcome{ExitCode: 1, ErrKind: agent.ErrTransient, Err: "boom", Cost: 1, CostKnown: true}
	start = time.Now()
	res, log, clock = run(t, cfg, &scripted{outcomes: []agent.Outcome{expensive}})
	is.Equal(res.StopReason, runlog.StopBudget)
	is.Equal(waits(log), []string(nil))
	is.True(clock.Now().Sub(start) < time.Second)

	cfg = testConfig(t)
	cfg.MaxTime = 5 * time.Second
	start = time.Now()
	res, log, clock = run(t, cfg, &scripted{outcomes: []agent.Outcome{failing(agent.ErrTransient)}})
	is.Equal(res.StopReason, runlog.StopTimeout)
	is.Equal(waits(log), []string{"1s 1/5", "2s 2/5"}) // then 4 s would reach the deadline
	is.True(clock.Now().Sub(start) < 4*time.Second)    // stopped at once, not at the deadline
	is.True(strings.Contains(res.StopDetail, "would be reached during the 4s wait"))
}

// A usage-limit wait that would end after the --max-time deadline is
// refused at once: the run stops without waiting for nothing.
func TestUsageLimitPastMaxTimeRefusedAtOnce(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	cfg.MaxTime = time.Hour
	start := time.Now()
	limited := agent.Outcome{ExitCode: 1, ErrKind: agent.ErrUsageLimit, Err: "limit", ResetAt: start.Add(5 * time.Hour)}
	res, _, clock := run(t, cfg, &scripted{outcomes: []agent.Outcome{limited}})
	is.Equal(res.StopReason, runlog.StopTimeout)
	is.True(strings.Contains(res.StopDetail, "lifts after the max-time deadline"))
	is.True(clock.Now().Sub(start) < time.Second) // no waiting
	is.Equal(res.TotalIterations, 0)
}

// Usage-limit waits are counted (state, result) and bounded in total by
// max_usage_wait: no wait is endless.
func TestUsageLimitWaitsCountedAndCapped(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	cfg.MaxUsageWait = 10 * time.Minute
	limited := agent.Outcome{ExitCode: 1, ErrKind: agent.ErrUsageLimit, Err: "429 too many requests"}
	res, log, _ := run(t, cfg, &scripted{outcomes: []agent.Outcome{limited}})
	// 1 + 2 + 4 minutes waited; 8 more would pass 10.
	is.Equal(res.StopReason, runlog.StopUsageLimit)
	is.Equal(res.UsageLimitWaits, 3)
	is.Equal(res.UsageLimitWaited, (7 * time.Minute).Seconds())
	is.True(strings.Contains(res.StopDetail, "max_usage_wait (10m; 7m waited so far)"))
	is.True(strings.Contains(log, "usage-limit wait 3 of the run, 3m waited before"))
	st, err := runlog.ReadState(cfg.Dir)
	is.NoErr(err)
	is.Equal(st.UsageLimitWaits, 3)
	is.Equal(res.TotalIterations, 0) // a refusal before any work is no iteration
}

// A run that did work before meeting the usage limit is an iteration: its
// cost counts, then the limit is waited out.
func TestUsageLimitAfterWorkIsRecorded(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	worked := agent.Outcome{ExitCode: 1, ErrKind: agent.ErrUsageLimit, Err: "You've hit your limit", Steps: 7, Cost: 0.8, CostKnown: true,
		ResetAt: time.Now().Add(time.Minute)}
	res, _, _ := run(t, cfg, &scripted{outcomes: []agent.Outcome{worked, done}})
	is.Equal(res.StopReason, runlog.StopSuccess)
	is.Equal(res.TotalIterations, 2)
	is.Equal(*res.Iterations[0].Cost, 0.8)
	is.Equal(res.KnownCost, 0.8)
	is.Equal(res.UsageLimitWaits, 1)
}

// Idleness counts from iteration 1 (compared with the tree the run started
// from), and failed agent runs are agent errors, not idleness: an outage
// ends on the circuit breaker with the last error, not as idle.
func TestIdleFromIterationOneAndFailuresAreNotIdle(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	cfg.Checks = []string{"false"}
	cfg.IdleThreshold = 2
	gitInit(t, cfg.Dir)
	res, _, _ := run(t, cfg, &scripted{outcomes: []agent.Outcome{{FinalMessage: "nothing"}}})
	is.Equal(res.StopReason, runlog.StopIdle)
	is.Equal(res.TotalIterations, 2)

	cfg = testConfig(t)
	cfg.Checks = []string{"false"}
	cfg.IdleThreshold = 2
	cfg.MaxConsecutiveErrors = 3
	gitInit(t, cfg.Dir)
	outage := agent.Outcome{ExitCode: 1, ErrKind: agent.ErrTransient, Err: "claude: API Error: 500 Internal server error"}
	res, _, _ = run(t, cfg, &scripted{outcomes: []agent.Outcome{outage}})
	is.Equal(res.StopReason, runlog.StopCircuitBreaker)
	is.Equal(res.TotalIterations, 3)
	is.True(strings.Contains(res.StopDetail, "API Error: 500 Internal server error"))
}

// Ctrl-C, SIGTERM or --max-time during the agent: the iteration is on the
// record, with how it ended, what its agent cost so far and how long it
// ran, the changes it left, and that its checks did not run; it counts in
// the totals, the progress file and the events. A resume knows it was
// interrupted and goes on with the next iteration, telling the agent.
func TestInterruptedIterationIsRecorded(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	gitInit(t, cfg.Dir)
	ctx, cancel := context.WithCancelCause(context.Background())
	a := &fnAgent{fn: func(ctx context.Context, req agent.Request, n int) agent.Outcome {
		if n == 0 {
			_ = os.WriteFile(filepath.Join(req.Dir, "half.txt"), []byte("half done\n"), 0o644)
			req.OnSpend(agent.Spend{Cost: 0.5, CostKnown: true})
			cancel(ErrInterrupted) // Ctrl-C
			<-ctx.Done()
			return agent.Outcome{ExitCode: -1, Canceled: true, Duration: 1500 * time.Millisecond, Err: "agent stopped"}
		}
		return done
	}}
	res, err := Run(ctx, cfg, Deps{Agent: a})
	is.NoErr(err)
	is.Equal(res.StopReason, runlog.StopCancelled)
	is.Equal(res.TotalIterations, 1)
	it := res.Iterations[0]
	is.Equal(it.Interrupted, runlog.InterruptSignal)
	is.Equal(*it.Cost, 0.5) // streamed before the stop
	is.Equal(it.AgentDuration, 1.5)
	is.True(!it.ChecksRun)
	is.True(strings.Contains(it.DiffStat, "half.txt"))
	is.Equal(*res.TotalCost, 0.5)
	progress, _ := os.ReadFile(filepath.Join(cfg.Dir, runlog.StateDir, runlog.ProgressFile))
	is.True(strings.Contains(string(progress), "## Iteration 1 — FAIL"))
	is.True(strings.Contains(string(progress), "- Interrupted: the run was stopped"))
	is.True(strings.Contains(string(progress), "- Checks: not run"))
	evs := readLines(t, filepath.Join(cfg.Dir, runlog.StateDir, runlog.EventsFile))
	var finished map[string]any
	for _, ev := range evs {
		if ev["type"] == runlog.EventIterationFinished {
			finished = ev
		}
	}
	is.Equal(finished["interrupted"], "signal")
	is.Equal(finished["cost"], 0.5)
	_, err = os.Stat(filepath.Join(cfg.Dir, runlog.StateDir, runlog.InflightFile))
	is.True(os.IsNotExist(err)) // recorded: nothing in flight

	res, err = Resume(context.Background(), cfg.Dir, nil, Deps{Agent: a})
	is.NoErr(err)
	is.Equal(res.StopReason, runlog.StopSuccess)
	is.Equal(res.TotalIterations, 2)
	is.Equal(res.Iterations[1].Iteration, 2)
	is.True(strings.Contains(a.reqs[1].Prompt, "Iteration 1 was interrupted (the run was stopped) before its checks ran"))
	is.Equal(res.KnownCost, 0.5) // iteration 2 reported no cost: unknown, not 0
	is.Equal(res.TotalCost, (*float64)(nil))
	recs, err := runlog.ReadRecords(filepath.Join(cfg.Dir, runlog.StateDir, runlog.RecordsFile))
	is.NoErr(err)
	is.Equal(len(recs), 2) // recorded once
}

// --max-time during the checks: the iteration is recorded as interrupted,
// its unfinished checks left out.
func TestMaxTimeDuringChecksRecordsTheIteration(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	cfg.Checks = []string{"sleep 30"}
	cfg.MaxTime = 500 * time.Millisecond
	a := &scripted{outcomes: []agent.Outcome{costly(0.1, "<promise>COMPLETE</promise>")}}
	started := time.Now()
	res, err := Run(context.Background(), cfg, Deps{Agent: a})
	is.NoErr(err)
	is.True(time.Since(started) < 20*time.Second)
	is.Equal(res.StopReason, runlog.StopTimeout)
	is.Equal(res.TotalIterations, 1)
	is.Equal(res.Iterations[0].Interrupted, runlog.InterruptMaxTime)
	is.Equal(len(res.Iterations[0].CheckResults), 0)
	is.True(!res.Success)
}

// A run killed in the middle of an iteration left current.json (what the
// agent had spent) and, for a command agent, its result file: resume
// records that iteration once, interrupted (killed), with its cost, and
// goes on with the next.
func TestResumeRecordsTheKilledIteration(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	cfg.Checks = []string{"false"}
	cfg.MaxIterations = 1
	res, _, _ := run(t, cfg, &scripted{outcomes: []agent.Outcome{costly(1, "one")}})
	is.Equal(res.TotalIterations, 1)
	state := filepath.Join(cfg.Dir, runlog.StateDir)
	// What a SIGKILL during iteration 2 leaves.
	began := time.Now().Add(-time.Minute)
	is.NoErr(runlog.WriteJSONQuick(filepath.Join(state, runlog.InflightFile), runlog.Inflight{Iteration: 2, StartedAt: stampNano(began),
		UpdatedAt: stampNano(began.Add(20 * time.Second)), Cost: ptr(0.4)}))

	a := &scripted{outcomes: []agent.Outcome{costly(0.25, "three")}}
	var log bytes.Buffer
	res, err := Resume(context.Background(), cfg.Dir, func(c *config.Config) { c.MaxIterations = 3 }, Deps{Agent: a, Log: &log})
	is.NoErr(err)
	is.Equal(res.TotalIterations, 3)
	killed := res.Iterations[1]
	is.Equal(killed.Interrupted, runlog.InterruptKilled)
	is.Equal(*killed.Cost, 0.4)
	is.Equal(killed.AgentDuration, 20.0)
	is.Equal(*res.TotalCost, 1.65) // 1 + 0.40 + 0.25: nothing undercounted
	is.True(strings.Contains(log.String(), "iteration 2 was interrupted when architect was killed: recorded (cost $0.4000)"))
	is.Equal(a.runs, 1) // iteration 3 only

	// A command agent's result file wins over the last streamed figure.
	is.NoErr(runlog.WriteJSONQuick(filepath.Join(state, runlog.InflightFile), runlog.Inflight{Iteration: 4, StartedAt: stampNano(began), UpdatedAt: stampNano(began)}))
	is.NoErr(os.WriteFile(filepath.Join(state, runlog.AgentResultFile), []byte(`{"cost_usd": 0.6}`), 0o600))
	res, err = Resume(context.Background(), cfg.Dir, func(c *config.Config) { c.MaxIterations = 4 }, Deps{Agent: a})
	is.NoErr(err)
	is.Equal(res.TotalIterations, 4)
	is.Equal(*res.Iterations[3].Cost, 0.6)
	is.Equal(res.StopReason, runlog.StopMaxIterations)
	recs, err := runlog.ReadRecords(filepath.Join(state, runlog.RecordsFile))
	is.NoErr(err)
	is.Equal(len(recs), 4)

	// Nothing in flight, or the in-flight iteration already recorded (a
	// kill between the record and the removal): nothing more is recorded.
	is.NoErr(runlog.WriteJSONQuick(filepath.Join(state, runlog.InflightFile), runlog.Inflight{Iteration: 4, StartedAt: stampNano(began), UpdatedAt: stampNano(began)}))
	res, err = Resume(context.Background(), cfg.Dir, nil, Deps{Agent: a})
	is.NoErr(err)
	is.Equal(res.TotalIterations, 4)
}

// A worktree-style run commits each iteration before recording it: the
// commit hash is in iterations.jsonl and result.json, written once.
func TestCommitHashInTheRecord(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	cfg.Mode = config.ModeBuild // commits on the current branch
	cfg.Checks = []string{"test -f two.txt"}
	gitInit(t, cfg.Dir)
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	a := &scripted{outcomes: []agent.Outcome{{FinalMessage: "one"}, done}, edit: func(dir string, run int) {
		_ = os.WriteFile(filepath.Join(dir, []string{"one.txt", "two.txt"}[min(run, 1)]), []byte("x"), 0o644)
	}}
	res, _, _ := run(t, cfg, a)
	is.Equal(res.StopReason, runlog.StopSuccess)
	recs := readLines(t, filepath.Join(cfg.Dir, runlog.StateDir, runlog.RecordsFile))
	is.Equal(len(recs), 2)
	for i, rec := range recs {
		c, _ := rec["commit"].(string)
		is.True(len(c) == 40) // a hash in the record
		is.Equal(res.Iterations[i].Commit, c)
	}
	out, err := exec.Command("git", "-C", cfg.Dir, "log", "-1", "--format=%H").Output()
	is.NoErr(err)
	is.Equal(strings.TrimSpace(string(out)), res.Iterations[1].Commit)

	// Written once, complete: each record is the iteration the result and
	// result.json end with, completion signal included; nothing was set on
	// it after it was written.
	written, err := runlog.ReadRecords(filepath.Join(cfg.Dir, runlog.StateDir, runlog.RecordsFile))
	is.NoErr(err)
	saved, err := runlog.ReadResult(cfg.Dir)
	is.NoErr(err)
	is.Equal(res.Iterations[1].CompletionSignal, "tag")
	for i, rec := range written {
		want, _ := json.Marshal(rec.Iteration)
		got, _ := json.Marshal(res.Iterations[i])
		is.Equal(string(got), string(want))
		got, _ = json.Marshal(saved.Iterations[i])
		is.Equal(string(got), string(want))
	}
}

// No check, no success by checks: a run without checks (opted in) ends on
// the agent's completion with a stop reason of its own, and says it had no
// checks.
func TestNoChecksStopReason(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	cfg.Checks, cfg.NoChecks = nil, true
	res, _, _ := run(t, cfg, &scripted{outcomes: []agent.Outcome{done}})
	is.True(res.Success)
	is.Equal(res.StopReason, runlog.StopNoChecks)
	is.True(res.NoChecks)
	is.True(!res.Iterations[0].AllChecksPassed)
	is.True(!res.Iterations[0].ChecksRun)
	st, err := runlog.ReadState(cfg.Dir)
	is.NoErr(err)
	is.Equal(st.Status, runlog.StatusSucceeded)
}

// A secret in the configuration (a token written in a check command) is
// masked in everything written, once, where the configuration enters; the
// check still runs with it. A resume must be given such a command again.
func TestSecretInCheckCommand(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	secret := "tok-9f8e7d6c5b4a"
	cfg.Checks = []string{"test " + secret + " = " + secret}
	cfg.MaxIterations = 1
	redact := func(s string) string { return strings.ReplaceAll(s, secret, "***") }
	a := &scripted{outcomes: []agent.Outcome{{FinalMessage: "working"}}}
	res, err := Run(context.Background(), cfg, Deps{Agent: a, Redact: redact})
	is.NoErr(err)
	is.True(res.Iterations[0].CheckResults[0].Passed) // it ran with the real value
	is.Equal(res.Iterations[0].CheckResults[0].Name, "test *** = ***")
	filepath.WalkDir(filepath.Join(cfg.Dir, runlog.StateDir), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(path)
			if bytes.Contains(data, []byte(secret)) {
				t.Errorf("%s holds the secret", path)
			}
		}
		return nil
	})
	st, err := runlog.ReadState(cfg.Dir)
	is.NoErr(err)
	is.Equal(st.Redacted, []string{"checks"})
	_, err = Resume(context.Background(), cfg.Dir, nil, Deps{Agent: a, Redact: redact})
	var ue *usererr.Error
	is.True(errorsAs(err, &ue))
	is.True(strings.Contains(ue.Msg, "checks held a secret"))
	res, err = Resume(context.Background(), cfg.Dir, func(c *config.Config) { c.Checks = cfg.Checks; c.MaxIterations = 2 }, Deps{Agent: a, Redact: redact})
	is.NoErr(err)
	is.Equal(res.TotalIterations, 2)
}

// A new run over one that was interrupted is refused (the user continues
// it with --resume), unless --new says to set it aside; a stale DONE file
// of the earlier run is archived and reported, not taken as this run's.
func TestNewRunOverAnInterruptedOne(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
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

	_, err = Run(context.Background(), cfg, Deps{Agent: &scripted{outcomes: []agent.Outcome{done}}})
	var ue *usererr.Error
	is.True(errorsAs(err, &ue))
	is.True(strings.Contains(ue.Msg, "was interrupted"))
	is.True(strings.Contains(ue.Hint, "--resume"))
	is.True(strings.Contains(ue.Hint, "--new"))

	cfg.New = true
	var log bytes.Buffer
	a := &scripted{outcomes: []agent.Outcome{done}}
	res, err = Run(context.Background(), cfg, Deps{Agent: a, Log: &log})
	is.NoErr(err)
	is.Equal(res.StopReason, runlog.StopSuccess)
	is.Equal(a.runs, 1) // the stale DONE did not end it before an agent ran
	is.True(strings.Contains(log.String(), "found .architect/DONE from an earlier run: moved it to .architect/runs/"))
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }

// The agent's duration is the real time its run took, stopping included,
// not the timeout: a group that outlives its leader after a timeout keeps
// the run going through the grace period.
func TestAgentDurationIsRealTime(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	cfg.MaxIterations = 1
	clock := &fakeClock{now: time.Now()}
	a := &fnAgent{fn: func(ctx context.Context, _ agent.Request, _ int) agent.Outcome {
		_ = clock.Sleep(ctx, 3*time.Second) // the leader exits at 1 s; the group is gone at 3 s
		return agent.Outcome{TimedOut: true, ExitCode: -1, ErrKind: agent.ErrTransient, Err: "agent timed out", Duration: time.Second}
	}}
	res, err := Run(context.Background(), cfg, Deps{Agent: a, Now: clock.Now, Sleep: clock.Sleep})
	is.NoErr(err)
	is.Equal(res.Iterations[0].AgentDuration, 3.0)
}
