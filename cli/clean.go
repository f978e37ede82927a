package cli

import (
	"github.com/architect-dev/architect/merge"
	"github.com/spf13/cobra"
)

func newCleanCmd(e *env) *cobra.Command {
	var o merge.CleanOptions
	c := &cobra.Command{
		Use:   "clean [NAME] [--force] [-C DIR]",
		Short: "remove a loop's worktree and branch",
		Long: `Removes the worktree and branch of a loop run with --worktree (or
--worktree-name NAME). Refuses when the branch has commits that are not
merged into the current branch, unless --force; ` + "`architect merge`" + ` brings them
in and cleans up in one step. The run's records (its .architect/: report,
transcripts, cost) are moved to .architect/runs/ in the main checkout first.

It also removes the candidate worktrees (--candidates) that runs killed in
the middle of a round and never resumed left registered with git, of every
run that is not running, and says which; a running run's stay.`,
		Example: `  # After git merge architect/ralph-loop
  architect clean

  # A named worktree, unmerged work thrown away
  architect clean fix-auth --force`,
		GroupID:           groupFinish,
		Args:              atMostOneArg("clean takes at most one worktree NAME", "architect clean NAME"),
		ValidArgsFunction: completeWorktreeNames,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				o.Name = args[0]
			}
			o.Log = e.stderr
			return merge.Clean(cmd.Context(), o)
		},
	}
	c.Flags().BoolVar(&o.Force, "force", false, "remove even when the branch has commits not merged into the current branch, or the worktree has uncommitted changes")
	c.Flags().StringVarP(&o.Dir, "dir", "C", ".", "repository `directory`")
	_ = c.MarkFlagDirname("dir")
	return c
}
