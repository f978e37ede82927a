package merge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/checks"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/gitwt"
	"github.com/architect-dev/architect/loop"
	"github.com/architect-dev/architect/prompt"
	"github.com/architect-dev/architect/runlog"
)

// What a resolution loop's prompt carries of each diff, and of each failed
// check's output: enough to see both sides' intents, bounded however big
// the branches are.
const (
	taskDiffLimit   = 16 << 10
	mergedDiffLimit = 8 << 10
	mergedTextLimit = 48 << 10 // all the merged tasks' texts and diffs together
	checkTailLimit  = 4 << 10
)

// resolveInput is what a resolution loop starts from.
type resolveInput struct {
	base, tip string // the task's base on the target and its branch's commit
	why       string // the conflict or the failed checks, in a line
	conflicts []string
	failed    []checks.Result
	applied   bool   // it applied cleanly and its checks failed (else: a conflict)
	msg       string // the commit message of the task's work
	iters     int
	cost      float64
}

// resolve runs t's resolution loop in the scratch worktree: on the
// conflict (git's markers in the files, as a plain working tree with
// uncommitted changes) or on the applied work whose checks fail. Its
// success is committed, the checks run again on that commit, and the
// commit is returned; anything else is an error saying why, and the target
// does not move.
func (q *queue) resolve(ctx context.Context, t QueueTask, in resolveInput) (*Resolution, string, error) {
	r := &Resolution{Why: in.why}
	if !in.applied {
		if err := q.conflictTree(ctx, in.tip); err != nil {
			return r, "", err
		}
	}
	start, err := q.sr.Head(ctx)
	if err != nil {
		return r, "", err
	}
	cfg := t.Config
	cfg.Dir = q.scratch
	cfg.Worktree, cfg.WorktreeName, cfg.IncludeUncommitted = false, "", false
	cfg.Task, cfg.Spec, cfg.Mode = q.resolvePrompt(ctx, t, in), "", ""
	cfg.MaxIterations, cfg.MaxCost = in.iters, in.cost
	cfg.Candidates, cfg.CandidateAgents = 1, nil
	cfg.Events, cfg.OnIteration, cfg.OnFinish, cfg.Notify, cfg.Push = "", "", "", false, false
	cfg.Questions = config.QuestionsOff
	if cfg.Tests == "" {
		cfg.Tests = config.TestsKeep // a resolution keeps every test that is there
	}
	cfg.New = true
	newAgent := q.o.NewAgent
	if newAgent == nil {
		newAgent = agent.New
	}
	ag, err := newAgent(cfg.AgentConfig())
	if err != nil {
		return r, "", fmt.Errorf("its resolution agent cannot be made: %w", err)
	}
	deps := loop.Deps{Agent: ag, Log: &taskLog{w: q.log, prefix: "architect: [" + t.ID + " resolution] "}, Env: q.o.Env[t.ID], NewAgent: q.o.NewAgent}
	if q.o.Redact != nil {
		if deps.Redact, err = q.o.Redact(cfg); err != nil {
			return r, "", err
		}
	}
	fmt.Fprintf(q.log, "architect: [%s] resolution loop: at most %d iteration%s%s\n", t.ID, in.iters, plural(in.iters), costLimit(in.cost))
	res, runErr := loop.Run(ctx, cfg, deps)
	r.Records = q.keepResolution(t.ID)
	if res != nil {
		r.Success, r.StopReason, r.Iterations = res.Success, res.StopReason, res.TotalIterations
		r.Cost, r.KnownCost = res.TotalCost, res.KnownCost
	}
	switch {
	case runErr != nil:
		return r, "", fmt.Errorf("the resolution loop could not run: %w", runErr)
	case !res.Success:
		return r, "", fmt.Errorf("the resolution loop stopped on %s after %d iteration%s without success", res.StopReason, res.TotalIterations, plural(res.TotalIterations))
	}
	final, err := q.commitResolution(ctx, in, start, r)
	if err != nil {
		return r, "", err
	}
	if err := q.repo.ResetCandidate(ctx, q.scratch, final, nil); err != nil {
		return r, "", err
	}
	if failed := q.check(ctx, t); len(failed) > 0 {
		return r, "", fmt.Errorf("the checks fail on the resolved commit: %s", failedNames(failed))
	}
	return r, final, nil
}

// conflictTree brings the task's whole change onto the target in the
// scratch worktree with its conflicts as git writes them (markers in the
// files), then takes git's conflict state out of the index: what the
// resolution loop sees is a working tree with uncommitted changes on the
// target, as any agent knows one.
func (q *queue) conflictTree(ctx context.Context, tip string) error {
	if err := q.reset(ctx, q.tip); err != nil {
		return err
	}
	err := q.sr.Git(ctx, gitwt.Command{}, "-c", "core.hooksPath="+os.DevNull, "merge", "--squash", "--quiet", tip)
	if err == nil {
		return errors.New("the conflict did not come back")
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return q.sr.Git(ctx, gitwt.Command{}, "reset", "--quiet")
}

// commitResolution commits the resolved tree: one commit on the target
// for a conflict (a merge commit with the task's branch as second parent
// under --how merge), or for checks that failed after a clean apply, a
// commit on top of the applied work (the squashed commit replaced, under
// --squash).
func (q *queue) commitResolution(ctx context.Context, in resolveInput, head string, r *Resolution) (string, error) {
	snap, err := q.sr.Snapshot(ctx, "architect: resolution", []string{runlog.StateDir})
	if err != nil {
		return "", err
	}
	tree, err := q.sr.Output(ctx, "rev-parse", snap+"^{tree}")
	if err != nil {
		return "", err
	}
	note := fmt.Sprintf("\n\nResolved by the merge queue's resolution loop in %d iteration%s: %s.", r.Iterations, plural(r.Iterations), in.why)
	parents, msg := []string{head}, in.msg+note
	switch {
	case !in.applied && q.o.How == HowMerge && !q.o.Squash:
		parents = []string{q.tip, in.tip}
	case !in.applied || q.o.Squash:
		parents = []string{q.tip}
	default:
		msg = "architect: make the checks pass after bringing " + in.tip[:min(12, len(in.tip))] + " onto " + q.res.Target + note
	}
	return q.sr.CommitTreeParents(ctx, tree, parents, msg)
}

// keepResolution moves the resolution loop's records out of the scratch
// worktree into the queue's records (a folder named after the task, -2,
// -3, … when an earlier queue left one); it returns where.
func (q *queue) keepResolution(id string) string {
	from := filepath.Join(q.scratch, runlog.StateDir)
	if _, err := os.Lstat(from); err != nil {
		return ""
	}
	to := filepath.Join(q.res.Records, id)
	for n := 2; ; n++ {
		if _, err := os.Lstat(to); errors.Is(err, os.ErrNotExist) {
			break
		}
		to = filepath.Join(q.res.Records, fmt.Sprintf("%s-%d", id, n))
	}
	if err := os.Rename(from, to); err != nil {
		return ""
	}
	return to
}

// resolvePrompt is the resolution loop's task: what went wrong, both
// sides' intents (the task's text and diff, and those of the tasks already
// on the target since its base), and the checks that judge.
func (q *queue) resolvePrompt(ctx context.Context, t QueueTask, in resolveInput) string {
	var b strings.Builder
	target := q.res.Target
	if in.applied {
		fmt.Fprintf(&b, "Task %s's work was brought onto the branch %s (the tasks merged there before it are below), and now the checks fail. Change the code so that every check passes and both the task's intent and the intents of the tasks already on %s hold. Do not undo either side's work; the checks are the judge, leave them as they are.\n\n", t.ID, target, target)
		b.WriteString("## The checks that fail\n\n")
		for _, c := range in.failed {
			tail, _ := prompt.TruncateTail(c.Output, checkTailLimit)
			fmt.Fprintf(&b, "### `%s` (%s)\n\n```\n%s\n```\n\n", c.Name, c.Status(), strings.TrimRight(tail, "\n"))
		}
	} else {
		fmt.Fprintf(&b, "Task %s's branch conflicts with the branch %s, which has the work of the tasks below. Its whole change is applied here on top of %s, and these files hold git's conflict markers (<<<<<<<, =======, >>>>>>>): %s. The side above ======= is %s, the side below is task %s. Resolve every conflict so that both sides' intents hold, remove every marker, and make every check pass. Do not drop either side's work.\n\n", t.ID, target, target, strings.Join(in.conflicts, ", "), target, t.ID)
	}
	fmt.Fprintf(&b, "## The task being merged: %s\n\n%s\n\n", t.ID, strings.TrimSpace(taskText(t.Config)))
	fmt.Fprintf(&b, "### Its change (its branch against its base)\n\n```diff\n%s\n```\n\n", q.diff(ctx, in.base, in.tip, taskDiffLimit))
	fmt.Fprintf(&b, "## Already on %s since its base\n\n", target)
	left := mergedTextLimit
	shown := false
	for _, e := range q.res.Tasks {
		if e.Outcome != QueueMerged {
			continue
		}
		if old, err := q.repo.IsAncestor(ctx, e.To, in.base); err == nil && old {
			continue
		}
		shown = true
		if left <= 0 {
			fmt.Fprintf(&b, "- task %s (%s; its text and diff left out: the prompt has enough)\n", e.ID, e.Branch)
			continue
		}
		text := fmt.Sprintf("### Task %s\n\n%s\n\n```diff\n%s\n```\n\n", e.ID, strings.TrimSpace(q.taskTextOf(e.ID)), q.diff(ctx, e.From, e.To, mergedDiffLimit))
		left -= len(text)
		b.WriteString(text)
	}
	if !shown {
		b.WriteString("(no task of this queue; the target moved since the task's base)\n\n")
	}
	if len(t.Config.Checks) > 0 {
		b.WriteString("## The checks (each must exit 0)\n\n")
		for _, c := range t.Config.Checks {
			fmt.Fprintf(&b, "- `%s`\n", c)
		}
	}
	return b.String()
}

// taskText is a task's text: its task, or its spec file's.
func taskText(c config.Config) string {
	if c.Task != "" || c.Spec == "" {
		return c.Task
	}
	data, err := os.ReadFile(c.Spec)
	if err != nil {
		return "(the spec " + c.Spec + ")"
	}
	head, _ := prompt.Truncate(string(data), taskDiffLimit)
	return head
}

// taskTextOf is the text of the queue's task id.
func (q *queue) taskTextOf(id string) string {
	if t, ok := q.byID[id]; ok {
		return taskText(t.Config)
	}
	return ""
}

// diff is the diff from a to b, its first limit bytes, the cut said.
func (q *queue) diff(ctx context.Context, a, b string, limit int) string {
	h := &headWriter{limit: limit}
	if err := q.repo.Git(ctx, gitwt.Command{Stdout: h}, "diff", "--no-color", "--no-ext-diff", a, b, "--"); err != nil {
		return "(no diff: " + err.Error() + ")"
	}
	out := strings.TrimRight(string(h.buf), "\n")
	if h.cut > 0 {
		head, _ := prompt.Truncate(out, limit)
		out = head + fmt.Sprintf("\n… (%d more bytes of the diff left out)", h.cut)
	}
	return out
}

// headWriter keeps the first limit bytes written to it and counts the
// rest.
type headWriter struct {
	limit int
	buf   []byte
	cut   int
}

func (h *headWriter) Write(p []byte) (int, error) {
	room := max(h.limit-len(h.buf), 0)
	n := min(room, len(p))
	h.buf = append(h.buf, p[:n]...)
	h.cut += len(p) - n
	return len(p), nil
}

// taskLog prefixes the lines of a resolution loop with its task.
type taskLog struct {
	w      io.Writer
	prefix string
	buf    []byte
}

func (l *taskLog) Write(p []byte) (int, error) {
	l.buf = append(l.buf, p...)
	for {
		i := strings.IndexByte(string(l.buf), '\n')
		if i < 0 {
			return len(p), nil
		}
		fmt.Fprintf(l.w, "%s%s\n", l.prefix, strings.TrimPrefix(string(l.buf[:i]), "architect: "))
		l.buf = l.buf[i+1:]
	}
}

func costLimit(c float64) string {
	if c <= 0 {
		return ""
	}
	return fmt.Sprintf(", at most $%.2f", c)
}
