package loop

import (
	"testing"

	"github.com/architect-dev/architect/gitwt"
	"github.com/matryer/is"
)

// Only a detached worktree at WORKSPACE/.architect/candidates/N counts as
// a candidate's: clean must never take a user's worktree for one.
func TestCandidateOwner(t *testing.T) {
	for _, tc := range []struct {
		path, branch string
		owner        string // "": not a candidate's
	}{
		{"/r/.architect/candidates/1", "", "/r"},
		{"/r/sub/.architect/candidates/12", "", "/r/sub"},
		{"/r/.architect-worktrees/x/.architect/candidates/3", "", "/r/.architect-worktrees/x"},
		{"/r/.architect/candidates/1", "mine", ""}, // a branch checked out: a user's
		{"/r", "", ""},
		{"/r/.architect/candidates", "", ""},
		{"/r/.architect/candidates/0", "", ""},
		{"/r/.architect/candidates/01", "", ""},
		{"/r/.architect/candidates/x", "", ""},
		{"/r/architect/candidates/1", "", ""},
		{"/r/.architect/others/1", "", ""},
		{"", "", ""},
	} {
		owner, ok := candidateOwner(gitwt.Worktree{Path: tc.path, Branch: tc.branch})
		is.New(t).Equal(owner, tc.owner) // tc.path
		is.New(t).Equal(ok, tc.owner != "")
	}
}
