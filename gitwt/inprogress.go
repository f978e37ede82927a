package gitwt

import (
	"os"
	"path/filepath"
)

// Operation is a git operation that stopped half way and waits for the
// user (a merge or a cherry-pick with a conflict, a rebase, a bisect).
type Operation struct {
	Name string // "merge", "rebase", "cherry-pick", "revert", "git am" or "bisect"
	// Continue and Abort are the commands that finish it or give it up.
	Continue, Abort string
}

// inProgress are the files git leaves in the git folder while an
// operation waits, in the order git's own status looks for them.
var inProgress = []struct {
	file string
	op   Operation
}{
	{"rebase-merge", Operation{"rebase", "git rebase --continue", "git rebase --abort"}},
	{filepath.Join("rebase-apply", "applying"), Operation{"git am", "git am --continue", "git am --abort"}},
	{"rebase-apply", Operation{"rebase", "git rebase --continue", "git rebase --abort"}},
	{"MERGE_HEAD", Operation{"merge", "git commit", "git merge --abort"}},
	{"CHERRY_PICK_HEAD", Operation{"cherry-pick", "git cherry-pick --continue", "git cherry-pick --abort"}},
	{"REVERT_HEAD", Operation{"revert", "git revert --continue", "git revert --abort"}},
	{filepath.Join("sequencer", "todo"), Operation{"cherry-pick", "git cherry-pick --continue", "git cherry-pick --abort"}},
	{"BISECT_LOG", Operation{"bisect", "git bisect good or bad until it ends, then git bisect reset", "git bisect reset"}},
}

// InProgress returns the operation waiting in this working tree, if any.
func (r *Repo) InProgress() (Operation, bool) {
	for _, f := range inProgress {
		if _, err := os.Lstat(filepath.Join(r.gitDir, f.file)); err == nil {
			return f.op, true
		}
	}
	return Operation{}, false
}

// CommitHeads reports whether `git commit` would make a commit other than
// one on HEAD alone: a merge (MERGE_HEAD), or one that ends a cherry-pick
// or a revert (CHERRY_PICK_HEAD, REVERT_HEAD: the author, the state
// cleared). Such a commit goes through git commit.
func (r *Repo) CommitHeads() bool {
	for _, f := range []string{"MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD"} {
		if _, err := os.Lstat(filepath.Join(r.gitDir, f)); err == nil {
			return true
		}
	}
	return false
}
