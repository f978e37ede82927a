//go:build unix

package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/architect-dev/architect/internal/testutil"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/runlog/runlogtest"
	"github.com/matryer/is"
	"github.com/rogpeppe/go-internal/testscript"
)

// jsonAt is the JSON value at path (dot-separated, numbers index arrays)
// in file, as jsonget walks it; ok is false when the path leads nowhere.
func jsonAt(ts *testscript.TestScript, file, path string) (v any, ok bool) {
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(file)), &v))
	for _, part := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			if v, ok = x[part]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// jsonlen FILE PATH N: the JSON array at PATH in FILE has N elements.
func cmdJSONLen(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: jsonlen FILE PATH N")
	}
	want, err := strconv.Atoi(args[2])
	ts.Check(err)
	v, ok := jsonAt(ts, args[0], args[1])
	a, isArray := v.([]any)
	if !ok || !isArray {
		ts.Fatalf("%s: %v is not an array", args[1], v)
	}
	if (len(a) == want) == neg {
		ts.Fatalf("%s has %d elements, want %s%d", args[1], len(a), map[bool]string{true: "not "}[neg], want)
	}
}

// jsonrange FILE PATH MIN MAX: the JSON value at PATH in FILE is a number
// from MIN to MAX (both included).
func cmdJSONRange(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 4 {
		ts.Fatalf("usage: jsonrange FILE PATH MIN MAX")
	}
	lo, err := strconv.ParseFloat(args[2], 64)
	ts.Check(err)
	hi, err := strconv.ParseFloat(args[3], 64)
	ts.Check(err)
	v, ok := jsonAt(ts, args[0], args[1])
	f, isNumber := v.(float64)
	if !ok || !isNumber {
		ts.Fatalf("%s: %v is not a number", args[1], v)
	}
	if (lo <= f && f <= hi) == neg {
		ts.Fatalf("%s = %v, want %sin [%v, %v]", args[1], f, map[bool]string{true: "not "}[neg], lo, hi)
	}
}

// SIGKILL in the middle of a round of three candidates, then a resume:
// nothing of the killed round runs on, the resumed run redoes the round
// once (the killed one on the record as interrupted: killed), never beside
// the killed round's agents, and once it has ended no candidate worktree
// is left. "supervisor": the run's supervisor ends the killed round's
// processes; "nosupervisor": it is stopped and killed too, so the resume
// must end them before it starts the round again.
func TestCandidatesKillNineResume(t *testing.T) {
	for _, mode := range []string{"supervisor", "nosupervisor"} {
		t.Run(mode, func(t *testing.T) {
			is := is.New(t)
			// Each candidate holds a lock of its own number while it runs
			// (a second holder would make lock-K.two), notes its round,
			// leaves a process in a session of its own, and hangs.
			repo, agentDir := loopFixture(t, "single $WORK/lock-$ARCHITECT_CANDIDATE\n"+
				"append $WORK/runs-$ARCHITECT_CANDIDATE $ARCHITECT_ITERATION\n"+
				"spawn $WORK/child-$ARCHITECT_CANDIDATE.pid\n"+
				"touch $WORK/started-$ARCHITECT_CANDIDATE\n"+
				"hang\n")
			work := filepath.Dir(agentDir)
			file := func(name string) string { return filepath.Join(work, name) }
			p := startLoop(t, agentDir, "loop", "task", "-C", repo, "--check", "true", "--agent-cmd", "fake-agent",
				"--candidates", "3", "--candidates-finish", "all", "--max-iterations", "3", "--kill-grace", "1s")
			var children []int
			for k := 1; k <= 3; k++ {
				p.waitFile(t, file("started-"+strconv.Itoa(k)))
				children = append(children, pidIn(t, p, file("child-"+strconv.Itoa(k)+".pid")))
			}

			sup := supervisorOf(t, repo)
			if mode == "nosupervisor" {
				is.True(sup > 0) // the run has a supervisor to put out of action
				is.NoErr(syscall.Kill(sup, syscall.SIGSTOP))
			}
			is.NoErr(syscall.Kill(p.cmd.Process.Pid, syscall.SIGKILL)) // architect alone
			<-p.done
			if mode == "nosupervisor" {
				is.NoErr(syscall.Kill(sup, syscall.SIGKILL))
				t.Cleanup(func() { _ = syscall.Kill(sup, syscall.SIGKILL) })
				for _, pid := range children {
					is.True(testutil.Alive(pid)) // the killed round's processes live on
				}
			} else {
				goneWithin(t, agentDir, children, 5*time.Second, "after kill -9 of architect mid-round")
			}

			// The resumed round's candidates declare completion at once.
			is.NoErr(os.WriteFile(filepath.Join(agentDir, "default.txt"), []byte("single $WORK/lock-$ARCHITECT_CANDIDATE\n"+
				"append $WORK/runs-$ARCHITECT_CANDIDATE $ARCHITECT_ITERATION\n"+
				"say <promise>COMPLETE</promise>\n"), 0o644))
			_, stderr, code := architect(t, agentDir, "loop", "--resume", "-C", repo)
			for k := 1; k <= 3; k++ {
				if exists(file("lock-" + strconv.Itoa(k) + ".two")) {
					t.Fatalf("candidate %d of the resumed round ran beside the killed round's; stderr:\n%s", k, stderr)
				}
			}
			if code != 0 {
				t.Fatalf("resume: exit %d; stderr:\n%s", code, stderr)
			}

			// Each candidate ran twice: in the killed round, and once in
			// its redo.
			for k := 1; k <= 3; k++ {
				b, err := os.ReadFile(file("runs-" + strconv.Itoa(k)))
				is.NoErr(err)
				is.Equal(string(b), "1\n2\n")
			}
			is.Equal(recordedIterations(t, repo), []int{1, 2})
			res := runlogtest.Result(t, repo)
			is.Equal(res.Iterations[0].Interrupted, "killed")
			is.True(res.Success)
			is.Equal(len(res.Iterations[1].Candidates), 3)
			kept := 0
			for _, c := range res.Iterations[1].Candidates {
				if c.Kept {
					kept++
				}
			}
			is.Equal(kept, 1)

			// Nothing of either run runs, and no candidate worktree is
			// left registered.
			goneWithin(t, agentDir, children, 5*time.Second, "after the resumed run")
			git := exec.Command("git", "-C", repo, "worktree", "list", "--porcelain")
			git.Env = append(os.Environ(), fixtureGitEnv(agentDir)...)
			out, err := git.CombinedOutput()
			is.NoErr(err)
			if strings.Contains(string(out), filepath.Join(runlog.StateDir, "candidates")) {
				t.Fatalf("candidate worktrees left after the run ended:\n%s", out)
			}
		})
	}
}

// Ctrl-C (SIGINT) in the middle of a round stops every candidate, and what
// each started in a session of its own, prints the result and exits 130;
// no candidate worktree stays registered.
func TestCandidatesInterruptStopsAll(t *testing.T) {
	is := is.New(t)
	repo, agentDir := loopFixture(t, "spawn $WORK/child-$ARCHITECT_CANDIDATE.pid\ntouch $WORK/started-$ARCHITECT_CANDIDATE\nhang\n")
	work := filepath.Dir(agentDir)
	p := startLoop(t, agentDir, "loop", "task", "-C", repo, "--check", "true", "--agent-cmd", "fake-agent", "--candidates", "3")
	var children []int
	for k := 1; k <= 3; k++ {
		p.waitFile(t, filepath.Join(work, "started-"+strconv.Itoa(k)))
		children = append(children, pidIn(t, p, filepath.Join(work, "child-"+strconv.Itoa(k)+".pid")))
	}

	is.NoErr(p.cmd.Process.Signal(syscall.SIGINT))
	is.Equal(p.exit(t, 10*time.Second), 130)
	is.True(strings.Contains(p.stderr.String(), "stopped on cancelled"))
	goneWithin(t, agentDir, children, 5*time.Second, "after SIGINT mid-round")
	is.Equal(runlogtest.Result(t, repo).StopReason, "cancelled")
	git := exec.Command("git", "-C", repo, "worktree", "list", "--porcelain")
	git.Env = append(os.Environ(), fixtureGitEnv(agentDir)...)
	out, err := git.CombinedOutput()
	is.NoErr(err)
	if strings.Contains(string(out), filepath.Join(runlog.StateDir, "candidates")) {
		t.Fatalf("candidate worktrees left after the run ended:\n%s", out)
	}
}

// pidIn waits until the file at path holds a pid (fake-agent's spawn
// writes it from the process it started, after the agent has gone on) and
// returns it.
func pidIn(t *testing.T, p *loopProc, path string) int {
	t.Helper()
	pid := 0
	p.await(t, path+" holding a pid", func() bool {
		b, _ := os.ReadFile(path)
		n, err := strconv.Atoi(strings.TrimSpace(string(b)))
		pid = n
		return err == nil && n > 0
	})
	return pid
}

// gitWorktrees is `git worktree list --porcelain` of repo: the folder of
// each worktree git has registered, the main checkout first.
func gitWorktrees(t *testing.T, agentDir, repo string) []string {
	t.Helper()
	git := exec.Command("git", "-C", repo, "worktree", "list", "--porcelain")
	git.Env = append(os.Environ(), fixtureGitEnv(agentDir)...)
	out, err := git.CombinedOutput()
	if err != nil {
		t.Fatalf("git worktree list: %v\n%s", err, out)
	}
	var paths []string
	for _, line := range strings.Split(string(out), "\n") {
		if p, ok := strings.CutPrefix(line, "worktree "); ok {
			paths = append(paths, p)
		}
	}
	return paths
}

// gitIn runs git in repo with the fixture's configuration.
func gitIn(t *testing.T, agentDir, repo string, args ...string) {
	t.Helper()
	git := exec.Command("git", append([]string{"-C", repo}, args...)...)
	git.Env = append(os.Environ(), fixtureGitEnv(agentDir)...)
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// A run killed with SIGKILL in the middle of a round and never resumed
// leaves its candidates' worktrees registered with git; `architect clean`
// removes them and says so, and leaves the main checkout and the user's
// own worktrees (on a branch, and detached) as they are. While a run
// runs, clean leaves its candidates alone.
func TestCandidatesCleanAfterKill(t *testing.T) {
	is := is.New(t)
	repo, agentDir := loopFixture(t, "touch $WORK/started-$ARCHITECT_CANDIDATE\nhang\n")
	work := filepath.Dir(agentDir)
	mine, detached := filepath.Join(work, "mine"), filepath.Join(work, "detached")
	gitIn(t, agentDir, repo, "worktree", "add", "-q", "-b", "mine", mine)
	gitIn(t, agentDir, repo, "worktree", "add", "-q", "--detach", detached)
	before := gitWorktrees(t, agentDir, repo)
	is.Equal(len(before), 3)

	p := startLoop(t, agentDir, "loop", "task", "-C", repo, "--check", "true", "--agent-cmd", "fake-agent",
		"--candidates", "2", "--candidates-finish", "all", "--max-iterations", "3", "--kill-grace", "1s")
	for k := 1; k <= 2; k++ {
		p.waitFile(t, filepath.Join(work, "started-"+strconv.Itoa(k)))
	}
	candidates := filepath.Join(repo, runlog.StateDir, "candidates")
	is.Equal(len(gitWorktrees(t, agentDir, repo)), 5) // the round's two candidates are registered

	// While the run runs, its candidates stay.
	_, stderr, code := architect(t, agentDir, "clean", "-C", repo)
	is.True(code != 0) // no worktree run's branch to clean, nothing removed
	is.True(strings.Contains(stderr, "kept candidate worktree"))
	is.Equal(len(gitWorktrees(t, agentDir, repo)), 5)

	is.NoErr(syscall.Kill(p.cmd.Process.Pid, syscall.SIGKILL))
	<-p.done
	is.Equal(len(gitWorktrees(t, agentDir, repo)), 5) // what the kill left

	_, stderr, code = architect(t, agentDir, "clean", "-C", repo)
	if code != 0 {
		t.Fatalf("clean: exit %d; stderr:\n%s", code, stderr)
	}
	for k := 1; k <= 2; k++ {
		want := "removed candidate worktree " + filepath.Join(runlog.StateDir, "candidates", strconv.Itoa(k))
		if !strings.Contains(stderr, want) {
			t.Fatalf("clean did not say %q; stderr:\n%s", want, stderr)
		}
	}
	is.Equal(gitWorktrees(t, agentDir, repo), before) // the main checkout and the user's worktrees, nothing else
	if _, err := os.Stat(candidates); !errors.Is(err, os.ErrNotExist) {
		entries, _ := os.ReadDir(candidates)
		t.Fatalf("%s is still there (%v), holding %v", candidates, err, entries)
	}
	for _, dir := range []string{mine, detached} {
		is.True(exists(filepath.Join(dir, "file.txt"))) // the user's worktrees keep their files
	}
	is.True(exists(filepath.Join(repo, runlog.StateDir, runlog.StateFile))) // and the run its records

	// Nothing left to clean: clean says so as before.
	_, stderr, code = architect(t, agentDir, "clean", "-C", repo)
	is.True(code != 0)
	is.True(strings.Contains(stderr, "there is no branch"))
}

// `architect clean` of a --worktree run killed mid-round removes its
// candidates' worktrees before it moves the run's records to
// .architect/runs/: moved with them, they would stay registered at their
// old place, their files in the archive.
func TestCandidatesCleanWorktreeRun(t *testing.T) {
	is := is.New(t)
	repo, agentDir := loopFixture(t, "touch $WORK/started-$ARCHITECT_CANDIDATE\nhang\n")
	work := filepath.Dir(agentDir)
	p := startLoop(t, agentDir, "loop", "task", "-C", repo, "--check", "true", "--agent-cmd", "fake-agent", "--worktree",
		"--candidates", "2", "--candidates-finish", "all", "--max-iterations", "3", "--kill-grace", "1s")
	for k := 1; k <= 2; k++ {
		p.waitFile(t, filepath.Join(work, "started-"+strconv.Itoa(k)))
	}
	is.NoErr(syscall.Kill(p.cmd.Process.Pid, syscall.SIGKILL))
	<-p.done
	is.Equal(len(gitWorktrees(t, agentDir, repo)), 4) // the main checkout, the run's worktree, two candidates

	_, stderr, code := architect(t, agentDir, "clean", "-C", repo, "--force")
	if code != 0 {
		t.Fatalf("clean: exit %d; stderr:\n%s", code, stderr)
	}
	is.True(strings.Contains(stderr, "removed candidate worktree"))
	is.Equal(len(gitWorktrees(t, agentDir, repo)), 1)
	archived, err := filepath.Glob(filepath.Join(repo, runlog.StateDir, "runs", "*", runlog.StateFile))
	is.NoErr(err)
	is.Equal(len(archived), 1) // the run's records were kept
	if _, err := os.Stat(filepath.Join(filepath.Dir(archived[0]), "candidates")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the archived records hold the candidates' worktrees (%v)", err)
	}
}

// A run resumed with fewer candidates than the killed session ran removes,
// when it ends, the worktrees of those it no longer runs too.
func TestCandidatesResumeFewerRemovesAll(t *testing.T) {
	is := is.New(t)
	repo, agentDir := loopFixture(t, "touch $WORK/started-$ARCHITECT_CANDIDATE\nhang\n")
	work := filepath.Dir(agentDir)
	p := startLoop(t, agentDir, "loop", "task", "-C", repo, "--check", "true", "--agent-cmd", "fake-agent",
		"--candidates", "3", "--candidates-finish", "all", "--max-iterations", "3", "--kill-grace", "1s")
	for k := 1; k <= 3; k++ {
		p.waitFile(t, filepath.Join(work, "started-"+strconv.Itoa(k)))
	}
	is.NoErr(syscall.Kill(p.cmd.Process.Pid, syscall.SIGKILL))
	<-p.done
	is.Equal(len(gitWorktrees(t, agentDir, repo)), 4)

	is.NoErr(os.WriteFile(filepath.Join(agentDir, "default.txt"), []byte("say <promise>COMPLETE</promise>\n"), 0o644))
	_, stderr, code := architect(t, agentDir, "loop", "--resume", "-C", repo, "--candidates", "2")
	if code != 0 {
		t.Fatalf("resume: exit %d; stderr:\n%s", code, stderr)
	}
	if wts := gitWorktrees(t, agentDir, repo); len(wts) != 1 {
		t.Fatalf("worktrees left after the resumed run ended: %v", wts)
	}
	is.True(!exists(filepath.Join(repo, runlog.StateDir, "candidates")))
}

// lessonsSection is the section on the other candidates of the prompt in
// file ("" when it has none): from its heading to the next one.
func lessonsSection(t *testing.T, file string) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(data), "## What the Other Candidates Tried\n")
	if !ok {
		return ""
	}
	if i := strings.Index(after, "\n## "); i >= 0 {
		after = after[:i]
	}
	return after
}

// A run with --candidates-lessons on killed with SIGKILL in the middle of
// round 2 and resumed: the redo of round 2 gets, in its prompt, the same
// section on round 1's losing candidates as the killed round 2 had (each
// part within its 2 KB, though a loser's check printed 100 KB).
func TestCandidatesLessonsSurviveResume(t *testing.T) {
	is := is.New(t)
	repo, agentDir := loopFixture(t, "")
	work := filepath.Dir(agentDir)
	is.NoErr(os.WriteFile(filepath.Join(work, "check.sh"), []byte(`case $1 in
A)
	test -f pass-A && exit 0
	echo "CHECK-A-FIRST-LINE: pass-A is missing"
	if [ -f big.txt ]; then for i in 1 2 3 4; do head -c 25000 /dev/zero | tr '\0' N; echo; done; fi
	exit 1 ;;
B)
	echo "CHECK-B-SAYS-NO"; exit 1 ;;
esac
`), 0o644))
	// Round 1: candidate 2 passes check A and is kept; candidate 1 made
	// big.txt. Round 2 waits until the test resumes the run.
	is.NoErr(os.WriteFile(filepath.Join(work, "agent.sh"), []byte(`if [ "$ARCHITECT_ITERATION" = 1 ]; then
	case $ARCHITECT_CANDIDATE in 1) echo big > big.txt ;; 2) touch pass-A ;; esac
	echo "worked on it"; exit 0
fi
touch "$WORK/round-$ARCHITECT_ITERATION-$ARCHITECT_CANDIDATE"
[ -f "$WORK/resumed" ] || exec sleep 600
echo "tried again"
`), 0o644))
	args := []string{"-C", repo, "--check", "sh $WORK/check.sh A", "--check", "sh $WORK/check.sh B", "--agent-cmd", "sh $WORK/agent.sh",
		"--candidates", "2", "--candidates-finish", "all", "--candidates-lessons", "on", "--kill-grace", "1s"}
	p := startLoop(t, agentDir, append([]string{"loop", "task", "--max-iterations", "3"}, args...)...)
	for k := 1; k <= 2; k++ {
		p.waitFile(t, filepath.Join(work, "round-2-"+strconv.Itoa(k)))
	}
	prompts := filepath.Join(repo, runlog.StateDir, "prompts")
	killed := lessonsSection(t, filepath.Join(prompts, "iteration-2.md"))
	if !strings.Contains(killed, "### Candidate 1 ") || !strings.Contains(killed, "big.txt") || !strings.Contains(killed, "CHECK-A-FIRST-LINE") {
		t.Fatalf("round 2's prompt lacks round 1's losing candidate:\n%s", killed)
	}
	is.NoErr(syscall.Kill(p.cmd.Process.Pid, syscall.SIGKILL))
	<-p.done

	is.NoErr(os.WriteFile(filepath.Join(work, "resumed"), nil, 0o644))
	_, stderr, code := architect(t, agentDir, "loop", "--resume", "-C", repo)
	if code == 0 || !strings.Contains(stderr, "stopped on max_iterations") {
		t.Fatalf("resume: exit %d; stderr:\n%s", code, stderr)
	}
	res := runlogtest.Result(t, repo)
	is.Equal(res.Iterations[1].Interrupted, "killed")
	redo := lessonsSection(t, filepath.Join(prompts, "iteration-3.md"))
	if redo != killed {
		t.Fatalf("the redo of round 2 got another section on the other candidates than round 2 had:\n--- round 2:\n%s\n--- its redo:\n%s", killed, redo)
	}
	for _, part := range strings.Split(redo, "\n### ")[1:] {
		is.True(len(part) <= 2048+64) // a part's bound, with its heading
	}
	// Ended at a limit, the run left no candidate worktree.
	if wts := gitWorktrees(t, agentDir, repo); len(wts) != 1 {
		t.Fatalf("worktrees left after the run stopped on max_iterations: %v", wts)
	}
}
