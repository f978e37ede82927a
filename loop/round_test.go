package loop

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/internal/testutil"
	"github.com/architect-dev/architect/runlog"
	"github.com/matryer/is"
)

// roundRepo is a repository whose check passes once fix.txt says "fixed".
func roundRepo(t *testing.T) string {
	t.Helper()
	testutil.IsolateGit(t, true)
	dir := testutil.NewRepo(t)
	testutil.WriteFile(t, dir, "fix.txt", "broken\n")
	testutil.Commit(t, dir, "start")
	return dir
}

func runRound(t *testing.T, dir, script string, n int, mut func(*Deps)) (*runlog.Result, string) {
	t.Helper()
	cfg := roundConfig(t, dir, script)
	cfg.Candidates, cfg.MaxIterations = n, 2
	var deps Deps
	if mut != nil {
		mut(&deps)
	}
	return runConfig(t, cfg, deps)
}

// roundConfig is a run in dir whose check wants fix.txt to say "fixed",
// its agent the shell script (candidates set by the caller).
func roundConfig(t *testing.T, dir, script string) config.Config {
	t.Helper()
	cfg := testConfig(t)
	cfg.Dir = dir
	cfg.Checks = []string{"grep -q '^fixed$' fix.txt"}
	cfg.Agent, cfg.AgentCmd = "command", script
	return cfg
}

// runConfig runs cfg with its command agent through deps (its Agent and
// Log set here), and returns the result and what the run said.
func runConfig(t *testing.T, cfg config.Config, deps Deps) (*runlog.Result, string) {
	t.Helper()
	a, err := agent.New(cfg.AgentConfig())
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	deps.Agent, deps.Log = a, &log
	res, err := Run(context.Background(), cfg, deps)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	return res, log.String()
}

func TestRoundKeepsTheCandidateThatPasses(t *testing.T) {
	is := is.New(t)
	dir := roundRepo(t)
	script := `if [ "$ARCHITECT_CANDIDATE" = 2 ]; then echo fixed > fix.txt; echo '<promise>COMPLETE</promise>'; else echo "wrong $ARCHITECT_CANDIDATE" > fix.txt; echo '<promise>COMPLETE</promise>'; fi`
	res, log := runRound(t, dir, script, 3, nil)
	is.True(res.Success) // the round succeeded
	is.Equal(res.TotalIterations, 1)
	data, err := os.ReadFile(filepath.Join(dir, "fix.txt"))
	is.NoErr(err)
	is.Equal(string(data), "fixed\n") // candidate 2's change is in the workspace
	cs := res.Iterations[0].Candidates
	is.Equal(len(cs), 3)
	for _, c := range cs {
		is.Equal(c.Kept, c.N == 2)
		if c.N != 2 && c.Why == "" {
			t.Errorf("candidate %d lost without a reason", c.N)
		}
	}
	out, _ := exec.Command("git", "-C", dir, "worktree", "list").Output()
	is.Equal(strings.Count(string(out), "\n"), 1) // the candidates' worktrees are gone
	t.Log(log)
}

// A candidate that rewrites the judge (the check's script) to pass is
// put back in its own worktree and fails: it cannot win a round over an
// honest one, nor succeed alone.
func TestRoundCandidateCannotRewriteTheJudge(t *testing.T) {
	is := is.New(t)
	dir := roundRepo(t)
	testutil.WriteFile(t, dir, "check.sh", "grep -q '^fixed$' fix.txt\n")
	testutil.Commit(t, dir, "the judge")
	cfg := testConfig(t)
	cfg.Dir = dir
	cfg.Checks = []string{"sh check.sh"}
	cfg.Agent = "command"
	cfg.AgentCmd = `if [ "$ARCHITECT_CANDIDATE" = 1 ]; then echo 'exit 0' > check.sh; else echo 'fixed' > fix.txt; fi; echo '<promise>COMPLETE</promise>'`
	cfg.Candidates, cfg.MaxIterations = 2, 1
	res, _ := runConfig(t, cfg, Deps{})
	is.True(res.Success) // the honest candidate's change
	cs := res.Iterations[0].Candidates
	is.True(cs[1].Kept)
	is.True(!cs[0].Success) // the judge was put back in its worktree: its check failed
	script, err := os.ReadFile(filepath.Join(dir, "check.sh"))
	is.NoErr(err)
	is.Equal(string(script), "grep -q '^fixed$' fix.txt\n")

	// Alone, it gets no success either.
	dir = roundRepo(t)
	testutil.WriteFile(t, dir, "check.sh", "grep -q '^fixed$' fix.txt\n")
	testutil.Commit(t, dir, "the judge")
	cfg.Dir = dir
	cfg.AgentCmd = `echo 'exit 0' > check.sh; echo '<promise>COMPLETE</promise>'`
	res, _ = runConfig(t, cfg, Deps{})
	is.True(!res.Success)
	for _, c := range res.Iterations[0].Candidates {
		is.True(!c.Success)
	}
}

// In build mode the kept candidate's change is the iteration's commit,
// and the next round starts from it: the losers' changes are nowhere.
func TestRoundBuildModeCommitsTheKeptChange(t *testing.T) {
	is := is.New(t)
	dir := roundRepo(t)
	// Round 1: candidate 1 writes "half", candidate 2 "wrong"; the check
	// fails for both, the smaller change wins (equal here: the earlier
	// finish). Round 2: whoever finds "half" finishes it.
	script := `if grep -q half fix.txt; then echo fixed > fix.txt; echo '<promise>COMPLETE</promise>'; elif [ "$ARCHITECT_CANDIDATE" = 1 ]; then printf 'half\n' > fix.txt; else printf 'wrong\nwrong\nwrong\n' > fix.txt; fi`
	cfg := roundConfig(t, dir, script)
	cfg.Candidates, cfg.MaxIterations, cfg.Mode = 2, 3, "build"
	res, _ := runConfig(t, cfg, Deps{})
	is.True(res.Success)
	is.Equal(res.TotalIterations, 2)
	first := res.Iterations[0]
	is.True(first.Candidates[0].Kept)                                       // the smaller change
	is.True(strings.Contains(first.Candidates[1].Why, "change was larger")) // and why the other lost
	is.True(first.Commit != "")
	show := testutil.Git(t, dir, "show", first.Commit+":fix.txt")
	is.Equal(strings.TrimSpace(show), "half")
	is.Equal(strings.TrimSpace(testutil.Git(t, dir, "show", "HEAD:fix.txt")), "fixed")
	is.True(!strings.Contains(testutil.Git(t, dir, "log", "-p"), "wrong")) // a loser's change was never committed
}

// With candidates_finish first, a candidate that succeeds stops the
// others at once: one that would run for a minute is stopped, recorded as
// such, and its process is gone.
func TestRoundFirstSuccessStopsTheOthers(t *testing.T) {
	is := is.New(t)
	dir := roundRepo(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	script := `if [ "$ARCHITECT_CANDIDATE" = 1 ]; then echo $$ > ` + pidFile + `; exec sleep 60; fi; while [ ! -s ` + pidFile + ` ]; do sleep 0.05; done; echo fixed > fix.txt; echo '<promise>COMPLETE</promise>'`
	res, _ := runRound(t, dir, script, 2, nil)
	is.True(res.Success)
	cs := res.Iterations[0].Candidates
	is.True(cs[0].Stopped)
	is.True(strings.Contains(cs[0].Why, "candidate 2 succeeded first"))
	is.True(cs[1].Kept)
	pid, err := os.ReadFile(pidFile)
	is.NoErr(err)
	if err := exec.Command("kill", "-0", strings.TrimSpace(string(pid))).Run(); err == nil {
		t.Fatalf("the stopped candidate's process %s is still running", pid)
	}
}

// What the losing candidates showed reaches the next round's prompt, each
// one's part bounded however much its check printed; with lessons off,
// nothing of them does.
func TestRoundLessonsReachTheNextPrompt(t *testing.T) {
	for _, lessons := range []string{"on", "off"} {
		t.Run(lessons, func(t *testing.T) {
			is := is.New(t)
			dir := roundRepo(t)
			// The check prints fix.txt's content as its failure, 100 KB of
			// it for candidate 2's change.
			script := `if [ "$ARCHITECT_CANDIDATE" = 2 ]; then for i in $(seq 1 4000); do echo "loser line $i of twenty-five bytes"; done > fix.txt; else echo 'kept try' > fix.txt; fi`
			cfg := testConfig(t)
			cfg.Dir = dir
			cfg.Checks = []string{"cat fix.txt; grep -q '^fixed$' fix.txt"}
			cfg.Agent, cfg.AgentCmd = "command", script
			cfg.Candidates, cfg.MaxIterations, cfg.CandidatesLessons = 2, 2, lessons
			res, log := runConfig(t, cfg, Deps{})
			if len(res.Iterations) == 0 {
				t.Fatalf("no iteration: %s %s\n%s", res.StopReason, res.StopDetail, log)
			}
			is.True(res.Iterations[0].Candidates[0].Kept)
			data, err := os.ReadFile(filepath.Join(dir, runlog.StateDir, "prompts", "iteration-2.md"))
			is.NoErr(err)
			p := string(data)
			_, section, found := strings.Cut(p, "## What the Other Candidates Tried")
			if lessons == "off" {
				is.True(!found)
				is.True(!strings.Contains(p, "loser line"))
				return
			}
			is.True(found)
			section, _, _ = strings.Cut(section, "\n## ")
			is.True(strings.Contains(section, "### Candidate 2"))
			if !strings.Contains(section, "loser line") {
				t.Fatalf("section:\n%s", section)
			}
			is.True(len(section) <= 2048+300) // one candidate's part, bounded, and the section's opening
		})
	}
}

// A budget that covers fewer candidates than the run has, at the last
// round's cost per candidate, runs as many as it covers and says so.
func TestRoundSizeFollowsTheBudget(t *testing.T) {
	is := is.New(t)
	var log bytes.Buffer
	r := &runner{cfg: testConfig(t), deps: Deps{Log: &log}, res: &runlog.Result{}}
	r.cands = make([]*candidate, 3)
	is.Equal(r.roundSize(1), 3) // no round yet: nothing to estimate from
	r.cfg.MaxCost = 1.0
	r.records = []record{{Record: runlog.Record{Iteration: runlog.Iteration{Candidates: []runlog.Candidate{
		{N: 1, Cost: ptr(0.10)}, {N: 2, Cost: ptr(0.25)}, {N: 3}}}}}}
	r.res.KnownCost = 0.35
	is.Equal(r.roundSize(2), 2) // $0.65 left covers two at $0.25
	is.True(strings.Contains(log.String(), "running 2 of 3 candidates"))
	r.res.KnownCost = 0.2
	is.Equal(r.roundSize(2), 3) // $0.80 covers three
	r.res.KnownCost = 0.99
	is.Equal(r.roundSize(2), 0) // none fits: the run stops before spending
}

// Shared check slots (--parallel, a batch's) bound the candidates whose
// checks run at once: with one slot, two candidates' checks never overlap.
//
// Each check marks itself running (a file running.*) and fails, naming
// the overlap, as soon as it sees another check's mark; it passes only
// once the test releases it, and gives up after about 30 s. The test
// releases the running check only when the other candidate is seen
// waiting for the slot (its goroutine blocked in runChecks' select):
// with the slot shared, the second check can start only after the first
// ended, so neither ever sees the other; without it, nothing holds the
// second check back, both run, and each waits (unreleased) until it sees
// the other: the overlap is observed every time, not by chance.
func TestRoundChecksShareTheSlots(t *testing.T) {
	dir := roundRepo(t)
	shared := t.TempDir()
	cfg := testConfig(t)
	cfg.Dir = dir
	cfg.Checks = []string{`S=` + shared + `; me=$(mktemp "$S/running.XXXXXX"); n=0
while :; do
  for f in "$S"/running.*; do
    if [ "$f" != "$me" ] && [ -e "$f" ]; then echo "overlap: $f ran beside $me"; exit 1; fi
  done
  if [ -e "$S/release" ]; then rm -f "$me"; exit 0; fi
  n=$((n+1)); if [ $n -gt 3000 ]; then echo "never released"; rm -f "$me"; exit 1; fi
  sleep 0.01
done`}
	cfg.Agent, cfg.AgentCmd = "command", "echo fixed > fix.txt"
	cfg.Candidates, cfg.MaxIterations, cfg.CandidatesFinish = 2, 1, "all"
	cfg.CheckTimeout = time.Minute

	released := make(chan bool, 1)
	go func() {
		released <- testutil.Until(40*time.Second, func() bool {
			running, _ := filepath.Glob(filepath.Join(shared, "running.*"))
			return len(running) == 1 && waitingForCheckSlot()
		}) && os.WriteFile(filepath.Join(shared, "release"), nil, 0o600) == nil
	}()
	res, log := runConfig(t, cfg, Deps{CheckSlots: make(chan struct{}, 1)})
	for _, c := range res.Iterations[0].Candidates {
		if c.ChecksPassed != 1 {
			t.Fatalf("candidate %d's check failed (its checks overlapped another's):\n%s", c.N, log)
		}
	}
	if !<-released {
		t.Fatal("no candidate was seen waiting for the check slot")
	}
}

// waitingForCheckSlot reports whether a goroutine of this process waits
// in runChecks' select for a check slot: its top frame is runChecks, and
// it is blocked in a select.
func waitingForCheckSlot() bool {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	for _, g := range strings.Split(string(buf), "\n\n") {
		header, rest, _ := strings.Cut(g, "\n")
		if strings.Contains(header, "[select") && strings.HasPrefix(rest, "github.com/architect-dev/architect/loop.(*runner).runChecks(") {
			return true
		}
	}
	return false
}

// A round costs every candidate's cost: the kept one's, and the losers'.
func TestRoundCost(t *testing.T) {
	is := is.New(t)
	dir := roundRepo(t)
	cfg := testConfig(t)
	cfg.Dir = dir
	cfg.Checks = []string{"grep -q '^fixed$' fix.txt"}
	cfg.Agent, cfg.AgentReportsCost = "command", true
	cfg.AgentCmd = `echo "{\"cost_usd\": 0.$ARCHITECT_CANDIDATE}" > "$ARCHITECT_RESULT_FILE"; if [ "$ARCHITECT_CANDIDATE" = 3 ]; then echo fixed > fix.txt; echo '<promise>COMPLETE</promise>'; fi`
	cfg.Candidates, cfg.MaxIterations, cfg.CandidatesFinish = 3, 1, "all"
	res, _ := runConfig(t, cfg, Deps{})
	is.True(res.Success)
	it := res.Iterations[0]
	is.True(it.Cost != nil)
	if *it.Cost < 0.59 || *it.Cost > 0.61 {
		t.Fatalf("the round cost %v, not 0.1+0.2+0.3", *it.Cost)
	}
	is.True(res.TotalCost != nil && *res.TotalCost > 0.59)
}

// Passing checks are not enough to be kept before a candidate that also
// declared completion, even one with a larger change that finished later.
func TestRoundCompletionComesFirst(t *testing.T) {
	is := is.New(t)
	dir := roundRepo(t)
	script := `echo fixed > fix.txt; if [ "$ARCHITECT_CANDIDATE" = 2 ]; then sleep 0.2; echo notes > notes.txt; echo '<promise>COMPLETE</promise>'; fi`
	cfg := roundConfig(t, dir, script)
	cfg.Candidates, cfg.MaxIterations, cfg.CandidatesFinish = 2, 1, "all"
	res, _ := runConfig(t, cfg, Deps{})
	cs := res.Iterations[0].Candidates
	is.True(cs[1].Kept) // the one that declared completion
	is.True(strings.Contains(cs[0].Why, "declared completion"))
	is.True(res.Success)
}

// A killed iteration's result files (the workspace's, and those a killed
// round's candidates left in their worktrees) are read by the resume and
// removed once the iteration's record is on disk: they may hold an agent's
// words, unredacted, and their cost is in the record now.
func TestResumeRemovesTheKilledResultFiles(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	cfg.Checks = []string{"false"}
	cfg.MaxIterations = 1
	res, _, _ := run(t, cfg, &scripted{outcomes: []agent.Outcome{costly(1, "one")}})
	is.Equal(res.TotalIterations, 1)
	state := filepath.Join(cfg.Dir, runlog.StateDir)
	// What a SIGKILL during iteration 2 (a round) leaves.
	began := time.Now().Add(-time.Minute)
	is.NoErr(runlog.WriteJSONQuick(filepath.Join(state, runlog.InflightFile), runlog.Inflight{Iteration: 2, StartedAt: stampNano(began), UpdatedAt: stampNano(began)}))
	files := []string{filepath.Join(state, runlog.AgentResultFile), filepath.Join(state, CandidatesDir, "1", runlog.StateDir, runlog.AgentResultFile)}
	is.NoErr(os.MkdirAll(filepath.Dir(files[1]), 0o700))
	is.NoErr(os.WriteFile(files[0], []byte(`{"cost_usd": 0.5, "final_message": "the agent's words"}`), 0o600))
	is.NoErr(os.WriteFile(files[1], []byte(`{"cost_usd": 0.25, "final_message": "a candidate's words"}`), 0o600))

	a := &scripted{outcomes: []agent.Outcome{costly(0.1, "three")}}
	res, err := Resume(context.Background(), cfg.Dir, func(c *config.Config) { c.MaxIterations = 2 }, Deps{Agent: a})
	is.NoErr(err)
	is.Equal(a.runs, 0) // the killed iteration was the last: nothing else ran
	recs, err := runlog.ReadRecords(filepath.Join(state, runlog.RecordsFile))
	is.NoErr(err)
	is.Equal(len(recs), 2)
	is.Equal(recs[1].Interrupted, runlog.InterruptKilled)
	is.Equal(*recs[1].Cost, 0.75) // both files were read
	is.Equal(*res.Iterations[1].Cost, 0.75)
	for _, f := range files {
		if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s outlived the record of the iteration it reported (%v)", f, err)
		}
	}
}
