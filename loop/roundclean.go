package loop

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/architect-dev/architect/gitwt"
	"github.com/architect-dev/architect/runlog"
)

// What a run with candidates leaves when it is killed in the middle of a
// round and never resumed: its candidates' worktrees, still registered
// with git. A resume takes them over; `architect clean` (and merge, and the
// end of any later run in the same workspace) removes them.

// LeftCandidates is what RemoveLeftCandidates found: the candidate
// worktrees it removed, and those it left because their run is running.
type LeftCandidates struct {
	Removed []string // the folders removed, unregistered from git
	Running []string // the folders of runs that hold their lock, left alone
}

// RemoveLeftCandidates removes the candidate worktrees that runs of repo
// which are not running left registered with git (a run killed in the
// middle of a round and not resumed). ws limits it to the run in that
// workspace; "" takes every run of the repository. A candidate worktree is
// a detached worktree (no branch) at WORKSPACE/.architect/candidates/N,
// N a number; nothing else is touched: not the main checkout, not a
// worktree with a branch checked out (a --worktree run's, a user's), not
// a folder git does not list. The run's lock is held while its candidates
// go, so that a loop starting there meanwhile does not find its worktrees
// half removed; a run that holds it is running, and its candidates stay.
// Each goes with its registration alone (gitwt.RemoveCandidate: no `git
// worktree prune`); the candidates folder goes when nothing is left in it.
func RemoveLeftCandidates(ctx context.Context, repo *gitwt.Repo, ws string) (LeftCandidates, error) {
	return removeLeftCandidates(ctx, repo, ws, true)
}

// removeLeftCandidates is RemoveLeftCandidates; without lock the caller
// holds the run's lock already (the run itself, at its end).
func removeLeftCandidates(ctx context.Context, repo *gitwt.Repo, ws string, lock bool) (LeftCandidates, error) {
	var left LeftCandidates
	wts, err := repo.Worktrees(ctx)
	if err != nil {
		return left, err
	}
	// The candidates by the run they belong to, in the order git lists them.
	var runs []string
	byRun := map[string][]string{}
	for _, wt := range wts {
		owner, ok := candidateOwner(wt)
		if !ok || (ws != "" && gitwt.ResolvePath(owner) != gitwt.ResolvePath(ws)) {
			continue
		}
		key := gitwt.ResolvePath(owner)
		if _, seen := byRun[key]; !seen {
			runs = append(runs, key)
		}
		byRun[key] = append(byRun[key], wt.Path)
	}
	var errs []error
	for _, run := range runs {
		release := func() {}
		if lock {
			var idle bool
			if release, idle = runlog.HoldIdle(run); !idle {
				left.Running = append(left.Running, byRun[run]...)
				continue
			}
		}
		for _, path := range byRun[run] {
			if err := repo.RemoveCandidate(ctx, path); err != nil {
				errs = append(errs, fmt.Errorf("candidate worktree %s: %w", path, err))
				continue
			}
			left.Removed = append(left.Removed, path)
		}
		_ = os.Remove(filepath.Join(run, runlog.StateDir, CandidatesDir)) // when empty
		release()
	}
	return left, errors.Join(errs...)
}

// candidateOwner is the workspace of the run whose candidate wt is, when
// it is one: detached, at WORKSPACE/.architect/candidates/N.
func candidateOwner(wt gitwt.Worktree) (string, bool) {
	if wt.Branch != "" || wt.Path == "" {
		return "", false
	}
	path := filepath.Clean(wt.Path)
	if n, err := strconv.Atoi(filepath.Base(path)); err != nil || n < 1 || strconv.Itoa(n) != filepath.Base(path) {
		return "", false
	}
	dir := filepath.Dir(path)
	if filepath.Base(dir) != CandidatesDir || filepath.Base(filepath.Dir(dir)) != runlog.StateDir {
		return "", false
	}
	return filepath.Dir(filepath.Dir(dir)), true
}
