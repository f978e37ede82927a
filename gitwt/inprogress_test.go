package gitwt

import (
	"testing"

	"github.com/matryer/is"
)

// TestInProgress: each operation git leaves waiting, started for real, is
// named, and nothing is once it is given up.
func TestInProgress(t *testing.T) {
	for _, tc := range []struct {
		name  string
		start []string // stops on the conflict between main and other
		abort []string
	}{
		{"merge", []string{"merge", "-q", "other"}, []string{"merge", "--abort"}},
		{"rebase", []string{"rebase", "-q", "other"}, []string{"rebase", "--abort"}},
		{"cherry-pick", []string{"cherry-pick", "other"}, []string{"cherry-pick", "--abort"}},
		{"revert", []string{"revert", "--no-edit", "HEAD~1"}, []string{"revert", "--abort"}},
		{"bisect", []string{"bisect", "start", "HEAD", "HEAD~2"}, []string{"bisect", "reset"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			dir := newRepo(t)
			write(t, dir, "c", "base\n")
			commit(t, dir, "base")
			gitT(t, dir, "checkout", "-qb", "other")
			write(t, dir, "c", "theirs\n")
			commit(t, dir, "theirs")
			gitT(t, dir, "checkout", "-q", "main")
			write(t, dir, "c", "ours\n")
			commit(t, dir, "ours")
			write(t, dir, "c", "ours again\n")
			commit(t, dir, "ours again")
			r := open(t, dir)
			_, ok := r.InProgress()
			is.True(!ok)
			runGit(dir, tc.start...) // fails on the conflict, but for bisect
			op, ok := r.InProgress()
			is.True(ok)
			is.Equal(op.Name, tc.name)
			gitT(t, dir, tc.abort...)
			_, ok = r.InProgress()
			is.True(!ok)
		})
	}
}
