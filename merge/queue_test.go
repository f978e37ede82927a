package merge

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/internal/testutil"
	"github.com/matryer/is"
)

func TestOrder(t *testing.T) {
	tasks := []QueueTask{{ID: "a"}, {ID: "b"}, {ID: "c"}}
	for _, tc := range []struct {
		first []string
		want  string // the ids in order, or the error's start
	}{
		{nil, "a b c"},
		{[]string{"c"}, "c a b"},
		{[]string{"b", "a"}, "b a c"},
		{[]string{"x"}, `--order: no task "x"`},
		{[]string{"a", "a"}, `--order: task "a" named twice`},
	} {
		got, err := order(tasks, tc.first)
		var s string
		if err != nil {
			s = err.Error()
		} else {
			for _, t := range got {
				s += t.ID + " "
			}
			s = strings.TrimSpace(s)
		}
		if !strings.HasPrefix(s, tc.want) {
			t.Errorf("order(%v) = %q, want %q", tc.first, s, tc.want)
		}
	}
}

func TestDefaultTarget(t *testing.T) {
	is := is.New(t)
	is.Equal(DefaultTarget("ralph-batch.yaml"), "architect/merge-ralph-batch")
	is.Equal(DefaultTarget("dir/night.yml"), "architect/merge-night")
	is.Equal(DefaultTarget("we ird.yaml"), "architect/merge")
}

func TestHeadWriterBounded(t *testing.T) {
	is := is.New(t)
	h := &headWriter{limit: 5}
	n, err := h.Write([]byte("abc"))
	is.NoErr(err)
	is.Equal(n, 3)
	n, _ = h.Write([]byte("defgh"))
	is.Equal(n, 5) // all taken, the rest counted
	is.Equal(string(h.buf), "abcde")
	is.Equal(h.cut, 3)
}

// TestQueueConflictResolvedOrLeft: with real git and a shell agent, a
// task that conflicts is resolved when its agent resolves it, and left on
// its branch when the agent does not; the target moves only for the
// first; the checkout (branch, index, files) is as it was.
func TestQueueConflictResolvedOrLeft(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	dir := testutil.NewRepo(t)
	testutil.WriteFile(t, dir, "README", "hello\n")
	base := testutil.Commit(t, dir, "base")
	for _, b := range []string{"one", "two", "three"} {
		testutil.Git(t, dir, "branch", "architect/"+b, base)
		testutil.Git(t, dir, "worktree", "add", "-q", filepath.Join(t.TempDir(), b), "architect/"+b)
	}
	commitOn := func(branch, text string) {
		wt := testutil.Git(t, dir, "worktree", "list", "--porcelain")
		for _, l := range strings.Split(wt, "\n\n") {
			if strings.Contains(l, "branch refs/heads/"+branch) {
				p := strings.TrimPrefix(strings.SplitN(l, "\n", 2)[0], "worktree ")
				testutil.WriteFile(t, p, "shared.txt", text)
				testutil.Commit(t, p, branch)
			}
		}
	}
	commitOn("architect/one", "one\n")
	commitOn("architect/two", "two\n")
	commitOn("architect/three", "three\n")
	testutil.WriteFile(t, dir, "mine.txt", "untracked, mine\n")
	statusBefore := testutil.Git(t, dir, "status", "--porcelain")

	cfg := func(id, agentCmd string) config.Config {
		c := config.Defaults()
		c.Task = "make shared.txt say " + id
		c.Checks = []string{"grep -q " + id + " shared.txt", "! grep -q '^<<<<<<<' shared.txt"}
		c.Agent, c.AgentCmd, c.Sandbox, c.FinalCheck = "command", agentCmd, "off", config.FinalCheckSame
		c.ResolveMaxIterations = 2
		return c
	}
	resolve := `printf 'one\ntwo\n' > shared.txt; echo '<promise>COMPLETE</promise>'`
	giveUp := `echo '<promise>COMPLETE</promise>'`
	tasks := []QueueTask{
		{ID: "one", Branch: "architect/one", Succeeded: true, Config: cfg("one", giveUp)},
		{ID: "two", Branch: "architect/two", Succeeded: true, Config: cfg("two", resolve)},
		{ID: "three", Branch: "architect/three", Succeeded: true, Config: cfg("three", giveUp)},
	}
	var log strings.Builder
	res, err := Queue(ctx, tasks, QueueOptions{Dir: dir, Name: "b.yaml", Log: &log})
	is.NoErr(err)
	is.Equal(len(res.Tasks), 3)
	is.Equal(res.Tasks[0].Outcome, QueueMerged)
	is.Equal(res.Tasks[1].Outcome, QueueMerged)
	is.Equal(res.Tasks[1].How, "resolved")
	is.Equal(res.Tasks[2].Outcome, QueueLeft)
	is.True(res.Tasks[2].Resolution != nil && !res.Tasks[2].Resolution.Success)
	is.Equal(res.Tasks[2].Resolution.StopReason, "max_iterations")
	is.True(!res.Complete())

	is.Equal(testutil.Git(t, dir, "rev-parse", "architect/merge-b"), res.End)
	is.Equal(testutil.Git(t, dir, "show", "architect/merge-b:shared.txt"), "one\ntwo")
	is.Equal(testutil.Git(t, dir, "rev-list", "--count", base+"..architect/merge-b"), "2")
	// The checkout: on main at base, the same status, the same files.
	is.Equal(testutil.Git(t, dir, "symbolic-ref", "HEAD"), "refs/heads/main")
	is.Equal(testutil.Git(t, dir, "rev-parse", "HEAD"), base)
	is.Equal(testutil.Git(t, dir, "status", "--porcelain"), statusBefore)
	_, err = os.Stat(filepath.Join(dir, "shared.txt"))
	is.True(os.IsNotExist(err))
	// No scratch worktree is left.
	is.True(!strings.Contains(testutil.Git(t, dir, "worktree", "list"), ".merge-"))
}
