package merge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/architect-dev/architect/gitwt"
	"github.com/architect-dev/architect/loop"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/usererr"
)

// CleanOptions say which run's worktree and branch to remove.
type CleanOptions struct {
	Name  string    // the run's worktree NAME; "" for the default worktree
	Dir   string    // the repository
	Force bool      // remove even unmerged commits and uncommitted changes
	Log   io.Writer // where what was done is said
}

// Clean removes the worktree and the branch of the run o names, after
// moving its records to .architect/runs/ in the main checkout. Without
// o.Force it refuses a branch with commits not merged into the current
// branch; it always refuses while the run's loop is running.
func Clean(ctx context.Context, o CleanOptions) error {
	repo, err := openRepo(ctx, o.Dir, "clean")
	if err != nil {
		return err
	}
	// Candidate worktrees runs killed mid-round left, of every run that is
	// not running, the main checkout's included: nothing in them is the
	// user's (a resume would reset them), and git lists them until they go.
	swept, err := removeLeftCandidates(ctx, o.Log, repo, "")
	if err != nil {
		return err
	}
	wtDir, branch := loop.WorktreeFor(o.Name)
	exists, err := repo.BranchExists(ctx, branch)
	if err != nil {
		return err
	}
	if !exists {
		if swept > 0 && o.Name == "" {
			return nil // what there was to clean was the candidates'
		}
		return &usererr.Error{Msg: fmt.Sprintf("there is no branch %s to clean", branch), Hint: "list the worktrees with `git worktree list`"}
	}
	current, err := repo.CurrentBranch(ctx)
	if err != nil {
		return err
	}
	if n, err := repo.UnmergedCommits(ctx, branch, "HEAD"); err != nil {
		return err
	} else if n > 0 && !o.Force {
		return &usererr.Error{
			Msg:  fmt.Sprintf("branch %s has %d commit%s not merged into %s; cleaning would lose them", branch, n, plural(n), current),
			Hint: fmt.Sprintf("merge it first (architect merge%s, or git merge %s), or pass --force to delete it anyway", NameArg(branch), branch),
		}
	}
	if ws, _ := runOf(repo.Dir(), wtDir); ws != "" && runlog.Running(ws) {
		return &usererr.Error{Msg: fmt.Sprintf("the loop on %s is still running", branch), Hint: "wait for it to end, or stop it with `architect cancel" + nameFlag(o.Name) + "`"}
	}
	if err := keepRecords(ctx, o.Log, repo, wtDir, branch); err != nil {
		return err
	}
	return removeRun(ctx, o.Log, repo, wtDir, branch, o.Force)
}

// openRepo opens the repository of dir for clean and merge (cmd).
func openRepo(ctx context.Context, dir, cmd string) (*gitwt.Repo, error) {
	repo, err := gitwt.Open(ctx, dir)
	if errors.Is(err, gitwt.ErrNotRepo) {
		return nil, &usererr.Error{Msg: dir + " is not in a git repository", Hint: "run architect " + cmd + " inside the repository the loop ran in, or pass -C DIR"}
	}
	return repo, err
}

// removeLeftCandidates removes the candidate worktrees that runs which are
// not running left (ws: that workspace's run; "": every run's), says each
// one it removed and each one it left to a running run, and returns how
// many it removed.
func removeLeftCandidates(ctx context.Context, w io.Writer, repo *gitwt.Repo, ws string) (int, error) {
	left, err := loop.RemoveLeftCandidates(ctx, repo, ws)
	for _, p := range left.Removed {
		fmt.Fprintf(w, "architect: removed candidate worktree %s (left by a run that is not running)\n", shown(repo.Dir(), p))
	}
	for _, p := range left.Running {
		fmt.Fprintf(w, "architect: kept candidate worktree %s: its run is running\n", shown(repo.Dir(), p))
	}
	if err != nil {
		return len(left.Removed), &Error{What: "could not remove the candidate worktrees a killed run left", Err: err, Hint: "`git worktree list` shows them; remove each with `git worktree remove --force PATH`"}
	}
	return len(left.Removed), nil
}

// shown is path relative to the top of the repository when it is inside.
func shown(top, path string) string {
	if rel, err := filepath.Rel(top, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}

// keepRecords moves the records of the run in wtDir (report, transcripts,
// cost: its .architect/) to the main checkout's .architect/runs/, so
// removing the worktree loses none of them, and says where they went.
func keepRecords(ctx context.Context, w io.Writer, repo *gitwt.Repo, wtDir, branch string) error {
	ws, _ := runOf(repo.Dir(), wtDir)
	if ws == "" {
		return nil
	}
	// Its candidates' worktrees go first: moved with the records, they
	// would stay registered at the old place, their files in the archive.
	if _, err := removeLeftCandidates(ctx, w, repo, ws); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(ws, runlog.StateDir)); err != nil {
		return nil // no records to keep
	}
	err := repo.Exclude(ctx, "/"+runlog.StateDir+"/")
	to := ""
	if err == nil {
		to, err = archiveRecords(ws, repo.Dir(), branch, time.Now())
	}
	if err != nil {
		return &Error{What: "could not keep the run's records", Err: err, Hint: "copy " + filepath.Join(ws, runlog.StateDir) + " somewhere safe, then run the command again"}
	}
	fmt.Fprintf(w, "architect: the run's records are in %s\n", to)
	return nil
}

// removeRun removes the worktree that has branch checked out, then the
// branch.
func removeRun(ctx context.Context, w io.Writer, repo *gitwt.Repo, wtDir, branch string, force bool) error {
	if wt, err := repo.WorktreeOf(ctx, branch); err != nil {
		return err
	} else if wt != "" {
		if err := repo.RemoveWorktree(ctx, wt, force); err != nil {
			return &Error{What: "could not remove the worktree " + wt, Err: err, Hint: "commit or discard its changes, or pass --force"}
		}
	}
	if err := repo.DeleteBranch(ctx, branch, true); err != nil {
		return err
	}
	fmt.Fprintf(w, "architect: removed worktree %s and branch %s\n", wtDir, branch)
	return nil
}

// archiveRecords moves the run's .architect/ records to
// top/.architect/runs/<branch>-<time>/ (at is the time; -2, -3… when a run
// cleaned in the same second is there), so they outlive the worktree.
func archiveRecords(ws, top, branch string, at time.Time) (string, error) {
	from := filepath.Join(ws, runlog.StateDir)
	name := strings.ReplaceAll(branch, "/", "-") + "-" + at.UTC().Format("20060102T150405Z")
	to := filepath.Join(top, runlog.StateDir, "runs", name)
	if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
		return "", err
	}
	// Two runs cleaned in the same second: the second one's records go
	// beside the first's, never onto them.
	for n := 2; ; n++ {
		if _, err := os.Lstat(to); errors.Is(err, fs.ErrNotExist) {
			break
		}
		to = filepath.Join(top, runlog.StateDir, "runs", fmt.Sprintf("%s-%d", name, n))
	}
	if err := os.Rename(from, to); err != nil {
		return "", err
	}
	return to, nil
}
