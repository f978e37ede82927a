package batch

import (
	"context"
	"errors"
	"io/fs"

	"github.com/architect-dev/architect/loop"
	"github.com/architect-dev/architect/runlog"
)

// Recorded returns how each task of a batch that ran before ended, read
// from its worktree's records (what `architect merge --batch` takes): a
// task whose records are missing has the outcome NotStarted, with the
// reason in Error.
func Recorded(ctx context.Context, dir string, tasks []Task) []TaskResult {
	out := make([]TaskResult, len(tasks))
	for i, t := range tasks {
		_, branch := loop.WorktreeFor(t.ID)
		r := TaskResult{ID: t.ID, Branch: branch}
		ws, err := Workspace(ctx, dir, t.ID)
		if err != nil {
			out[i] = errored(r, err)
			continue
		}
		r.WorktreePath = ws
		res, err := runlog.ReadResult(ws)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			r.Outcome, r.Error = NotStarted, "no result in "+ws+": the task has not run to its end"
		case err != nil:
			r = errored(r, err)
		default:
			fill(&r, res)
		}
		out[i] = r
	}
	return out
}
