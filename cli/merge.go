package cli

import (
	"github.com/architect-dev/architect/merge"
	"github.com/spf13/cobra"
)

func newMergeCmd(e *env) *cobra.Command {
	var o merge.Options
	c := &cobra.Command{
		Use:   "merge [NAME] [--squash] [--keep] [-C DIR]",
		Short: "merge a loop's branch into the current branch, then remove its worktree",
		Long: `Merges the branch of a --worktree run (architect/ralph-loop, or
architect/NAME) into the branch checked out here, with a merge commit whose
message is built from the task and the result; with --squash, as one
ordinary commit instead of the per-iteration ones. Then the worktree and the
branch are removed (--keep keeps them), and the run's records move to
.architect/runs/ here.

Nothing is lost: merge refuses, changing nothing, while the loop runs, when
the worktree has uncommitted changes, when this checkout has uncommitted
changes to tracked files, when an untracked file here would be overwritten,
and when the merge would conflict (merge by hand then: git merge BRANCH).`,
		Example: `  # Bring the default worktree's work in, keeping its commits
  architect merge

  # One commit for a named run's work
  architect merge fix-auth --squash

  # See what would come in first
  git diff ...architect/ralph-loop`,
		GroupID:           groupFinish,
		Args:              atMostOneArg("merge takes at most one worktree NAME", "architect merge [NAME] [--squash]"),
		ValidArgsFunction: completeWorktreeNames,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				o.Name = args[0]
			}
			o.Log = e.stderr
			return merge.Run(cmd.Context(), o)
		},
	}
	c.Flags().BoolVar(&o.Squash, "squash", false, "make the branch's changes one commit on the current branch")
	c.Flags().BoolVar(&o.Keep, "keep", false, "keep the worktree and the branch after merging")
	c.Flags().StringVarP(&o.Dir, "dir", "C", ".", "repository `directory` (its main checkout)")
	_ = c.MarkFlagDirname("dir")
	return c
}
