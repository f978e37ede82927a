package merge

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/checks"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/gitwt"
	"github.com/architect-dev/architect/loop"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/usererr"
)

// The merge queue (architect merge --batch, architect batch --merge)
// brings a batch's work home: each successful task's branch in turn is
// rebased (or merged) onto the target branch in a scratch worktree, the
// task's checks run there, and the target moves (a ref update from the
// value it was seen at) only when they pass. A conflict, or checks that
// fail there, starts a resolution loop (package loop, in the scratch
// worktree) judged by the same checks; what still fails stays on its own
// branch, reported with the reason. Nothing here checks out, resets or
// writes the user's checked-out branch, index or files.

// How a task's branch is brought onto the target.
const (
	HowRebase = "rebase" // the task's commits replayed on the target: a straight line
	HowMerge  = "merge"  // a merge commit (never a fast-forward) with the task's branch as second parent
)

// Outcomes of a task in the queue.
const (
	QueueMerged   = "merged"    // on the target, the checks green there
	QueueAlready  = "already"   // the target had its work already (an earlier queue)
	QueueLeft     = "left"      // not merged: on its own branch, with the reason
	QueueNotRun   = "not_run"   // the queue stopped (interrupted, an error) before its turn
	QueueNotTaken = "not_taken" // the task did not succeed in the batch: not a candidate
)

// QueueTask is one task of a batch as the queue takes it.
type QueueTask struct {
	ID     string
	Config config.Config // its configuration: text, checks, agent, limits
	Branch string        // its branch (architect/ID)
	// Succeeded: its loop ended in success (with candidates, the kept
	// result is what its branch holds). Why says how it ended otherwise.
	Succeeded bool
	Why       string
}

// QueueOptions say what the queue merges, onto what, and how.
type QueueOptions struct {
	Dir  string // the repository
	Name string // the batch's name: the default target is architect/merge-NAME
	// Onto is the target branch; "" means architect/merge-NAME, created at
	// the checkout's HEAD when missing. A branch checked out in any
	// worktree is refused: the queue never moves a checked-out branch.
	Onto   string
	How    string // HowRebase (default) or HowMerge
	Squash bool   // each task lands as one commit
	// Order lists task ids to take first, in that order; the others follow
	// in the batch file's order.
	Order []string
	// NoResolve leaves a conflicting task without a resolution loop.
	NoResolve bool
	// ResolveMaxIterations and ResolveMaxCost, when above 0, replace every
	// task's resolve_max_iterations and resolve_max_cost.
	ResolveMaxIterations int
	ResolveMaxCost       float64
	// NewAgent builds a resolution loop's agent; nil means agent.New.
	NewAgent func(agent.Config) (agent.Agent, error)
	// Redact, when set, makes the masking of a task's resolution loop (as
	// its own loop's).
	Redact func(config.Config) (func(string) string, error)
	// Env, by task id, is the environment of its checks and resolution
	// loop; a missing entry means architect's own.
	Env map[string][]string
	Log io.Writer // progress lines
}

// QueueEntry is what became of one task.
type QueueEntry struct {
	Order   int    `json:"order,omitempty"` // 1, 2, … in the order merged; 0 when not merged
	ID      string `json:"id"`
	Branch  string `json:"branch"`
	Tip     string `json:"tip,omitempty"` // the branch's commit that was taken
	Outcome string `json:"outcome"`
	// How it landed: rebased, merged, squashed, or resolved (by a
	// resolution loop).
	How    string `json:"how,omitempty"`
	Reason string `json:"reason,omitempty"` // why it was left, or not taken
	// From and To are the target before and after it (merged only).
	From       string      `json:"from,omitempty"`
	To         string      `json:"to,omitempty"`
	Resolution *Resolution `json:"resolution,omitempty"`
}

// Resolution is a task's resolution loop: why it ran, how it ended, what
// it cost, and where its records are.
type Resolution struct {
	Why        string   `json:"why"` // the conflict, or the checks that failed
	Success    bool     `json:"success"`
	StopReason string   `json:"stop_reason,omitempty"`
	Iterations int      `json:"iterations"`
	Cost       *float64 `json:"cost"` // null when some iteration's cost is unknown
	KnownCost  float64  `json:"known_cost"`
	Records    string   `json:"records,omitempty"`
}

// QueueResult is the queue's account: the target, where it started and
// ended, and each task's entry in the order they were taken.
type QueueResult struct {
	Target  string       `json:"target"`
	Created bool         `json:"created,omitempty"` // the queue created the target branch
	Start   string       `json:"start"`             // the target when the queue began
	End     string       `json:"end"`               // and when it ended
	How     string       `json:"how"`
	Squash  bool         `json:"squash,omitempty"`
	Tasks   []QueueEntry `json:"tasks"`
	Records string       `json:"-"` // the queue's records folder
	Stopped string       `json:"stopped,omitempty"`
}

// Merged counts the tasks the queue merged.
func (q *QueueResult) Merged() int {
	n := 0
	for _, e := range q.Tasks {
		if e.Outcome == QueueMerged {
			n++
		}
	}
	return n
}

// Complete reports whether every task is on the target (merged now or
// before).
func (q *QueueResult) Complete() bool {
	for _, e := range q.Tasks {
		if e.Outcome != QueueMerged && e.Outcome != QueueAlready {
			return false
		}
	}
	return q.Stopped == ""
}

// queue is one run of the queue.
type queue struct {
	o       QueueOptions
	repo    *gitwt.Repo
	scratch string      // the scratch worktree
	sr      *gitwt.Repo // opened there
	tip     string      // the target now
	res     *QueueResult
	prev    map[string]QueueEntry // an earlier queue's entries by id
	byID    map[string]QueueTask
	log     io.Writer
}

// Queue runs the merge queue over tasks (in the batch file's order, o.Order
// first). It returns the account even when it stops early; the error is
// the reason it stopped (ctx's cause when interrupted), or one that kept it
// from starting (changing nothing).
func Queue(ctx context.Context, tasks []QueueTask, o QueueOptions) (*QueueResult, error) {
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.How == "" {
		o.How = HowRebase
	}
	ordered, repo, target, err := check(ctx, tasks, o)
	if err != nil {
		return nil, err
	}
	records := runlog.MergeQueueDir(repo.Dir(), target)
	lock, err := runlog.LockWorkspace(records)
	if err != nil {
		return nil, &usererr.Error{Msg: "another merge queue onto " + target + " is running", Hint: "wait for it to end; its records are in " + records, Err: err}
	}
	defer func() { _ = lock.Unlock() }()
	q := &queue{o: o, repo: repo, log: o.Log, prev: earlier(records),
		res: &QueueResult{Target: target, How: o.How, Squash: o.Squash, Records: records}, byID: map[string]QueueTask{}}
	for _, t := range tasks {
		q.byID[t.ID] = t
	}
	if err := q.start(ctx, target); err != nil {
		return nil, err
	}
	// The scratch worktree goes however the queue ends, a cancel included;
	// one a SIGKILL left is removed by the next queue (start).
	defer func() {
		if err := repo.RemoveCandidate(context.WithoutCancel(ctx), q.scratch); err != nil {
			usererr.Say(q.log, usererr.LevelWarning, "could not remove the scratch worktree %s: %v", q.scratch, err)
		}
	}()
	for i, t := range ordered {
		if err := ctx.Err(); err != nil {
			q.stop(ordered[i:], "interrupted")
			break
		}
		e, err := q.take(ctx, t)
		q.res.Tasks = append(q.res.Tasks, e)
		q.save()
		if err != nil {
			q.stop(ordered[i+1:], err.Error())
			q.res.End = q.tip
			q.save()
			return q.res, err
		}
	}
	q.res.End = q.tip
	q.save()
	if cause := context.Cause(ctx); cause != nil {
		return q.res, cause
	}
	return q.res, nil
}

// CheckQueue refuses, changing nothing, options the queue would refuse:
// --how, --order, a target that is not a branch name or is checked out.
// architect batch --merge asks before the tasks run.
func CheckQueue(ctx context.Context, tasks []QueueTask, o QueueOptions) error {
	_, _, _, err := check(ctx, tasks, o)
	return err
}

// check validates o for tasks: it returns the tasks in order, the
// repository and the target branch.
func check(ctx context.Context, tasks []QueueTask, o QueueOptions) ([]QueueTask, *gitwt.Repo, string, error) {
	if o.How != "" && o.How != HowRebase && o.How != HowMerge {
		return nil, nil, "", &usererr.Error{Msg: fmt.Sprintf("--how %q: not a way to merge", o.How), Hint: "--how rebase (the task's commits replayed on the target) or --how merge (a merge commit)"}
	}
	ordered, err := order(tasks, o.Order)
	if err != nil {
		return nil, nil, "", err
	}
	repo, err := openRepo(ctx, o.Dir, "merge")
	if err != nil {
		return nil, nil, "", err
	}
	target := o.Onto
	if target == "" {
		target = DefaultTarget(o.Name)
	}
	if err := repo.Git(ctx, gitwt.Command{}, "check-ref-format", "--branch", target); err != nil {
		return nil, nil, "", &usererr.Error{Msg: fmt.Sprintf("--onto %q: not a branch name git takes", target), Hint: "name a branch, e.g. --onto architect/merge-batch"}
	}
	if err := notCheckedOut(ctx, repo, target); err != nil {
		return nil, nil, "", err
	}
	return ordered, repo, target, nil
}

// DefaultTarget is the target branch of the queue of batch name.
func DefaultTarget(name string) string {
	name = strings.TrimSuffix(strings.TrimSuffix(filepath.Base(name), ".yaml"), ".yml")
	if !config.ValidWorktreeName(name) {
		return "architect/merge"
	}
	return "architect/merge-" + name
}

// order is tasks with the ids of first at the front, in that order.
func order(tasks []QueueTask, first []string) ([]QueueTask, error) {
	var out []QueueTask
	for _, id := range first {
		i := slices.IndexFunc(tasks, func(t QueueTask) bool { return t.ID == id })
		if i < 0 {
			ids := make([]string, len(tasks))
			for k, t := range tasks {
				ids[k] = t.ID
			}
			return nil, &usererr.Error{Msg: fmt.Sprintf("--order: no task %q in the batch", id), Hint: "the tasks are: " + strings.Join(ids, ", ")}
		}
		if slices.ContainsFunc(out, func(t QueueTask) bool { return t.ID == id }) {
			return nil, &usererr.Error{Msg: fmt.Sprintf("--order: task %q named twice", id), Hint: "name each task once; those not named follow in the batch file's order"}
		}
		out = append(out, tasks[i])
	}
	for _, t := range tasks {
		if !slices.Contains(first, t.ID) {
			out = append(out, t)
		}
	}
	return out, nil
}

// notCheckedOut refuses a target checked out in a worktree: moving it
// would change that checkout's files under it.
func notCheckedOut(ctx context.Context, repo *gitwt.Repo, target string) error {
	wts, err := repo.Worktrees(ctx)
	if err != nil {
		return err
	}
	for _, wt := range wts {
		if wt.Branch == target {
			return &usererr.Error{
				Msg:  fmt.Sprintf("%s is checked out in %s: the merge queue never moves a checked-out branch", target, wt.Path),
				Hint: fmt.Sprintf("leave --onto out (the queue makes %s) or name another branch, then bring it in with git merge --ff-only", DefaultTarget("batch")),
			}
		}
	}
	return nil
}

// start finds (or creates, at HEAD) the target, and makes the scratch
// worktree there.
func (q *queue) start(ctx context.Context, target string) error {
	ok, err := q.repo.BranchExists(ctx, target)
	if err != nil {
		return err
	}
	if ok {
		if q.tip, err = q.repo.Rev(ctx, "refs/heads/"+target); err != nil {
			return err
		}
	} else {
		if q.tip, err = q.repo.Head(ctx); err != nil {
			return err
		}
		if q.tip == "" {
			return &usererr.Error{Msg: "the repository has no commit to start " + target + " from", Hint: "make a first commit"}
		}
		if err := q.repo.UpdateBranch(ctx, target, q.tip, "", "architect merge: start the queue"); err != nil {
			return err
		}
		q.res.Created = true
		fmt.Fprintf(q.log, "architect: made branch %s at %s (the checkout's HEAD)\n", target, short(q.tip))
	}
	q.res.Start = q.tip
	q.scratch = filepath.Join(q.repo.Dir(), loop.NamedWorktreesDir, ".merge-"+strings.ReplaceAll(target, "/", "-"))
	// A scratch worktree left by a queue that was killed: nothing in it is
	// the user's (the lock says no queue uses it).
	if err := q.repo.RemoveCandidate(ctx, q.scratch); err != nil {
		return err
	}
	if err := q.repo.AddCandidate(ctx, q.scratch, q.tip); err != nil {
		return err
	}
	q.sr, err = gitwt.Open(ctx, q.scratch)
	return err
}

// stop marks the tasks not taken as not run, for why.
func (q *queue) stop(rest []QueueTask, why string) {
	q.res.Stopped = why
	for _, t := range rest {
		q.res.Tasks = append(q.res.Tasks, QueueEntry{ID: t.ID, Branch: t.Branch, Outcome: QueueNotRun, Reason: "the queue stopped before its turn: " + why})
	}
}

// take brings one task onto the target, or says why not. An error stops
// the queue: the target cannot be trusted to move (someone moved it, git
// failed).
func (q *queue) take(ctx context.Context, t QueueTask) (QueueEntry, error) {
	e := QueueEntry{ID: t.ID, Branch: t.Branch}
	if !t.Succeeded {
		e.Outcome, e.Reason = QueueNotTaken, cmpOr(t.Why, "the task did not succeed")
		fmt.Fprintf(q.log, "architect: [%s] not taken: %s\n", t.ID, e.Reason)
		return e, nil
	}
	tip, err := q.repo.Rev(ctx, "refs/heads/"+t.Branch)
	if err != nil {
		e.Outcome, e.Reason = QueueLeft, "its branch "+t.Branch+" cannot be read: "+err.Error()
		return e, nil
	}
	e.Tip = tip
	if in, err := q.repo.IsAncestor(ctx, tip, q.tip); err != nil {
		return e, err
	} else if p, was := q.wasMerged(ctx, t.ID, tip); in || was {
		e.Outcome, e.Reason, e.To = QueueAlready, "the target has its work already", p.To
		fmt.Fprintf(q.log, "architect: [%s] already on %s\n", t.ID, q.res.Target)
		return e, nil
	}
	base, err := q.repo.MergeBase(ctx, q.tip, tip)
	if err != nil {
		return e, err
	}
	if err := q.reset(ctx, q.tip); err != nil {
		return e, err
	}
	msg := q.message(t, tip)
	applied, conflicts, err := q.apply(ctx, base, tip, msg)
	if err != nil {
		e.Outcome, e.Reason = QueueLeft, err.Error()
		return e, ctx.Err()
	}
	var failed []checks.Result
	how := map[bool]string{true: "squashed", false: map[string]string{HowRebase: "rebased", HowMerge: "merged"}[q.o.How]}[q.o.Squash]
	final := ""
	if applied {
		head, err := q.sr.Head(ctx)
		if err != nil {
			return e, err
		}
		if head == q.tip {
			e.Outcome, e.Reason = QueueAlready, "its changes are on the target already"
			return e, nil
		}
		if failed = q.check(ctx, t); len(failed) == 0 {
			final = head
		}
		if ctx.Err() != nil {
			e.Outcome, e.Reason = QueueLeft, "interrupted while its checks ran"
			return e, nil
		}
	}
	if final == "" {
		why := "its branch conflicts with " + q.res.Target + " in " + listFew(conflicts)
		if applied {
			why = "after the " + map[string]string{HowRebase: "rebase", HowMerge: "merge"}[q.o.How] + " onto " + q.res.Target + " the checks fail: " + failedNames(failed)
		}
		fmt.Fprintf(q.log, "architect: [%s] %s\n", t.ID, why)
		iters, cost := q.limits(t)
		if q.o.NoResolve || iters == 0 {
			e.Outcome, e.Reason = QueueLeft, why+"; no resolution loop (--no-resolve)"
			return e, nil
		}
		r, commit, err := q.resolve(ctx, t, resolveInput{base: base, tip: tip, why: why, conflicts: conflicts, failed: failed, applied: applied, msg: msg, iters: iters, cost: cost})
		e.Resolution = r
		if err != nil {
			e.Outcome, e.Reason = QueueLeft, why+"; "+err.Error()
			return e, nil
		}
		final, how = commit, "resolved"
	}
	if err := q.repo.UpdateBranch(ctx, q.res.Target, final, q.tip, "architect merge: "+t.ID); err != nil {
		e.Outcome, e.Reason = QueueLeft, "the target could not be moved: "+err.Error()
		return e, &usererr.Error{Msg: q.res.Target + " could not be moved (did something else move it?)", Hint: "look at `git reflog " + q.res.Target + "`; run the queue again to go on", Err: err}
	}
	e.Outcome, e.How, e.From, e.To = QueueMerged, how, q.tip, final
	e.Order = q.res.Merged() + 1
	q.tip = final
	fmt.Fprintf(q.log, "architect: [%s] %s onto %s, the checks green: %s is at %s\n", t.ID, how, q.res.Target, q.res.Target, short(final))
	return e, nil
}

// wasMerged: an earlier queue onto this target merged this very tip, and
// what it made is on the target still.
func (q *queue) wasMerged(ctx context.Context, id, tip string) (QueueEntry, bool) {
	p, ok := q.prev[id]
	if !ok || p.Tip != tip || p.To == "" {
		return QueueEntry{}, false
	}
	in, err := q.repo.IsAncestor(ctx, p.To, q.tip)
	return p, err == nil && in
}

// reset brings the scratch worktree to commit, clean, and its records
// away.
func (q *queue) reset(ctx context.Context, commit string) error {
	for _, abort := range [][]string{{"rebase", "--abort"}, {"merge", "--abort"}} {
		_ = q.sr.Git(ctx, gitwt.Command{}, abort...) // fails when none is under way
	}
	return q.repo.ResetCandidate(ctx, q.scratch, commit, nil)
}

// apply rebases or merges tip (whose base on the target is base) onto the
// target in the scratch worktree. applied is false with the conflicting
// paths when it conflicts (the scratch is then back at the target); an
// error is a git failure that is not a conflict.
func (q *queue) apply(ctx context.Context, base, tip, msg string) (applied bool, conflicts []string, err error) {
	id, err := q.repo.Identity(ctx)
	if err != nil {
		return false, nil, err
	}
	git := func(args ...string) error {
		full := append(append([]string{"-c", "core.hooksPath=" + os.DevNull, "-c", "advice.detachedHead=false"}, id...), args...)
		return q.sr.Git(ctx, gitwt.Command{}, full...)
	}
	var op error
	switch {
	case q.o.Squash:
		if op = git("merge", "--squash", "--quiet", tip); op == nil {
			if err := git("commit", "--quiet", "--no-verify", "--allow-empty", "-m", msg); err != nil {
				return false, nil, err
			}
		}
	case q.o.How == HowMerge:
		op = git("merge", "--no-ff", "--no-edit", "--quiet", "-m", msg, tip)
	default:
		op = git("rebase", "--quiet", "--onto", q.tip, base, tip)
	}
	if op == nil {
		return true, nil, nil
	}
	if ctx.Err() != nil {
		return false, nil, ctx.Err()
	}
	conflicts, err = unmerged(ctx, q.sr)
	if err != nil || len(conflicts) == 0 {
		return false, nil, fmt.Errorf("git could not bring it onto the target: %w", op)
	}
	return false, conflicts, q.reset(ctx, q.tip)
}

// unmerged lists the paths with conflicts in r's index.
func unmerged(ctx context.Context, r *gitwt.Repo) ([]string, error) {
	out, err := r.Output(ctx, "diff", "--name-only", "--diff-filter=U")
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, p := range strings.Split(out, "\n") {
		if p != "" && !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	return paths, nil
}

// check runs the task's checks in the scratch worktree, as its loop runs
// them (its shell, timeout, grace, environment); it returns those that
// failed.
func (q *queue) check(ctx context.Context, t QueueTask) []checks.Result {
	if len(t.Config.Checks) == 0 {
		return nil
	}
	rs := checks.Run(ctx, t.Config.Checks, checks.Options{Dir: q.scratch, Env: q.o.Env[t.ID], Timeout: t.Config.CheckTimeout, Grace: t.Config.KillGrace, Shell: t.Config.CheckShell})
	var failed []checks.Result
	for _, r := range rs {
		if !r.Passed {
			failed = append(failed, r)
		}
	}
	if ctx.Err() != nil && len(failed) == 0 {
		return rs // stopped: nothing passed that was not seen to
	}
	return failed
}

// limits are the iterations and cost limit of t's resolution loop.
func (q *queue) limits(t QueueTask) (int, float64) {
	iters, cost := t.Config.ResolveMaxIterations, t.Config.ResolveMaxCost
	if q.o.ResolveMaxIterations > 0 {
		iters = q.o.ResolveMaxIterations
	}
	if iters <= 0 {
		iters = config.DefaultResolveIterations
	}
	if q.o.ResolveMaxCost > 0 {
		cost = q.o.ResolveMaxCost
	}
	if cost <= 0 {
		cost = t.Config.MaxCost
	}
	return iters, cost
}

func failedNames(rs []checks.Result) string {
	names := make([]string, len(rs))
	for i, r := range rs {
		names[i] = r.Name + " (" + r.Status() + ")"
	}
	return listFew(names)
}

// message is the commit message of t's work on the target (a squash, a
// merge commit, a resolution).
func (q *queue) message(t QueueTask, tip string) string {
	return fmt.Sprintf("architect: %s\n\nTask %s of the batch, from branch %s at %s, brought onto %s by the merge queue.",
		TaskTitle(t.Config.Task, t.Config.Spec), t.ID, t.Branch, short(tip), q.res.Target)
}

// earlier reads an earlier queue's entries from its records, by id.
func earlier(records string) map[string]QueueEntry {
	prev := map[string]QueueEntry{}
	var r QueueResult
	if err := runlog.ReadJSON(filepath.Join(records, runlog.MergeQueueFile), &r); err != nil {
		return prev
	}
	for _, e := range r.Tasks {
		if (e.Outcome == QueueMerged || e.Outcome == QueueAlready) && e.To != "" {
			prev[e.ID] = e
		}
	}
	return prev
}

// save writes the queue's account to its records (queue.json, and
// queue.md for people), as it stands.
func (q *queue) save() {
	if err := runlog.WriteJSON(filepath.Join(q.res.Records, runlog.MergeQueueFile), q.res); err != nil {
		usererr.Say(q.log, usererr.LevelWarning, "could not write the queue's records: %v", err)
	}
	var b strings.Builder
	WriteQueueMarkdown(&b, q.res)
	_ = runlog.WriteFileQuick(filepath.Join(q.res.Records, runlog.MergeQueueText), []byte(b.String()))
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
