package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/architect-dev/architect/gitwt"
	"github.com/architect-dev/architect/loop"
	"github.com/architect-dev/architect/prompt"
	"github.com/architect-dev/architect/report"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/usererr"
	"github.com/spf13/cobra"
)

func newMergeCmd(e *env) *cobra.Command {
	var o mergeOptions
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
		Args:              maxArgs(1, "merge takes at most one worktree NAME", "architect merge [NAME] [--squash]"),
		ValidArgsFunction: completeWorktreeNames,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				o.name = args[0]
			}
			return runMerge(cmd.Context(), e, o)
		},
	}
	c.Flags().BoolVar(&o.squash, "squash", false, "make the branch's changes one commit on the current branch")
	c.Flags().BoolVar(&o.keep, "keep", false, "keep the worktree and the branch after merging")
	c.Flags().StringVarP(&o.dir, "dir", "C", ".", "repository `directory` (its main checkout)")
	_ = c.MarkFlagDirname("dir")
	return c
}

type mergeOptions struct {
	name, dir    string
	squash, keep bool
}

func runMerge(ctx context.Context, e *env, o mergeOptions) error {
	repo, err := openRepo(ctx, o.dir, "merge")
	if err != nil {
		return err
	}
	wtDir, branch := loop.WorktreeFor(o.name)
	if ok, err := repo.BranchExists(ctx, branch); err != nil {
		return err
	} else if !ok {
		return &usererr.Error{Msg: fmt.Sprintf("there is no branch %s to merge", branch), Hint: "name the run: architect merge NAME (its worktree is .architect-worktrees/NAME); `git worktree list` lists them"}
	}
	current, err := repo.CurrentBranch(ctx)
	if err != nil {
		return err
	}
	switch current {
	case "":
		return &usererr.Error{Msg: "HEAD is detached here: there is no branch to merge into", Hint: "check out the branch to merge into (git switch main), then run architect merge"}
	case branch:
		return &usererr.Error{Msg: "this is the loop's own worktree (on " + branch + ")", Hint: "run architect merge in the main checkout, or pass it with -C DIR"}
	}
	wt, err := repo.WorktreeOf(ctx, branch)
	if err != nil {
		return err
	}
	ws, st := runOf(repo.Dir(), wtDir)
	if ws != "" && runlog.Running(ws) {
		return &usererr.Error{Msg: fmt.Sprintf("the loop on %s is still running", branch), Hint: "wait for it to end, or stop it with `architect cancel" + nameFlag(o.name) + "`"}
	}
	if wt != "" {
		if err := worktreeClean(ctx, wt); err != nil {
			return err
		}
	}
	mc, err := repo.CheckMerge(ctx, branch)
	if err != nil {
		if errors.Is(err, gitwt.ErrMergeTreeUnsupported) {
			return &usererr.Error{Msg: err.Error(), Hint: "upgrade git, or merge by hand: git merge " + branch}
		}
		return err
	}
	if mc.Commits == 0 {
		fmt.Fprintf(e.stderr, "architect: %s has nothing that %s lacks: nothing to merge\n", branch, current)
		if o.keep {
			return nil
		}
		if err := keepRecords(ctx, e.stderr, repo, wtDir, branch); err != nil {
			return err
		}
		return removeRun(ctx, e.stderr, repo, wtDir, branch, false)
	}
	if err := mergeRefusal(mc, branch, current, o.squash); err != nil {
		return err
	}
	msg := mergeMessage(branch, mc.Commits, st, ws)
	tip, err := repo.Rev(ctx, branch)
	if err != nil {
		return err
	}
	// Untracked files here that the branch has with the same content (the
	// uncommitted changes a --include-uncommitted run copied): the merge
	// writes them back as they are. They are restored if it fails.
	saved := map[string][]byte{}
	for _, p := range mc.Same {
		data, err := os.ReadFile(filepath.Join(repo.Dir(), p))
		if err != nil {
			return err
		}
		saved[p] = data
	}
	restore := func() {
		for p, data := range saved {
			path := filepath.Join(repo.Dir(), p)
			if _, err := os.Lstat(path); err != nil {
				_ = os.MkdirAll(filepath.Dir(path), 0o755)
				_ = os.WriteFile(path, data, 0o644)
			}
		}
	}
	for p := range saved {
		if err := os.Remove(filepath.Join(repo.Dir(), p)); err != nil {
			restore()
			return err
		}
	}
	head, err := repo.MergeBranch(ctx, branch, msg, o.squash)
	if err != nil {
		if !o.squash {
			_ = repo.AbortMerge(ctx)
		}
		restore()
		hint := "nothing was merged; merge by hand with git merge " + branch
		if o.squash {
			hint = "if the changes are staged, commit them with `git commit`, or undo them with `git reset --merge`"
		}
		return &failure{msg: "merging " + branch + ": " + err.Error(), hint: hint, code: ExitNoSuccess}
	}
	how := "merged"
	if o.squash {
		how = fmt.Sprintf("squashed %d commit%s of", mc.Commits, plural(mc.Commits))
	}
	fmt.Fprintf(e.stderr, "architect: %s %s into %s as %s\n", how, branch, current, short(head))
	if o.keep {
		return nil
	}
	if ws != "" && repo.Exclude(ctx, "/"+runlog.StateDir+"/") == nil {
		if to, err := archiveRecords(ws, repo.Dir(), branch); err == nil {
			fmt.Fprintf(e.stderr, "architect: the run's records are in %s\n", to)
		}
	}
	if err := removeRun(ctx, e.stderr, repo, wtDir, branch, false); err != nil {
		return err
	}
	if o.squash {
		fmt.Fprintf(e.stderr, "architect: the branch's commits stay reachable for a while: git branch %s %s restores it\n", branch, short(tip))
	}
	return nil
}

// mergeRefusal is why merging must not start, or nil.
func mergeRefusal(mc gitwt.MergeCheck, branch, current string, squash bool) error {
	by := "git merge " + branch
	if squash {
		by = "git merge --squash " + branch
	}
	switch {
	case len(mc.Dirty) > 0:
		return &usererr.Error{
			Msg:  fmt.Sprintf("%s has uncommitted changes (%s): merging now could mix them in", current, listFew(mc.Dirty)),
			Hint: "commit them, or set them aside with `git stash` and merge again (then `git stash pop`; changes a --include-uncommitted run copied are on the branch already)",
		}
	case len(mc.InTheWay) > 0:
		return &usererr.Error{
			Msg:  fmt.Sprintf("the merge would overwrite untracked files here with other content: %s", listFew(mc.InTheWay)),
			Hint: "move them away (or commit them) and merge again",
		}
	case len(mc.Conflicts) > 0:
		return &usererr.Error{
			Msg:  fmt.Sprintf("merging %s into %s would conflict in %s; nothing was changed", branch, current, listFew(mc.Conflicts)),
			Hint: fmt.Sprintf("merge by hand: %s, resolve the conflicts, commit, then `architect clean%s`", by, cleanName(branch)),
		}
	}
	return nil
}

// worktreeClean refuses a worktree with work that is not committed: the
// merge would leave it behind, and removing the worktree would lose it.
func worktreeClean(ctx context.Context, wt string) error {
	r, err := gitwt.Open(ctx, wt)
	if err != nil {
		return err
	}
	changes, err := r.Uncommitted(ctx, []string{runlog.StateDir})
	if err != nil {
		return err
	}
	if len(changes) > 0 {
		return &usererr.Error{
			Msg:  fmt.Sprintf("the worktree %s has uncommitted changes (%s) that the merge would leave behind", wt, listFew(changes)),
			Hint: fmt.Sprintf("commit them there (git -C %s add -A && git -C %s commit -m ...) or discard them, then merge again", wt, wt),
		}
	}
	return nil
}

// runOf finds the run recorded in the worktree wtDir of the repository at
// top: its workspace and state ("" and nil when there is none).
func runOf(top, wtDir string) (string, *runlog.State) {
	ws, err := findRun(filepath.Join(top, wtDir), "")
	if err != nil {
		return "", nil
	}
	st, err := runlog.ReadState(ws)
	if err != nil {
		return ws, nil
	}
	return ws, st
}

// mergeMessage is the merge commit's message: a title from the task, then
// the result, the checks and where the work came from.
func mergeMessage(branch string, commits int, st *runlog.State, ws string) string {
	if st == nil {
		return fmt.Sprintf("architect: merge %s\n\n%d commit%s from the loop's branch %s.", branch, commits, plural(commits), branch)
	}
	var res runlog.Result
	saved, err := runlog.ReadResult(ws)
	haveResult := err == nil
	if haveResult {
		res = *saved
	}
	var b strings.Builder
	cfg, _ := savedConfig(st) // what can be read of it
	b.WriteString("architect: " + taskTitle(cfg.Task, cfg.Spec) + "\n\n")
	switch {
	case haveResult && res.Success:
		fmt.Fprintf(&b, "Succeeded after %d iteration%s: every check passed and the agent declared completion.\n", res.TotalIterations, plural(res.TotalIterations))
	case haveResult:
		fmt.Fprintf(&b, "Stopped on %s after %d iteration%s, without success", res.StopReason, res.TotalIterations, plural(res.TotalIterations))
		if res.StopDetail != "" {
			b.WriteString(" (" + res.StopDetail + ")")
		}
		b.WriteString(".\n")
	default:
		fmt.Fprintf(&b, "Status: %s after %d iteration%s.\n", st.Status, st.Iteration, plural(st.Iteration))
	}
	if haveResult && len(res.Iterations) > 0 {
		last := res.Iterations[len(res.Iterations)-1]
		if len(last.CheckResults) > 0 {
			b.WriteString("\nChecks in the last iteration:\n")
			for _, c := range last.CheckResults {
				status := "passed"
				if !c.Passed {
					status = "failed (" + c.Status() + ")"
				}
				fmt.Fprintf(&b, "- %s: %s\n", c.Name, status)
			}
		}
		fmt.Fprintf(&b, "\nCost: %s.\n", res.Cost())
	}
	fmt.Fprintf(&b, "\nBranch %s (%d commit%s), agent %s.", branch, commits, plural(commits), cfg.Agent)
	if cfg.Task != "" && strings.Contains(strings.TrimSpace(cfg.Task), "\n") {
		b.WriteString("\n\nTask:\n" + clip(strings.TrimSpace(cfg.Task), 2000))
	}
	return b.String()
}

// taskTitle is a one-line title for the task or the spec (the report's).
func taskTitle(task, spec string) string {
	text, fallback := "", "loop result"
	if spec != "" {
		fallback = "work from " + filepath.Base(spec)
		if data, err := os.ReadFile(spec); err == nil {
			text = string(data)
		}
	}
	return clip(report.Title(task, text, fallback), 72)
}

// clip cuts s to n bytes at a character boundary, marking the cut.
func clip(s string, n int) string {
	head, rest := prompt.Truncate(s, n)
	if rest > 0 {
		head += "…"
	}
	return head
}

// archiveRecords moves the run's .architect/ records to
// top/.architect/runs/<branch>-<time>/, so they outlive the worktree.
func archiveRecords(ws, top, branch string) (string, error) {
	from := filepath.Join(ws, runlog.StateDir)
	name := strings.ReplaceAll(branch, "/", "-") + "-" + time.Now().UTC().Format("20060102T150405Z")
	to := filepath.Join(top, runlog.StateDir, "runs", name)
	if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
		return "", err
	}
	if err := os.Rename(from, to); err != nil {
		return "", err
	}
	return to, nil
}

func short(hash string) string {
	if len(hash) > 12 {
		return hash[:12]
	}
	return hash
}

// nameFlag is the --worktree-name flag naming a run, "" for the default.
func nameFlag(name string) string {
	if name == "" {
		return ""
	}
	return " --worktree-name " + name
}

// listFew names the first four items and counts the rest.
func listFew(items []string) string {
	const n = 4
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}
