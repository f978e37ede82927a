package gitwt

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/matryer/is"
)

// SnapshotCommit makes a commit of the working tree without moving a
// branch or touching the index or the files.
func TestSnapshotCommit(t *testing.T) {
	is := is.New(t)
	dir, base := repoWithCommit(t)
	ctx := context.Background()
	r := open(t, dir)
	write(t, dir, "README.md", "changed\n")
	write(t, dir, "PROMPT.md", "the task\n")
	write(t, dir, ".gitignore", "*.log\n")
	write(t, dir, "debug.log", "ignored\n")
	write(t, dir, ".architect/state.json", "{}\n")
	gitT(t, dir, "add", "PROMPT.md") // staged, to see the index stays as it was
	statusBefore := gitT(t, dir, "status", "--porcelain")
	index, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	is.NoErr(err)

	hash, err := r.SnapshotCommit(ctx, "architect: uncommitted changes", []string{".architect"})
	is.NoErr(err)
	is.Equal(gitT(t, dir, "rev-parse", "HEAD"), base) // no branch moved
	is.Equal(gitT(t, dir, "rev-parse", hash+"^"), base)
	is.Equal(gitT(t, dir, "show", "--format=", "--name-only", hash), ".gitignore\nPROMPT.md\nREADME.md")
	is.Equal(gitT(t, dir, "show", hash+":README.md"), "changed")
	is.Equal(gitT(t, dir, "status", "--porcelain"), statusBefore)
	after, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	is.NoErr(err)
	is.Equal(after, index) // the user's index is untouched

	// Nothing uncommitted (what git ignores and the excludes aside): no
	// commit, HEAD itself.
	gitT(t, dir, "add", "-A")
	gitT(t, dir, "commit", "-qm", "all")
	head := gitT(t, dir, "rev-parse", "HEAD")
	hash, err = r.SnapshotCommit(ctx, "architect: uncommitted changes", []string{".architect"})
	is.NoErr(err)
	is.Equal(hash, head)
}
