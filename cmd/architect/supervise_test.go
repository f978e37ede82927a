//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/architect-dev/architect/runlog/runlogtest"
	"github.com/matryer/is"
)

// The supervision features seen from outside: the lock, pause, resume and
// cancel from another process, a second interrupt, and SIGKILL at random
// moments followed by --resume. The scripts supervise_*.txtar cover the
// rest (timeouts, waiting, DONE file, done pattern, idle, circuit breaker).

// A second loop on a workspace whose loop is running fails at once with
// exit status 2, naming the holder's pid, and leaves the first run's state
// alone; so does --resume.
func TestLockSecondLoopFails(t *testing.T) {
	is := is.New(t)
	repo, agentDir := loopFixture(t, "touch $WORK/started\nhang\n")
	work := filepath.Dir(agentDir)
	first := startLoop(t, agentDir, "loop", "task", "-C", repo, "--check", "true", "--agent-cmd", "fake-agent")
	waitFile(t, filepath.Join(work, "started"))
	before, err := os.ReadFile(filepath.Join(repo, ".architect", "state.json"))
	is.NoErr(err)

	holder := fmt.Sprintf("another architect loop (pid %d) is running in %s", first.cmd.Process.Pid, repo)
	for _, args := range [][]string{
		{"loop", "task", "-C", repo, "--check", "true", "--agent-cmd", "fake-agent"},
		{"loop", "--resume", "-C", repo},
	} {
		start := time.Now()
		_, stderr, code := architect(t, agentDir, args...)
		is.Equal(code, 2) // usage error
		if !strings.Contains(stderr, "architect: error: "+holder) || !strings.Contains(stderr, "architect: hint: ") {
			t.Fatalf("architect %v: stderr does not name the holder (%q):\n%s", args, holder, stderr)
		}
		if d := time.Since(start); d > 20*time.Second {
			t.Fatalf("architect %v took %s to give up: it should fail at once", args, d)
		}
	}
	after, err := os.ReadFile(filepath.Join(repo, ".architect", "state.json"))
	is.NoErr(err)
	is.Equal(string(after), string(before)) // the first run's state is untouched
	is.True(exists(filepath.Join(work, "started")))
	is.True(!exists(filepath.Join(repo, ".architect", "runs"))) // nothing was archived

	is.NoErr(first.cmd.Process.Signal(syscall.SIGINT))
	is.Equal(first.exit(t, 30*time.Second), 130)
	is.Equal(leftovers(agentDir), []string(nil))
}

// pause, resume and cancel from other processes. The agent of iteration N
// creates started-N and then waits for go-N, so the test decides when each
// iteration ends.
func TestPauseResumeCancel(t *testing.T) {
	is := is.New(t)
	repo, agentDir := loopFixture(t, "touch $WORK/started-$ARCHITECT_ITERATION\nwaitfor $WORK/go-$ARCHITECT_ITERATION\nsay <promise>COMPLETE</promise>\n")
	work := filepath.Dir(agentDir)
	file := func(name string) string { return filepath.Join(work, name) }
	run := func(args ...string) (string, string, int) {
		t.Helper()
		return architect(t, agentDir, append(args, "-C", repo)...)
	}
	// The check passes once the test creates ok: until then the agent's
	// completion tag is not enough.
	loop := startLoop(t, agentDir, "loop", "task", "-C", repo, "--check", "test -f "+file("ok"),
		"--agent-cmd", "fake-agent", "--idle-threshold", "0")
	waitFile(t, file("started-1"))

	stdout, _, code := run("status")
	is.Equal(code, 0)
	is.True(strings.Contains(stdout, "Status: running\n"))
	is.True(strings.Contains(stdout, "Phase: agent\n"))
	is.True(strings.Contains(stdout, "Iteration: 1/25\n"))

	// pause: asked while iteration 1 runs; it takes effect when it ends.
	stdout, _, code = run("pause")
	is.Equal(code, 0)
	is.Equal(stdout, "paused ralph loop for "+repo+"\n")
	stdout, stderr, code := run("pause")
	is.Equal(code, 0)
	is.Equal(stdout, "")
	is.Equal(stderr, "architect: warning: ralph loop for "+repo+" is already paused\n")
	touch(t, file("go-1"))
	loop.waitOutput(t, "paused: the loop waits for `architect resume`")
	stdout, _, code = run("status")
	is.Equal(code, 0)
	is.True(strings.Contains(stdout, "Status: paused\n"))
	is.True(strings.Contains(stdout, "Iteration: 1/25\n"))
	is.True(!exists(file("started-2"))) // no new iteration while paused
	_, stderr, _ = run("pause")
	is.True(strings.Contains(stderr, "is already paused"))

	// resume: the loop goes on with iteration 2.
	stdout, _, code = run("resume")
	is.Equal(code, 0)
	is.Equal(stdout, "resumed ralph loop for "+repo+"\n")
	waitFile(t, file("started-2"))
	loop.waitOutput(t, "resumed\n")
	stdout, _, _ = run("status")
	is.True(strings.Contains(stdout, "Status: running\n"))
	_, stderr, code = run("resume")
	is.Equal(code, 0)
	is.Equal(stderr, "architect: warning: ralph loop for "+repo+" is not paused\n")

	// cancel: the running loop stops gracefully with 130, saying who asked
	// (not telling the user to send the signal again); iteration 2,
	// interrupted, is recorded as such.
	stdout, _, code = run("cancel")
	is.Equal(code, 0)
	is.Equal(stdout, fmt.Sprintf("cancelled ralph loop for %s (pid %d)\n", repo, loop.cmd.Process.Pid))
	is.Equal(loop.exit(t, 30*time.Second), 130)
	is.True(strings.Contains(loop.stderr.String(), "architect: `architect cancel` asked this loop to stop: stopping gracefully"))
	is.True(!strings.Contains(loop.stderr.String(), "send it again"))
	is.Equal(leftovers(agentDir), []string(nil))
	res := runlogtest.Result(t, repo)
	is.Equal(res.StopReason, "cancelled")
	is.Equal(res.TotalIterations, 2)
	is.Equal(res.Iterations[1].Interrupted, "signal")

	// status --json on the finished run.
	stdout, _, code = run("status", "--json")
	is.Equal(code, 0)
	var st map[string]any
	is.NoErr(json.Unmarshal([]byte(stdout), &st))
	is.Equal(st["status"], "stopped")
	is.Equal(st["stop_reason"], "cancelled")
	is.Equal(st["running"], false)
	is.Equal(st["active"], false)
	is.Equal(st["pid"], float64(loop.cmd.Process.Pid))
	is.Equal(st["max_iterations"], 25.0)
	stdout, _, _ = run("status")
	is.True(strings.Contains(stdout, "Status: stopped\n"))
	is.True(strings.Contains(stdout, "Stop reason: cancelled\n"))
	is.True(!strings.Contains(stdout, "Phase:")) // only shown while running

	// Nothing is running now.
	_, stderr, code = run("cancel")
	is.Equal(code, 0)
	is.Equal(stderr, "architect: warning: ralph loop for "+repo+" is not running\n")
	_, stderr, code = run("pause")
	is.Equal(code, 2)
	is.True(strings.Contains(stderr, "architect: error: no loop is running in "+repo))

	// resume on a stopped run restarts it in the foreground, knowing that
	// iteration 2 was interrupted: iteration 3 runs and, the check now
	// passing, the run succeeds.
	touch(t, file("ok"))
	touch(t, file("go-3"))
	stdout, stderr, code = run("resume")
	is.Equal(code, 0)
	is.Equal(stdout, "resumed ralph loop for "+repo+"\n")
	is.True(strings.Contains(stderr, "resuming after iteration 2 of 25"))
	is.True(strings.Contains(stderr, "iteration 2 was interrupted (the run was cancelled) before its checks ran"))
	is.True(strings.Contains(stderr, "success: "))
	is.True(!strings.Contains(stderr, "iteration 2/25: running"))
	is.Equal(recordedIterations(t, repo), []int{1, 2, 3})
	is.Equal(runlogtest.State(t, repo).Status, "succeeded")
	_, stderr, code = run("resume")
	is.Equal(code, 2)
	is.True(strings.Contains(stderr, "already succeeded; there is nothing to resume"))
	is.Equal(leftovers(agentDir), []string(nil))
}

// A first SIGINT stops the loop gracefully: the agent gets SIGTERM and the
// grace period; an agent that ignores SIGTERM keeps running. A second
// SIGINT kills it at once: architect exits 130 long before the grace
// period ends, and nothing is left behind.
func TestSecondInterruptKills(t *testing.T) {
	is := is.New(t)
	repo, agentDir := loopFixture(t, "ignoreterm $WORK/termed\ntouch $WORK/started\nhang\n")
	work := filepath.Dir(agentDir)
	loop := startLoop(t, agentDir, "loop", "task", "-C", repo, "--check", "true", "--agent-cmd", "fake-agent", "--kill-grace", "60s")
	waitFile(t, filepath.Join(work, "started"))

	is.NoErr(loop.cmd.Process.Signal(syscall.SIGINT))
	loop.waitOutput(t, "architect: sigint received: stopping (send it again to kill the agent and checks at once)")
	loop.waitFile(t, filepath.Join(work, "termed")) // the agent got SIGTERM ...
	select {
	case <-loop.done:
		t.Fatalf("architect exited after one SIGINT, within the grace period; stderr:\n%s", loop.stderr)
	default:
	}
	agentAlive := false
	for _, p := range leftovers(agentDir) {
		agentAlive = agentAlive || strings.Contains(p, "fake-agent")
	}
	is.True(agentAlive) // ... and runs on

	start := time.Now()
	is.NoErr(loop.cmd.Process.Signal(syscall.SIGINT))
	is.Equal(loop.exit(t, 40*time.Second), 130)
	if d := time.Since(start); d > 30*time.Second { // the grace period is 60 s
		t.Fatalf("architect took %s to exit after the second SIGINT", d)
	}
	is.True(strings.Contains(loop.stderr.String(), "architect: killing the agent and checks now"))
	is.Equal(leftovers(agentDir), []string(nil))
	res := runlogtest.Result(t, repo)
	is.Equal(res.StopReason, "cancelled")
	is.Equal(res.TotalIterations, 1) // the interrupted iteration is on the record
	is.Equal(res.Iterations[0].Interrupted, "signal")
}

// recordedIterations returns the iteration numbers in iterations.jsonl, in
// order.
func recordedIterations(t *testing.T, repo string) []int {
	t.Helper()
	var out []int
	for _, r := range runlogtest.Records(t, repo) {
		out = append(out, r.Iteration.Iteration)
	}
	return out
}

// faultIterations is the number of steps of the scripted loop of
// TestKillAndResume.
const faultIterations = 4

// SIGKILL architect at random moments of a scripted loop, resume each
// time at once, and check that the finished run is consistent: every
// iteration recorded once and in order (one interrupted by a kill among
// them, for each kill that hit an iteration), one progress entry per
// record, the state and the result agreeing with the records, the working
// tree as the script leaves it, no cost an agent reported missing; that no
// two agents ever ran at once (each holds a lock while it runs), and that
// nothing is left running at the end.
//
// Each iteration writes the first of step-1..4.txt that is missing (an
// iteration killed before it wrote it leaves the step to the next one);
// the check passes once all four exist, and the iteration that finds them
// all there prints the completion tag. Each first reports its cost, $0.25,
// and then notes in a ledger that it did: every iteration in the ledger
// must have its $0.25 on the record, killed or not. Iteration 2 leaves
// processes behind every way (fake-agent's escape). A kill is of architect alone,
// of its process group, or of architect and its supervisor (which the
// resume must then make up for), at random; the runs alternate between a
// run cgroup and none. The CI kills about 30 times;
// ARCHITECT_FAULT_CAMPAIGN=full at least 50.
func TestKillAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and resumes 20 loops")
	}
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("ARCHITECT_FAULT_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("seed %d (set ARCHITECT_FAULT_SEED to repeat)", seed)

	// How long an undisturbed run takes sets the range of the kill delays.
	repo, agentDir := faultFixture(t)
	began := time.Now()
	p := startLoop(t, agentDir, faultArgs(repo, false)...)
	is.New(t).Equal(p.exit(t, 60*time.Second), 0)
	span := time.Since(began)
	checkConsistent(t, repo, 0)
	t.Logf("an undisturbed run takes %s", span.Round(time.Millisecond))

	minKills := 0
	if campaign() {
		minKills = 50
	}
	// The runs go two at a time (go test's -parallel, GOMAXPROCS by
	// default): a run mostly waits for its processes. Each run draws its
	// kills from its own generator, seeded from the seed and its number.
	var mu sync.Mutex
	kills, resumes, runs := 0, 0, 0
	styles := map[string]int{}
	for round := 0; runs < 20 || kills < minKills; round++ {
		if runs > 200 {
			t.Fatalf("only %d kills in %d runs", kills, runs)
		}
		n := max(20-runs, 10)
		t.Run(fmt.Sprintf("round%d", round), func(t *testing.T) {
			for run := runs; run < runs+n; run++ {
				t.Run(fmt.Sprintf("run%d", run), func(t *testing.T) {
					t.Parallel()
					k, r, st := faultRun(t, run, rand.New(rand.NewPCG(seed, uint64(run)+1)), span)
					mu.Lock()
					defer mu.Unlock()
					kills, resumes = kills+k, resumes+r
					for style, c := range st {
						styles[style] += c
					}
				})
			}
		})
		runs += n
		if t.Failed() {
			return
		}
	}
	t.Logf("%d runs, %d kills %v, %d resumes: nothing left behind, no two agents at once", runs, kills, styles, resumes)
}

// faultRun is one run of TestKillAndResume: started, killed up to three
// times at random moments (drawn from rng within span) and resumed, until
// it succeeds. It returns how many kills and resumes there were, and the
// kills by style.
func faultRun(t *testing.T, run int, rng *rand.Rand, span time.Duration) (kills, resumes int, styles map[string]int) {
	styles = map[string]int{}
	repo, agentDir := faultFixture(t)
	work := filepath.Dir(agentDir)
	env := modeEnv(containModes[run%2])
	for attempt := 0; ; attempt++ {
		if attempt > 10 {
			t.Fatalf("run %d: no success after %d attempts", run, attempt)
		}
		statePath := filepath.Join(repo, ".architect", "state.json")
		resume := exists(statePath)
		if resume && runlogtest.State(t, repo).Status == "succeeded" {
			break // killed after saving its final state, before exiting
		}
		if resume {
			resumes++
		}
		p := startLoopEnv(t, agentDir, env, faultArgs(repo, resume)...)
		// Up to three kills per run, each at a random moment of what is
		// left of it.
		if attempt < 3 && rng.IntN(4) != 0 {
			delay := time.Duration(rng.Int64N(int64(span)))
			style := []string{"architect", "group", "with supervisor"}[rng.IntN(3)]
			select {
			case <-p.done:
			case <-time.After(delay):
				sup := 0
				if style == "with supervisor" && exists(statePath) {
					if sup = supervisorOf(t, repo); sup > 0 {
						_ = syscall.Kill(sup, syscall.SIGSTOP)
					}
				}
				if style == "group" {
					_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
				} else {
					_ = syscall.Kill(p.cmd.Process.Pid, syscall.SIGKILL)
				}
				<-p.done
				if sup > 0 {
					_ = syscall.Kill(sup, syscall.SIGKILL)
				}
				kills++
				styles[style]++
				continue // resumed at once: the resume ends what is left
			}
		}
		code := p.exit(t, 60*time.Second)
		if code != 0 {
			t.Fatalf("run %d, attempt %d (resume %v): exit %d; stderr:\n%s", run, attempt, resume, code, p.stderr)
		}
		break
	}
	if exists(filepath.Join(work, "agent.lock.two")) {
		t.Fatalf("run %d: two agents ran at once", run)
	}
	if left := leftovers(agentDir); len(left) > 0 {
		t.Fatalf("run %d: processes left behind: %v", run, left)
	}
	checkConsistent(t, repo, kills)
	return kills, resumes, styles
}

func faultFixture(t *testing.T) (repo, agentDir string) {
	t.Helper()
	step := fmt.Sprintf("single $WORK/agent.lock\ncost 0.25\nreport\nappend $WORK/ledger $ARCHITECT_ITERATION\nnext step %d\n", faultIterations)
	repo, agentDir = loopFixture(t, step)
	if err := os.WriteFile(filepath.Join(agentDir, "iter-2.txt"), []byte("escape $WORK/pids\n"+step), 0o644); err != nil {
		t.Fatal(err)
	}
	return repo, agentDir
}

func faultArgs(repo string, resume bool) []string {
	if resume {
		return []string{"loop", "--resume", "-C", repo}
	}
	check := ""
	for k := 1; k <= faultIterations; k++ {
		check += fmt.Sprintf("test -f step-%d.txt && ", k)
	}
	return []string{"loop", "task", "-C", repo, "--agent-cmd", "fake-agent", "--check", check + "true",
		"--max-iterations", "12", "--idle-threshold", "0", "--kill-grace", "1s"}
}

// checkConsistent checks a run of faultFixture's loop that ended in
// success after kills SIGKILLs.
func checkConsistent(t *testing.T, repo string, kills int) {
	t.Helper()
	got := recordedIterations(t, repo)
	n := len(got)
	for i, it := range got {
		if it != i+1 {
			t.Fatalf("iterations.jsonl holds iterations %v: not 1..%d, each once", got, n)
		}
	}
	res := runlogtest.Result(t, repo)
	its := res.Iterations
	interrupted := 0
	for i, it := range its {
		if n := it.Iteration; n != i+1 {
			t.Fatalf("result.json iterations[%d] is iteration %v", i, n)
		}
		switch it.Interrupted {
		case "":
		case "killed":
			interrupted++
			if it.ChecksRun {
				t.Fatalf("iteration %d, interrupted by a kill, says its checks ran", i+1)
			}
		default:
			t.Fatalf("iteration %d interrupted by %v", i+1, it.Interrupted)
		}
	}
	if interrupted > kills || n != faultIterations+interrupted && n != faultIterations+interrupted+1 {
		// Each completed iteration wrote a step, the last found them all;
		// an interrupted one may have written its step or not.
		if n < faultIterations || n > faultIterations+1+interrupted || interrupted > kills {
			t.Fatalf("%d iterations, %d interrupted, after %d kills", n, interrupted, kills)
		}
	}
	// No cost undercounted: every iteration whose agent reported its cost
	// has it on the record, and the total is the sum of the records.
	ledger, _ := os.ReadFile(filepath.Join(filepath.Dir(repo), "ledger"))
	for _, l := range strings.Fields(string(ledger)) {
		k, _ := strconv.Atoi(l)
		if k < 1 || k > n {
			t.Fatalf("the ledger names iteration %d of %d", k, n)
		}
		if c := its[k-1].Cost; c == nil || *c != 0.25 {
			rec, _ := json.Marshal(its[k-1])
			t.Fatalf("iteration %d reported $0.25 but its record says otherwise: %s\nledger %q", k, rec, ledger)
		}
	}
	sum := 0.0
	for _, it := range its {
		if it.Cost != nil {
			sum += *it.Cost
		}
	}
	if k := res.KnownCost; k < sum-1e-9 || k > sum+1e-9 {
		t.Fatalf("known_cost %v, the records sum to %v", k, sum)
	}
	progress, err := os.ReadFile(filepath.Join(repo, ".architect", "ralph-progress.md"))
	if err != nil {
		t.Fatal(err)
	}
	var headings []string
	for _, m := range regexp.MustCompile(`(?m)^## Iteration (\d+) — (PASS|FAIL)$`).FindAllStringSubmatch(string(progress), -1) {
		headings = append(headings, m[1]+" "+m[2])
	}
	var want []string
	for k := 1; k <= n; k++ {
		want = append(want, fmt.Sprintf("%d %s", k, map[bool]string{true: "PASS", false: "FAIL"}[k == n]))
	}
	if fmt.Sprint(headings) != fmt.Sprint(want) {
		t.Fatalf("progress headings %q, want %q; progress:\n%s", headings, want, progress)
	}
	st := runlogtest.State(t, repo)
	if st.Status != "succeeded" || st.Active || st.Iteration != n || st.StopReason != "all_checks_passed" {
		t.Fatalf("state.json: status %s, active %v, iteration %d, stop_reason %s; want succeeded, false, %d, all_checks_passed",
			st.Status, st.Active, st.Iteration, st.StopReason, n)
	}
	if !res.Success || res.TotalIterations != n || res.StopReason != "all_checks_passed" {
		t.Fatalf("result.json: success %v, total_iterations %d, stop_reason %s; want true, %d, all_checks_passed",
			res.Success, res.TotalIterations, res.StopReason, n)
	}
	if sig := its[n-1].CompletionSignal; sig != "tag" {
		t.Fatalf("result.json: the last iteration's completion signal is %v, want tag", sig)
	}
	// The working tree: the committed file and exactly step-1..4.txt.
	status := exec.Command("git", "-C", repo, "status", "--porcelain", "--untracked-files=all")
	status.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := status.Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := string(out); got != "?? step-1.txt\n?? step-2.txt\n?? step-3.txt\n?? step-4.txt\n" {
		t.Fatalf("git status:\n%s", got)
	}
	for k := 1; k <= faultIterations; k++ {
		b, err := os.ReadFile(filepath.Join(repo, fmt.Sprintf("step-%d.txt", k)))
		if err != nil || string(b) != strconv.Itoa(k) {
			t.Fatalf("step-%d.txt: %q, %v", k, b, err)
		}
	}
}

// A run killed after recording its last, successful iteration but before
// saving its final state (the state says running, phase "recorded"; no
// result yet) is finished by --resume as the success it was, without
// running another iteration.
func TestResumeAfterSuccessRecorded(t *testing.T) {
	is := is.New(t)
	repo, agentDir := faultFixture(t)
	p := startLoop(t, agentDir, faultArgs(repo, false)...)
	is.Equal(p.exit(t, 60*time.Second), 0)

	// What the run had written when it was killed.
	st := runlogtest.State(t, repo)
	st.Status, st.Active, st.Phase = "running", true, "recorded"
	st.StopReason = ""
	data, err := json.Marshal(st)
	is.NoErr(err)
	is.NoErr(os.WriteFile(filepath.Join(repo, ".architect", "state.json"), data, 0o600))
	is.NoErr(os.Remove(filepath.Join(repo, ".architect", "result.json")))

	_, stderr, code := architect(t, agentDir, faultArgs(repo, true)...)
	if code != 0 {
		t.Fatalf("resume: exit %d; stderr:\n%s", code, stderr)
	}
	is.True(!strings.Contains(stderr, "iteration 6/"))
	checkConsistent(t, repo, 0)
}
