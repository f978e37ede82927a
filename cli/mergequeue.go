package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/architect-dev/architect/batch"
	"github.com/architect-dev/architect/loop"
	"github.com/architect-dev/architect/merge"
	"github.com/architect-dev/architect/usererr"
	"github.com/spf13/pflag"
)

// queueFlags are the merge queue's options, on `architect merge --batch`
// and `architect batch --merge`.
type queueFlags struct {
	onto, how    string
	order        []string
	noResolve    bool
	resolveIters int
	resolveCost  float64
	squash       bool
	jsonOut      bool
}

// addQueueFlags defines the queue's flags on fs (--squash and --json are
// the commands' own).
func addQueueFlags(fs *pflag.FlagSet, q *queueFlags) {
	fs.StringVar(&q.onto, "onto", "", "the merge queue's target `branch`, never one checked out (default architect/merge-BATCH, made at the checkout's HEAD)")
	fs.StringVar(&q.how, "how", merge.HowRebase, "how the queue brings each task's branch onto the target: rebase (its commits replayed) or merge (a merge commit)")
	fs.StringSliceVar(&q.order, "order", nil, "task `IDs` the queue takes first, in that order (comma-separated); the others follow in the batch file's order")
	fs.BoolVar(&q.noResolve, "no-resolve", false, "leave a task that conflicts, or whose checks fail on the target, without a resolution loop")
	fs.IntVar(&q.resolveIters, "resolve-max-iterations", 0, "iterations of each resolution loop, for every task (default the task's resolve_max_iterations, else 3)")
	fs.Float64Var(&q.resolveCost, "resolve-max-cost", 0, "cost limit in `USD` of each resolution loop, for every task (default the task's resolve_max_cost, else its max_cost)")
}

// runQueue runs the merge queue over the batch's tasks, taking those whose
// result succeeded, and prints its table. It returns errNoSuccess when some
// task is not on the target.
func runQueue(ctx context.Context, e *env, dir, file string, tasks []batch.Task, results []batch.TaskResult, q queueFlags, env map[string][]string) error {
	if err := q.limits(); err != nil {
		return err
	}
	res, err := merge.Queue(ctx, queueTasks(tasks, results), q.options(e, dir, file, env))
	if res == nil {
		return err
	}
	if q.jsonOut {
		data, _ := json.MarshalIndent(res, "", "  ")
		fmt.Fprintln(e.stdout, string(data))
	}
	merge.WriteQueueSummary(e.stderr, res)
	switch {
	case err != nil && ctx.Err() != nil:
		return loop.ErrInterrupted
	case err != nil:
		return err
	case !res.Complete():
		return errNoSuccess
	}
	return nil
}

// options are the queue's options from the flags.
func (q queueFlags) options(e *env, dir, file string, env map[string][]string) merge.QueueOptions {
	return merge.QueueOptions{
		Dir: dir, Name: file, Onto: q.onto, How: q.how, Squash: q.squash, Order: q.order,
		NoResolve: q.noResolve, ResolveMaxIterations: q.resolveIters, ResolveMaxCost: q.resolveCost,
		Redact: redactor, Env: env, Log: e.stderr,
	}
}

// checkQueue refuses the queue's options before a batch runs with --merge.
func checkQueue(ctx context.Context, e *env, dir, file string, tasks []batch.Task, q queueFlags) error {
	if err := q.limits(); err != nil {
		return err
	}
	return merge.CheckQueue(ctx, queueTasks(tasks, make([]batch.TaskResult, len(tasks))), q.options(e, dir, file, nil))
}

func (q queueFlags) limits() error {
	if q.resolveIters < 0 || q.resolveIters > 100 {
		return &usererr.Error{Msg: fmt.Sprintf("--resolve-max-iterations %d: must be 0-100", q.resolveIters), Hint: "e.g. --resolve-max-iterations 3"}
	}
	if q.resolveCost < 0 {
		return &usererr.Error{Msg: "--resolve-max-cost: must not be negative", Hint: "give USD, e.g. --resolve-max-cost 2"}
	}
	return nil
}

// queueTasks are the batch's tasks as the queue takes them, with how each
// ended (results, in the order of tasks).
func queueTasks(tasks []batch.Task, results []batch.TaskResult) []merge.QueueTask {
	qt := make([]merge.QueueTask, len(tasks))
	for i, t := range tasks {
		r := results[i]
		why := r.Outcome
		switch {
		case r.Error != "":
			why += ": " + r.Error
		case r.StopReason != "":
			why += " (" + r.StopReason + ")"
		}
		qt[i] = merge.QueueTask{ID: t.ID, Config: t.Config, Branch: r.Branch, Succeeded: r.Success, Why: "the task did not succeed: " + why}
	}
	return qt
}
