// Package merge brings the work of a --worktree run home: it merges the
// run's branch into the branch checked out in the main checkout, keeps the
// run's records, and removes the worktree and the branch (Run); or removes
// them without merging (Clean). It refuses, changing nothing, whenever
// going on could lose work.
package merge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/architect-dev/architect/gitwt"
	"github.com/architect-dev/architect/loop"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/usererr"
)

// Options say which run's branch to merge, and how.
type Options struct {
	Name   string    // the run's worktree NAME; "" for the default worktree
	Dir    string    // the repository (its main checkout)
	Squash bool      // one ordinary commit instead of a merge commit
	Keep   bool      // keep the worktree and the branch after merging
	Log    io.Writer // where what was done is said, one `architect:` line each
}

// Error is a step that failed once merging or cleaning had started: its
// message, what to do about it, and its cause. Merge is set when the merge
// itself failed (nothing was merged, or a squash left its changes staged).
type Error struct {
	What, Hint string
	Err        error
	Merge      bool
}

// Error is What and the cause, "What: cause" (the cause alone without What).
func (e *Error) Error() string {
	if e.What == "" {
		return e.Err.Error()
	}
	return e.What + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// target is the branch to merge and the one to merge it into.
type target struct {
	repo            *gitwt.Repo
	wtDir, branch   string // the run's worktree (relative to the repository) and branch
	current         string // the branch checked out here
	ws              string // the run's workspace, "" when it has none
	st              *runlog.State
	check           gitwt.MergeCheck
	squash, keepRun bool
}

// Run merges the branch of the run o names into the branch checked out in
// o.Dir, then (unless o.Keep) moves the run's records to .architect/runs/
// there and removes its worktree and branch.
func Run(ctx context.Context, o Options) error {
	t, err := resolve(ctx, o)
	if err != nil {
		return err
	}
	if t.check.Commits == 0 {
		return t.nothingToMerge(ctx, o.Log)
	}
	if err := refusal(t.check, t.branch, t.current, t.squash); err != nil {
		return err
	}
	tip, err := t.repo.Rev(ctx, t.branch)
	if err != nil {
		return err
	}
	head, err := t.merge(ctx, message(t.branch, t.check.Commits, t.st, t.ws))
	if err != nil {
		return err
	}
	how := "merged"
	if t.squash {
		how = fmt.Sprintf("squashed %d commit%s of", t.check.Commits, plural(t.check.Commits))
	}
	fmt.Fprintf(o.Log, "architect: %s %s into %s as %s\n", how, t.branch, t.current, short(head))
	if t.keepRun {
		return nil
	}
	return t.finish(ctx, o.Log, tip)
}

// resolve finds what o asks to merge and refuses what must not be merged
// as it is: no such branch, a detached HEAD, the run's own worktree, a run
// still going, uncommitted work in the run's worktree.
func resolve(ctx context.Context, o Options) (*target, error) {
	repo, err := openRepo(ctx, o.Dir, "merge")
	if err != nil {
		return nil, err
	}
	t := &target{repo: repo, squash: o.Squash, keepRun: o.Keep}
	t.wtDir, t.branch = loop.WorktreeFor(o.Name)
	if ok, err := repo.BranchExists(ctx, t.branch); err != nil {
		return nil, err
	} else if !ok {
		return nil, &usererr.Error{Msg: fmt.Sprintf("there is no branch %s to merge", t.branch), Hint: "name the run: architect merge NAME (its worktree is .architect-worktrees/NAME); `git worktree list` lists them"}
	}
	if t.current, err = repo.CurrentBranch(ctx); err != nil {
		return nil, err
	}
	switch t.current {
	case "":
		return nil, &usererr.Error{Msg: "HEAD is detached here: there is no branch to merge into", Hint: "check out the branch to merge into (git switch main), then run architect merge"}
	case t.branch:
		return nil, &usererr.Error{Msg: "this is the loop's own worktree (on " + t.branch + ")", Hint: "run architect merge in the main checkout, or pass it with -C DIR"}
	}
	wt, err := repo.WorktreeOf(ctx, t.branch)
	if err != nil {
		return nil, err
	}
	t.ws, t.st = runOf(repo.Dir(), t.wtDir)
	if t.ws != "" && runlog.Running(t.ws) {
		return nil, &usererr.Error{Msg: fmt.Sprintf("the loop on %s is still running", t.branch), Hint: "wait for it to end, or stop it with `architect cancel" + nameFlag(o.Name) + "`"}
	}
	if wt != "" {
		if err := worktreeClean(ctx, wt); err != nil {
			return nil, err
		}
	}
	if t.check, err = repo.CheckMerge(ctx, t.branch); err != nil {
		if errors.Is(err, gitwt.ErrMergeTreeUnsupported) {
			return nil, &Error{Err: err, Hint: "upgrade git, or merge by hand: git merge " + t.branch}
		}
		return nil, err
	}
	return t, nil
}

// nothingToMerge says so, and (unless --keep) cleans the run up.
func (t *target) nothingToMerge(ctx context.Context, log io.Writer) error {
	fmt.Fprintf(log, "architect: %s has nothing that %s lacks: nothing to merge\n", t.branch, t.current)
	if t.keepRun {
		return nil
	}
	if err := keepRecords(ctx, log, t.repo, t.wtDir, t.branch); err != nil {
		return err
	}
	return removeRun(ctx, log, t.repo, t.wtDir, t.branch, false)
}

// merge merges the branch with the message msg and returns the new head.
// Untracked files here that the branch has with the same content (the
// uncommitted changes a --include-uncommitted run copied) are set aside
// first, since the merge writes them back as they are; they are restored
// if it fails.
func (t *target) merge(ctx context.Context, msg string) (string, error) {
	aside, err := setAside(t.repo.Dir(), t.check.Same)
	if err != nil {
		return "", err
	}
	head, err := t.repo.MergeBranch(ctx, t.branch, msg, t.squash)
	if err == nil {
		return head, nil
	}
	if !t.squash {
		_ = t.repo.AbortMerge(ctx)
	}
	aside.restore()
	hint := "nothing was merged; merge by hand with git merge " + t.branch
	if t.squash {
		hint = "if the changes are staged, commit them with `git commit`, or undo them with `git reset --merge`"
	}
	return "", &Error{What: "merging " + t.branch, Err: err, Hint: hint, Merge: true}
}

// finish moves the run's records to .architect/runs/ here and removes the
// worktree and the branch; after a squash it says how to get the branch's
// commits back (tip was the branch's last commit).
func (t *target) finish(ctx context.Context, log io.Writer, tip string) error {
	if t.ws != "" {
		// As keepRecords: the candidates' worktrees before the records move.
		if _, err := removeLeftCandidates(ctx, log, t.repo, t.ws); err != nil {
			return err
		}
	}
	if t.ws != "" && t.repo.Exclude(ctx, "/"+runlog.StateDir+"/") == nil {
		if to, err := archiveRecords(t.ws, t.repo.Dir(), t.branch, time.Now()); err == nil {
			fmt.Fprintf(log, "architect: the run's records are in %s\n", to)
		}
	}
	if err := removeRun(ctx, log, t.repo, t.wtDir, t.branch, false); err != nil {
		return err
	}
	if t.squash {
		fmt.Fprintf(log, "architect: the branch's commits stay reachable for a while: git branch %s %s restores it\n", t.branch, short(tip))
	}
	return nil
}

// asideFiles are files read before they were removed, by path under dir.
type asideFiles struct {
	dir   string
	files map[string][]byte
}

// setAside reads the files paths (relative to dir), then removes them; if
// one cannot be removed, those removed are written back.
func setAside(dir string, paths []string) (asideFiles, error) {
	a := asideFiles{dir: dir, files: map[string][]byte{}}
	for _, p := range paths {
		data, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			return a, err
		}
		a.files[p] = data
	}
	for p := range a.files {
		if err := os.Remove(filepath.Join(dir, p)); err != nil {
			a.restore()
			return a, err
		}
	}
	return a, nil
}

// restore writes back each file set aside that is not there.
func (a asideFiles) restore() {
	for p, data := range a.files {
		path := filepath.Join(a.dir, p)
		if _, err := os.Lstat(path); err != nil {
			_ = os.MkdirAll(filepath.Dir(path), 0o755)
			_ = os.WriteFile(path, data, 0o644)
		}
	}
}

// refusal is why merging must not start, or nil.
func refusal(mc gitwt.MergeCheck, branch, current string, squash bool) error {
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
			Hint: fmt.Sprintf("merge by hand: %s, resolve the conflicts, commit, then `architect clean%s`", by, NameArg(branch)),
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

// NameArg is the NAME argument that names branch in `architect clean` and
// `architect merge`: "" for the default worktree's, " NAME" for
// architect/NAME.
func NameArg(branch string) string {
	if branch == loop.DefaultBranch || branch == "" {
		return ""
	}
	return " " + branch[len("architect/"):]
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

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
