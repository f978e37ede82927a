package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/architect-dev/architect/gitwt"
	"github.com/architect-dev/architect/loop"
	"github.com/spf13/pflag"
)

func runClean(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("clean", e.stderr)
	force := fs.Bool("force", false, "remove even when the branch has commits not merged into the current branch, or the worktree has uncommitted changes")
	dir := fs.StringP("dir", "C", ".", "repository `directory`")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			fmt.Fprint(e.stdout, "Usage: architect clean [NAME] [--force]\n\nRemoves the worktree and branch of a loop run with --worktree (or\n--worktree-name NAME). Refuses when the branch has commits that are not\nmerged into the current branch, unless --force.\n\nFlags:\n"+fs.FlagUsages())
			return nil
		}
		return flagError("clean", err)
	}
	if fs.NArg() > 1 {
		return &loop.UsageError{Msg: "clean takes at most one worktree NAME", Hint: "architect clean NAME"}
	}
	repo, err := gitwt.Open(ctx, *dir)
	if errors.Is(err, gitwt.ErrNotRepo) {
		return &loop.UsageError{Msg: *dir + " is not in a git repository", Hint: "run architect clean inside the repository the loop ran in, or pass -C DIR"}
	}
	if err != nil {
		return err
	}
	wtDir, branch := loop.WorktreeFor(fs.Arg(0))
	exists, err := repo.BranchExists(ctx, branch)
	if err != nil {
		return err
	}
	if !exists {
		return &loop.UsageError{Msg: fmt.Sprintf("there is no branch %s to clean", branch), Hint: "list the worktrees with `git worktree list`"}
	}
	current, err := repo.CurrentBranch(ctx)
	if err != nil {
		return err
	}
	if n, err := repo.UnmergedCommits(ctx, branch, "HEAD"); err != nil {
		return err
	} else if n > 0 && !*force {
		return &loop.UsageError{
			Msg:  fmt.Sprintf("branch %s has %d commit%s not merged into %s; cleaning would lose them", branch, n, plural(n), current),
			Hint: fmt.Sprintf("merge it first (git merge %s), or pass --force to delete it anyway", branch),
		}
	}
	if wt, err := repo.WorktreeOf(ctx, branch); err != nil {
		return err
	} else if wt != "" {
		if err := repo.RemoveWorktree(ctx, wt, *force); err != nil {
			return &loop.UsageError{Msg: "could not remove the worktree " + wt + ": " + err.Error(), Hint: "commit or discard its changes, or pass --force"}
		}
	}
	if err := repo.DeleteBranch(ctx, branch, true); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "architect: removed worktree %s and branch %s\n", wtDir, branch)
	return nil
}
