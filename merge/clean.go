package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/architect-dev/architect/gitwt"
	"github.com/architect-dev/architect/loop"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/usererr"
	"github.com/spf13/cobra"
)

func newCleanCmd(e *env) *cobra.Command {
	var force bool
	var dir string
	c := &cobra.Command{
		Use:   "clean [NAME] [--force] [-C DIR]",
		Short: "remove a loop's worktree and branch",
		Long: `Removes the worktree and branch of a loop run with --worktree (or
--worktree-name NAME). Refuses when the branch has commits that are not
merged into the current branch, unless --force; ` + "`architect merge`" + ` brings them
in and cleans up in one step. The run's records (its .architect/: report,
transcripts, cost) are moved to .architect/runs/ in the main checkout first.`,
		Example: `  # After git merge architect/ralph-loop
  architect clean

  # A named worktree, unmerged work thrown away
  architect clean fix-auth --force`,
		GroupID:           groupFinish,
		Args:              maxArgs(1, "clean takes at most one worktree NAME", "architect clean NAME"),
		ValidArgsFunction: completeWorktreeNames,
		RunE: func(cmd *cobra.Command, args []string) error {
			name := ""
			if len(args) > 0 {
				name = args[0]
			}
			return runClean(cmd.Context(), e, dir, name, force)
		},
	}
	c.Flags().BoolVar(&force, "force", false, "remove even when the branch has commits not merged into the current branch, or the worktree has uncommitted changes")
	c.Flags().StringVarP(&dir, "dir", "C", ".", "repository `directory`")
	_ = c.MarkFlagDirname("dir")
	return c
}

// openRepo opens the repository of dir for clean and merge.
func openRepo(ctx context.Context, dir, cmd string) (*gitwt.Repo, error) {
	repo, err := gitwt.Open(ctx, dir)
	if errors.Is(err, gitwt.ErrNotRepo) {
		return nil, &usererr.Error{Msg: dir + " is not in a git repository", Hint: "run architect " + cmd + " inside the repository the loop ran in, or pass -C DIR"}
	}
	return repo, err
}

func runClean(ctx context.Context, e *env, dir, name string, force bool) error {
	repo, err := openRepo(ctx, dir, "clean")
	if err != nil {
		return err
	}
	wtDir, branch := loop.WorktreeFor(name)
	exists, err := repo.BranchExists(ctx, branch)
	if err != nil {
		return err
	}
	if !exists {
		return &usererr.Error{Msg: fmt.Sprintf("there is no branch %s to clean", branch), Hint: "list the worktrees with `git worktree list`"}
	}
	current, err := repo.CurrentBranch(ctx)
	if err != nil {
		return err
	}
	if n, err := repo.UnmergedCommits(ctx, branch, "HEAD"); err != nil {
		return err
	} else if n > 0 && !force {
		return &usererr.Error{
			Msg:  fmt.Sprintf("branch %s has %d commit%s not merged into %s; cleaning would lose them", branch, n, plural(n), current),
			Hint: fmt.Sprintf("merge it first (architect merge%s, or git merge %s), or pass --force to delete it anyway", cleanName(branch), branch),
		}
	}
	if ws, _ := runOf(repo.Dir(), wtDir); ws != "" && runlog.Running(ws) {
		return &usererr.Error{Msg: fmt.Sprintf("the loop on %s is still running", branch), Hint: "wait for it to end, or stop it with `architect cancel" + nameFlag(name) + "`"}
	}
	if err := keepRecords(ctx, e.stderr, repo, wtDir, branch); err != nil {
		return err
	}
	return removeRun(ctx, e.stderr, repo, wtDir, branch, force)
}

// keepRecords moves the records of the run in wtDir (report, transcripts,
// cost: its .architect/) to the main checkout's .architect/runs/, so
// removing the worktree loses none of them, and says where they went.
func keepRecords(ctx context.Context, w io.Writer, repo *gitwt.Repo, wtDir, branch string) error {
	ws, _ := runOf(repo.Dir(), wtDir)
	if ws == "" {
		return nil
	}
	if _, err := os.Stat(filepath.Join(ws, runlog.StateDir)); err != nil {
		return nil // no records to keep
	}
	err := repo.Exclude(ctx, "/"+runlog.StateDir+"/")
	to := ""
	if err == nil {
		to, err = archiveRecords(ws, repo.Dir(), branch)
	}
	if err != nil {
		return &usererr.Error{Msg: "could not keep the run's records: " + err.Error(), Hint: "copy " + filepath.Join(ws, runlog.StateDir) + " somewhere safe, then run the command again"}
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
			return &usererr.Error{Msg: "could not remove the worktree " + wt + ": " + err.Error(), Hint: "commit or discard its changes, or pass --force"}
		}
	}
	if err := repo.DeleteBranch(ctx, branch, true); err != nil {
		return err
	}
	fmt.Fprintf(w, "architect: removed worktree %s and branch %s\n", wtDir, branch)
	return nil
}
