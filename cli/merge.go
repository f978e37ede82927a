package cli

import (
	"errors"
	"strings"

	"github.com/architect-dev/architect/batch"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/merge"
	"github.com/architect-dev/architect/usererr"
	"github.com/spf13/cobra"
)

func newMergeCmd(e *env) *cobra.Command {
	var o merge.Options
	var q queueFlags
	var batchFile string
	c := &cobra.Command{
		Use:   "merge [NAME] [--squash] [--keep] [-C DIR] | merge --batch FILE [--onto BRANCH]",
		Short: "merge a loop's branch into the current branch, or a batch's branches through the merge queue",
		Long: `Merges the branch of a --worktree run (architect/ralph-loop, or
architect/NAME) into the branch checked out here, with a merge commit whose
message is built from the task and the result; with --squash, as one
ordinary commit instead of the per-iteration ones. Then the worktree and the
branch are removed (--keep keeps them), and the run's records move to
.architect/runs/ here.

Nothing is lost: merge refuses, changing nothing, while the loop runs, when
the worktree has uncommitted changes, when this checkout has uncommitted
changes to tracked files, when an untracked file here would be overwritten,
and when the merge would conflict (merge by hand then: git merge BRANCH).

With --batch FILE, the merge queue brings a batch's work onto a target
branch (--onto; default architect/merge-BATCH, made at the checkout's
HEAD), never the branch checked out: each task that succeeded, one at a
time in the batch file's order (--order names some first), is rebased
(--how merge: merged) onto the target in a scratch worktree, its checks
run there, and the target moves only when they pass. A conflict, or checks
that fail there, starts a resolution loop (the task's agent, with both
sides' tasks and diffs; at most --resolve-max-iterations, default 3, and
--resolve-max-cost) judged by the same checks. A task still failing stays
on its own branch, reported with the reason. Task branches and worktrees
are kept. Records: .architect/merge/TARGET/ (queue.json, queue.md).
Exit status 0 when every task is on the target, 1 when some is not.`,
		Example: `  # Bring the default worktree's work in, keeping its commits
  architect merge

  # One commit for a named run's work
  architect merge fix-auth --squash

  # See what would come in first
  git diff ...architect/ralph-loop

  # A batch's work onto architect/merge-ralph-batch, then bring it in
  architect merge --batch ralph-batch.yaml
  git merge --ff-only architect/merge-ralph-batch`,
		GroupID:           groupFinish,
		Args:              atMostOneArg("merge takes at most one worktree NAME", "architect merge [NAME] [--squash]"),
		ValidArgsFunction: completeWorktreeNames,
		RunE: func(cmd *cobra.Command, args []string) error {
			if batchFile != "" {
				if len(args) > 0 || o.Keep {
					return &usererr.Error{Msg: "--batch takes no NAME and no --keep: the queue keeps every task's worktree and branch", Hint: "architect merge --batch FILE [--onto BRANCH]"}
				}
				q.squash = o.Squash
				return mergeBatch(cmd, e, o.Dir, batchFile, q)
			}
			for _, f := range []string{"onto", "how", "order", "no-resolve", "resolve-max-iterations", "resolve-max-cost", "json"} {
				if cmd.Flags().Changed(f) {
					return &usererr.Error{Msg: "--" + f + " is an option of the merge queue", Hint: "architect merge --batch FILE --" + f + " ..."}
				}
			}
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
	c.Flags().StringVar(&batchFile, "batch", "", "run the merge queue over the tasks of the batch `FILE` that succeeded")
	addQueueFlags(c.Flags(), &q)
	c.Flags().BoolVar(&q.jsonOut, "json", false, "with --batch, print the queue's account as JSON on stdout")
	_ = c.MarkFlagDirname("dir")
	return c
}

// mergeBatch runs the merge queue over the batch in file, as its tasks'
// records say they ended.
func mergeBatch(cmd *cobra.Command, e *env, dir, file string, q queueFlags) error {
	tasks, _, err := batch.Load(file)
	if err != nil {
		// Name the flag that gave the file, as every other refusal does.
		var ce config.Errors
		if errors.As(err, &ce) {
			for _, c := range ce {
				if c.Key == "" && (c.Source == file || strings.HasPrefix(c.Source, file+":")) {
					c.Source = "--batch " + c.Source
				}
			}
		}
		return err
	}
	defer contain(e)()
	results := batch.Recorded(cmd.Context(), dir, tasks)
	return runQueue(cmd.Context(), e, dir, file, tasks, results, q, nil)
}
