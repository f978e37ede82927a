package gitwt

import (
	"context"
	"testing"

	"github.com/matryer/is"
)

func TestUncommittedAndUntracked(t *testing.T) {
	is := is.New(t)
	dir, _ := repoWithCommit(t)
	ctx := context.Background()
	r := open(t, dir)
	paths, err := r.Uncommitted(ctx, []string{".architect"})
	is.NoErr(err)
	is.Equal(len(paths), 0)

	write(t, dir, "README.md", "changed\n")
	write(t, dir, "new/file.txt", "new\n")
	write(t, dir, ".gitignore", "*.log\n")
	write(t, dir, "debug.log", "ignored\n")
	write(t, dir, ".architect/state.json", "{}\n")
	paths, err = r.Uncommitted(ctx, []string{".architect"})
	is.NoErr(err)
	is.Equal(paths, []string{"README.md", ".gitignore", "new/file.txt"}) // tracked first; ignored and excluded left out
	untracked, err := r.Untracked(ctx, []string{".architect"})
	is.NoErr(err)
	is.Equal(untracked, []string{".gitignore", "new/file.txt"})
}

// Ignored says which paths git ignores, among those that exist.
func TestIgnored(t *testing.T) {
	is := is.New(t)
	dir, _ := repoWithCommit(t)
	write(t, dir, ".gitignore", "node_modules/\n.env\n")
	write(t, dir, "node_modules/x/index.js", "")
	write(t, dir, ".env", "A=1\n")
	write(t, dir, "vendor/a.txt", "")
	r := open(t, dir)
	got, err := r.Ignored(context.Background(), "node_modules", ".env", "vendor", ".venv")
	is.NoErr(err)
	is.Equal(got, []string{"node_modules", ".env"})
	none, err := r.Ignored(context.Background(), "vendor")
	is.NoErr(err)
	is.Equal(len(none), 0)
}
