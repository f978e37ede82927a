package gitwt

import (
	"bytes"
	"context"
	"errors"
	"strings"
)

// MergeCheck is what merging a branch into this checkout would run into,
// found without changing anything.
type MergeCheck struct {
	// Conflicts are the files both sides changed in ways git cannot
	// combine.
	Conflicts []string
	// Dirty are the tracked files of this checkout with uncommitted changes
	// (staged or not).
	Dirty []string
	// InTheWay are untracked files here that the branch adds with other
	// content: the merge would have to overwrite them.
	InTheWay []string
	// Same are untracked files here that the branch adds with the very same
	// content (copied there by --include-uncommitted, say): nothing is lost
	// by letting the merge write them.
	Same []string
	// Commits counts the branch's commits that HEAD does not have; 0 means
	// there is nothing to merge.
	Commits int
}

// ErrMergeTreeUnsupported: git is older than 2.38 and cannot check a merge
// without doing it.
var ErrMergeTreeUnsupported = errors.New("git 2.38 or newer is needed to check a merge before doing it")

// CheckMerge looks at what merging branch into HEAD would do.
func (r *Repo) CheckMerge(ctx context.Context, branch string) (MergeCheck, error) {
	var mc MergeCheck
	var err error
	if mc.Commits, err = r.UnmergedCommits(ctx, branch, "HEAD"); err != nil || mc.Commits == 0 {
		return mc, err
	}
	if mc.Conflicts, err = r.mergeConflicts(ctx, branch); err != nil {
		return mc, err
	}
	status, err := output(ctx, r.dir, "status", "--porcelain=v1", "--untracked-files=no", "--no-renames")
	if err != nil {
		return mc, err
	}
	for _, l := range strings.Split(status, "\n") {
		if len(l) > 3 {
			mc.Dirty = append(mc.Dirty, l[3:])
		}
	}
	mc.Same, mc.InTheWay, err = r.untrackedOnBranch(ctx, branch)
	return mc, err
}

// mergeConflicts lists the files that merging branch into HEAD would leave
// in conflict (`git merge-tree`, which writes no ref and no file).
func (r *Repo) mergeConflicts(ctx context.Context, branch string) ([]string, error) {
	var out bytes.Buffer
	err := run(ctx, r.dir, Command{Stdout: &out}, "merge-tree", "--write-tree", "--name-only", "--no-messages", "HEAD", branch)
	switch ExitCode(err) {
	case -1:
		return nil, err
	case 1: // conflicts: the tree's hash, then the conflicted files
		var conflicts []string
		lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
		for _, l := range lines[1:] {
			if l != "" && (len(conflicts) == 0 || conflicts[len(conflicts)-1] != l) {
				conflicts = append(conflicts, l)
			}
		}
		return conflicts, nil
	}
	var ge *GitError
	if errors.As(err, &ge) && strings.Contains(ge.Stderr, "usage:") {
		return nil, ErrMergeTreeUnsupported
	}
	return nil, err
}

// untrackedOnBranch sorts the untracked files that branch changes: those
// the branch holds as they are here (same), and the others (inTheWay),
// which git merge would refuse to overwrite.
func (r *Repo) untrackedOnBranch(ctx context.Context, branch string) (same, inTheWay []string, err error) {
	untracked, err := r.Untracked(ctx, nil)
	if err != nil || len(untracked) == 0 {
		return nil, nil, err
	}
	changed, err := output(ctx, r.dir, "diff", "--name-only", "--no-renames", "-z", "HEAD..."+branch, "--")
	if err != nil {
		return nil, nil, err
	}
	onBranch := map[string]bool{}
	for _, p := range strings.Split(changed, "\x00") {
		onBranch[p] = p != ""
	}
	for _, p := range untracked {
		if !onBranch[p] {
			continue
		}
		here, err1 := output(ctx, r.dir, "hash-object", "--", p)
		there, err2 := output(ctx, r.dir, "rev-parse", "--verify", "--quiet", branch+":"+p)
		if err1 == nil && err2 == nil && here == there {
			same = append(same, p)
		} else {
			inTheWay = append(inTheWay, p)
		}
	}
	return same, inTheWay, nil
}

// MergeBranch merges branch into the checked-out branch with a merge
// commit whose message is message (never a fast-forward, so the message
// and the branch's history both stay). With squash, the branch's changes
// become one ordinary commit with that message instead. A failure leaves
// git's own state (a merge in progress, or changes staged) for the caller
// to report; CheckMerge first avoids conflicts.
func (r *Repo) MergeBranch(ctx context.Context, branch, message string, squash bool) (string, error) {
	args, err := r.identity(ctx)
	if err != nil {
		return "", err
	}
	if !squash {
		err = run(ctx, r.dir, Command{}, append(args, "merge", "--no-ff", "--no-edit", "--quiet", "-m", message, branch)...)
	} else {
		if err = run(ctx, r.dir, Command{}, append(args, "merge", "--squash", "--quiet", branch)...); err == nil {
			err = run(ctx, r.dir, Command{}, append(args, "commit", "--quiet", "--cleanup=whitespace", "-m", message)...)
		}
	}
	if err != nil {
		return "", err
	}
	return r.Head(ctx)
}

// AbortMerge undoes a merge that stopped half-way (`git merge --abort`).
func (r *Repo) AbortMerge(ctx context.Context) error {
	return run(ctx, r.dir, Command{}, "merge", "--abort")
}
