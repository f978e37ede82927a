//go:build linux

package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/architect-dev/architect/changes"
	"github.com/architect-dev/architect/gitwt"
)

var (
	candFiles = flag.Int("candidates-files", 100000, "candidates: the repository's size in files")
	candN     = flag.Int("candidates-n", 4, "candidates: how many candidate worktrees")
	candRound = flag.Bool("candidates-rounds-only", false, "candidates: measure the rounds only, not the first creation")
)

// candidatesScenario measures the worktrees of --candidates N (issue 37)
// on a repository of -candidates-files files:
//
//  1. their first creation, gitwt.AddCandidate N times against plain `git
//     worktree add --detach` N times, alternately first, each set removed
//     again after;
//  2. a round's preparation: every candidate's agent edited a file and
//     left an untracked one, the loop committed a one-file change, and
//     gitwt.ResetCandidate brings the N candidates to it, concurrently (as
//     the loop may) and, for comparison, one after another. The first
//     round after creation is reported apart: git wrote the index in the
//     same second as the files, so it re-reads those whose time is that
//     second ("racily clean") once;
//  3. the same rounds as the loop prepares them when it knows what each
//     round touched: every candidate's worktree watched by a
//     changes.Changes from the round's base, its agent's change committed
//     from it and a look taken after (untimed: the round's own work),
//     then gitwt.MoveCandidate for the N at once, and the next round's
//     Changes started in each on the candidate's watcher, which lives as
//     long as the worktree (timed: what prepareRound does).
//
// Wall time and the CPU time of the git processes (getrusage of children;
// with the watch, this process's own too) are both reported: the wall time
// depends on the machine's load.
func candidatesScenario() {
	ctx := context.Background()
	n, files := *candN, *candFiles
	dir := fixture("candidates", files)
	r, err := gitwt.Open(ctx, dir)
	must(err)
	head, err := r.Head(ctx)
	must(err)
	wts := filepath.Join(tmp, "candidates-wt")

	var addWall, addCPU, plainWall, plainCPU []float64
	for run := range *runs {
		if *candRound {
			break
		}
		archAdd := func() {
			t0, c0 := time.Now(), childCPU()
			for i := range n {
				must(r.AddCandidate(ctx, filepath.Join(wts, fmt.Sprintf("a%d", i)), head))
			}
			addWall, addCPU = append(addWall, time.Since(t0).Seconds()), append(addCPU, childCPU()-c0)
			for i := range n {
				drop(r, filepath.Join(wts, fmt.Sprintf("a%d", i)))
			}
		}
		plainAdd := func() {
			t0, c0 := time.Now(), childCPU()
			for i := range n {
				git(dir, "worktree", "add", "--quiet", "--detach", filepath.Join(wts, fmt.Sprintf("g%d", i)), head)
			}
			plainWall, plainCPU = append(plainWall, time.Since(t0).Seconds()), append(plainCPU, childCPU()-c0)
			for i := range n {
				drop(r, filepath.Join(wts, fmt.Sprintf("g%d", i)))
			}
		}
		alternate(run, archAdd, plainAdd)
	}
	a, p := median(addWall), median(plainWall)
	if !*candRound {
		report(fmt.Sprintf("candidates: first creation of %d candidate worktrees, %d files", n, files),
			fmt.Sprintf("AddCandidate ×%d: wall %.2f s, CPU %.2f s; git worktree add --detach ×%d: wall %.2f s, CPU %.2f s; ratio wall %.2f",
				n, a, median(addCPU), n, p, median(plainCPU), a/p),
			"no slower than git worktree add (ratio ≤ 1.1)", a <= 1.1*p)
	}

	// The round: N candidates made once, then reused.
	paths := make([]string, n)
	for i := range paths {
		paths[i] = filepath.Join(wts, fmt.Sprintf("c%d", i))
		must(r.AddCandidate(ctx, paths[i], head))
	}
	round := 0
	next := func() string {
		round++
		for i, p := range paths { // what each candidate's agent left
			must(os.WriteFile(filepath.Join(p, "pkg010", fmt.Sprintf("file%05d.txt", 500+i)), []byte(fmt.Sprintf("agent %d round %d\n", i, round)), 0o644))
			must(os.WriteFile(filepath.Join(p, "pkg011", fmt.Sprintf("new-%d.txt", round)), []byte("untracked\n"), 0o644))
		}
		must(os.WriteFile(filepath.Join(dir, "pkg000", "file00007.txt"), []byte(fmt.Sprintf("round %d %d\n", round, time.Now().UnixNano())), 0o644))
		git(dir, "-c", "gc.auto=0", "commit", "-q", "-a", "-m", fmt.Sprintf("round %d", round))
		c, err := r.Head(ctx)
		must(err)
		return c
	}
	concurrent := func(commit string) {
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i, p := range paths {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = r.ResetCandidate(ctx, p, commit, []string{".architect"})
			}()
		}
		wg.Wait()
		for _, err := range errs {
			must(err)
		}
	}
	sequential := func(commit string) {
		for _, p := range paths {
			must(r.ResetCandidate(ctx, p, commit, []string{".architect"}))
		}
	}
	measure := func(reset func(string)) (wall, cpu float64) {
		commit := next()
		t0, c0 := time.Now(), childCPU()
		reset(commit)
		wall, cpu = time.Since(t0).Seconds(), childCPU()-c0
		for _, p := range paths {
			checkCandidate(p, commit)
		}
		return wall, cpu
	}
	firstWall, firstCPU := measure(concurrent)
	var cWall, cCPU, sWall, sCPU []float64
	for run := range *runs {
		alternate(run, func() {
			w, c := measure(concurrent)
			cWall, cCPU = append(cWall, w), append(cCPU, c)
		}, func() {
			w, c := measure(sequential)
			sWall, sCPU = append(sWall, w), append(sCPU, c)
		})
	}
	cw := median(cWall)
	report(fmt.Sprintf("candidates: a round's %d candidates brought to a one-file change, %d files", n, files),
		fmt.Sprintf("ResetCandidate ×%d concurrently: wall %.2f s, CPU %.2f s (one after another: wall %.2f s, CPU %.2f s); the first round after creation: wall %.2f s, CPU %.2f s (each run's wall, concurrent: %s)",
			n, cw, median(cCPU), median(sWall), median(sCPU), firstWall, firstCPU, seconds(cWall)),
		"≤ 0.5 s for all", cw <= 0.5)
	moveRounds(ctx, r, paths, next)
	for _, p := range paths {
		must(r.RemoveCandidate(ctx, p))
	}
}

// moveRounds is the candidates scenario's third part: rounds brought by
// what changed. paths are the candidates' worktrees, at the last commit
// next made; next makes each round's agents' changes and commit.
func moveRounds(ctx context.Context, r *gitwt.Repo, paths []string, next func() string) {
	n := len(paths)
	base, err := r.Head(ctx)
	must(err)
	chs := make([]*changes.Changes, n)
	ws := make([]*changes.Watcher, n)
	watch := func(i int, base string) {
		repo, err := gitwt.Open(ctx, paths[i])
		must(err)
		if ws[i] == nil { // made once per run, as the loop does
			ws[i], err = changes.Watch(ctx, repo, []string{".architect"}, true)
			must(err)
		}
		chs[i] = changes.New(ctx, repo, base, []string{".architect"}, 0, changes.ChangesOptions{Commits: true, Clean: true, Watcher: ws[i]})
	}
	each := func(f func(i int)) {
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { f(i) })
		}
		wg.Wait()
	}
	each(func(i int) { watch(i, base) })
	var moveWall, moveCPU, prepWall, prepCPU, lookWall, lookCPU []float64
	for range *runs {
		commit := next()
		ends := make([]gitwt.CandidateEnd, n)
		t0, c0 := time.Now(), allCPU()
		each(func(i int) {
			head, _, err := chs[i].Commit(ctx, "candidate", nil)
			must(err)
			tree, _, err := chs[i].Tree(ctx, nil)
			must(err)
			touched, complete := chs[i].Touched()
			if !complete {
				fatal(fmt.Errorf("candidate %s: what its round touched is not all known", paths[i]))
			}
			must(chs[i].Close())
			ends[i] = gitwt.CandidateEnd{Head: head, Tree: tree, Touched: touched}
		})
		lookWall, lookCPU = append(lookWall, time.Since(t0).Seconds()), append(lookCPU, allCPU()-c0)
		t0, c0 = time.Now(), allCPU()
		each(func(i int) { must(r.MoveCandidate(ctx, paths[i], ends[i], commit, []string{".architect"})) })
		t1, c1 := time.Now(), allCPU()
		each(func(i int) { watch(i, commit) })
		moveWall, moveCPU = append(moveWall, t1.Sub(t0).Seconds()), append(moveCPU, c1-c0)
		prepWall, prepCPU = append(prepWall, time.Since(t0).Seconds()), append(prepCPU, allCPU()-c0)
		for _, p := range paths {
			checkCandidate(p, commit)
		}
	}
	for i, ch := range chs {
		must(ch.Close())
		must(ws[i].Close())
	}
	pw := median(prepWall)
	report(fmt.Sprintf("candidates: a round's %d candidates brought to a one-file change by what changed", n),
		fmt.Sprintf("MoveCandidate ×%d concurrently: wall %.2f s, CPU %.2f s; with the next round's Changes started on each candidate's watcher (prepareRound): wall %.2f s, CPU %.2f s (each run's wall: %s); the round's looks at the %d worktrees (commit of the agent's change, look after the checks), watched: wall %.2f s, CPU %.2f s",
			n, median(moveWall), median(moveCPU), pw, median(prepCPU), seconds(prepWall), n, median(lookWall), median(lookCPU)),
		"≤ 0.5 s for all", pw <= 0.5)
}

// allCPU is the user and system time of this process and of the children
// it has waited for, in seconds.
func allCPU() float64 {
	var ru syscall.Rusage
	must(syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano()+ru.Stime.Nano()).Seconds() + childCPU()
}

// drop takes the worktree at p out of the way for the next run: its
// folder moved aside (deleting 100,000 files takes longer than the
// measurement; the bench's temporary folder goes at the end), its entry
// removed with RemoveCandidate.
func drop(r *gitwt.Repo, p string) {
	trash, err := os.MkdirTemp(tmp, "trash-")
	must(err)
	must(os.Rename(p, filepath.Join(trash, "wt")))
	must(r.RemoveCandidate(context.Background(), p))
}

// childCPU is the user and system time of the children this process has
// waited for, in seconds.
func childCPU() float64 {
	var ru syscall.Rusage
	must(syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// checkCandidate fails the bench unless the candidate at p is detached at
// commit with nothing tracked changed and nothing untracked left.
func checkCandidate(p, commit string) {
	out, err := exec.Command("git", "-C", p, "status", "--porcelain", "--branch").Output()
	if err != nil {
		fatal(fmt.Errorf("candidate %s: git status: %w", p, err))
	}
	if got := strings.TrimSpace(string(out)); got != "## HEAD (no branch)" {
		fatal(fmt.Errorf("candidate %s: not clean and detached after the reset:\n%s", p, got))
	}
	out, err = exec.Command("git", "-C", p, "rev-parse", "HEAD").Output()
	if err != nil || strings.TrimSpace(string(out)) != commit {
		fatal(fmt.Errorf("candidate %s: at %s, not %s (%w)", p, out, commit, err))
	}
}

func seconds(xs []float64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprintf("%.2f", x)
	}
	return strings.Join(s, ", ")
}
