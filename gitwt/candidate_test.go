package gitwt

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"
)

// candidateRepo makes a repository with two commits: c1 (a.txt, keep.txt,
// sub/b.txt, .gitignore ignoring *.log and cache/) and c2 (a.txt changed,
// sub/b.txt deleted, new.txt added).
func candidateRepo(t *testing.T) (dir, c1, c2 string) {
	t.Helper()
	dir = newRepo(t)
	write(t, dir, "a.txt", "one\n")
	write(t, dir, "keep.txt", "unchanged\n")
	write(t, dir, "sub/b.txt", "b\n")
	write(t, dir, ".gitignore", "*.log\ncache/\n")
	c1 = commit(t, dir, "c1")
	write(t, dir, "a.txt", "two\n")
	gitT(t, dir, "rm", "-q", "sub/b.txt")
	write(t, dir, "new.txt", "new\n")
	c2 = commit(t, dir, "c2")
	return dir, c1, c2
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// assertAt checks that the worktree at path is detached at commit with a
// clean tracked state.
func assertAt(t *testing.T, path, commit string) {
	t.Helper()
	is := is.NewRelaxed(t)
	is.Equal(gitT(t, path, "rev-parse", "HEAD"), commit)
	_, err := runGit(path, "symbolic-ref", "-q", "HEAD")
	is.Equal(ExitCode(err), 1) // detached: HEAD names no branch
	is.Equal(gitT(t, path, "status", "--porcelain", "--untracked-files=no"), "")
}

func TestAddCandidate(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		prepare func(t *testing.T, r *Repo, path, c1 string) // before AddCandidate(path, c2)
		want    error
		check   func(t *testing.T, path string)
	}{
		{
			name:    "new, its parent made",
			prepare: func(*testing.T, *Repo, string, string) {},
		},
		{
			name: "an existing candidate is reused",
			prepare: func(t *testing.T, r *Repo, path, c1 string) {
				is.New(t).NoErr(r.AddCandidate(ctx, path, c1))
				write(t, path, "a.txt", "edited by an agent\n")
				write(t, path, "stray.txt", "untracked\n")
				write(t, path, "build.log", "ignored\n")
				write(t, path, "cache/x", "ignored\n")
				is.New(t).NoErr(os.WriteFile(filepath.Join(path, "marker"), nil, 0o644))
			},
			check: func(t *testing.T, path string) {
				is := is.New(t)
				is.True(!exists(filepath.Join(path, "stray.txt")))
				is.True(!exists(filepath.Join(path, "marker")))
				is.Equal(read(t, filepath.Join(path, "build.log")), "ignored\n")
				is.Equal(read(t, filepath.Join(path, "cache/x")), "ignored\n")
				is.Equal(read(t, filepath.Join(path, "a.txt")), "two\n")
			},
		},
		{
			name: "registered, its folder gone: made again",
			prepare: func(t *testing.T, r *Repo, path, c1 string) {
				is.New(t).NoErr(r.AddCandidate(ctx, path, c1))
				is.New(t).NoErr(os.RemoveAll(path))
			},
		},
		{
			name: "an empty folder is used",
			prepare: func(t *testing.T, _ *Repo, path, _ string) {
				is.New(t).NoErr(os.MkdirAll(path, 0o755))
			},
		},
		{
			name: "someone else's folder is refused, untouched",
			prepare: func(t *testing.T, _ *Repo, path, _ string) {
				write(t, path, "mine.txt", "the user's\n")
			},
			want: ErrWorktreeExists,
			check: func(t *testing.T, path string) {
				is := is.New(t)
				is.Equal(read(t, filepath.Join(path, "mine.txt")), "the user's\n")
				is.True(!exists(filepath.Join(path, "a.txt")))
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			dir, c1, c2 := candidateRepo(t)
			r := open(t, dir)
			path := filepath.Join(t.TempDir(), "cands", "1")
			tt.prepare(t, r, path, c1)
			err := r.AddCandidate(ctx, path, c2)
			is.True(errors.Is(err, tt.want)) // the error expected (nil when none)
			if tt.want == nil {
				assertAt(t, path, c2)
				is.True(r.registered(ctx, path))
				is.Equal(gitT(t, dir, "branch", "--list"), "* main") // no branch made
				is.Equal(read(t, filepath.Join(path, "new.txt")), "new\n")
			}
			if tt.check != nil {
				tt.check(t, path)
			}
		})
	}
}

func TestAddCandidateRelativePath(t *testing.T) {
	is := is.New(t)
	dir, _, c2 := candidateRepo(t)
	err := open(t, dir).AddCandidate(context.Background(), "cands/1", c2)
	is.True(err != nil)
	is.True(strings.Contains(err.Error(), "absolute"))
	is.True(!exists(filepath.Join(dir, "cands")))
}

func TestResetCandidate(t *testing.T) {
	ctx := context.Background()
	is := is.New(t)
	dir, c1, c2 := candidateRepo(t)
	r := open(t, dir)
	path := filepath.Join(t.TempDir(), "cand")
	is.NoErr(r.AddCandidate(ctx, path, c1))
	// An unchanged file's identity, to see it is not rewritten.
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	is.NoErr(os.Chtimes(filepath.Join(path, "keep.txt"), old, old))
	gitT(t, path, "update-index", "--refresh") // its new stat data in the candidate's index
	before, err := os.Stat(filepath.Join(path, "keep.txt"))
	is.NoErr(err)

	// What a round's agent leaves behind.
	write(t, path, "a.txt", "agent's edit\n")
	is.NoErr(os.Remove(filepath.Join(path, "sub/b.txt")))
	write(t, path, "new.txt", "untracked, in the way of c2's new.txt\n")
	write(t, path, "stray.txt", "untracked\n")
	write(t, path, "newdir/deep/x.txt", "untracked\n")
	write(t, path, "out.log", "ignored\n")
	write(t, path, "cache/blob", "ignored\n")
	write(t, path, ".architect/notes.md", "kept\n")
	write(t, path, "sub/keep me.txt", "kept by a second pathspec\n")
	write(t, path, "sub/drop.txt", "untracked\n")
	write(t, path, `w[1]*`, "kept, its name taken literally\n")
	write(t, path, "w1x", "untracked, matched by the name above as a pattern\n")

	is.NoErr(r.ResetCandidate(ctx, path, c2, []string{".architect", "sub/keep me.txt", `w[1]*`}))

	assertAt(t, path, c2)
	for name, want := range map[string]string{
		"a.txt":               "two\n",
		"new.txt":             "new\n",
		"out.log":             "ignored\n",
		"cache/blob":          "ignored\n",
		".architect/notes.md": "kept\n",
		"sub/keep me.txt":     "kept by a second pathspec\n",
		`w[1]*`:               "kept, its name taken literally\n",
	} {
		is.Equal(read(t, filepath.Join(path, name)), want) // name
	}
	for _, gone := range []string{"stray.txt", "newdir", "sub/drop.txt", "sub/b.txt", "w1x"} {
		is.True(!exists(filepath.Join(path, gone))) // untracked removed
	}
	after, err := os.Stat(filepath.Join(path, "keep.txt"))
	is.NoErr(err)
	is.True(os.SameFile(before, after))              // the unchanged file was not rewritten
	is.True(after.ModTime().Equal(before.ModTime())) // nor touched

	// And back: the same candidate, reused for the next round.
	is.NoErr(r.ResetCandidate(ctx, path, c1, nil))
	assertAt(t, path, c1)
	is.Equal(read(t, filepath.Join(path, "sub/b.txt")), "b\n")
	is.True(!exists(filepath.Join(path, ".architect"))) // not kept this time
}

// A branch checked out in the candidate by hand does not move.
func TestResetCandidateMovesNoBranch(t *testing.T) {
	ctx := context.Background()
	is := is.New(t)
	dir, c1, c2 := candidateRepo(t)
	r := open(t, dir)
	path := filepath.Join(t.TempDir(), "cand")
	is.NoErr(r.AddCandidate(ctx, path, c1))
	gitT(t, path, "checkout", "-q", "-b", "by-hand")
	is.NoErr(r.ResetCandidate(ctx, path, c2, nil))
	assertAt(t, path, c2)
	is.Equal(gitT(t, dir, "rev-parse", "by-hand"), c1)
	is.Equal(gitT(t, dir, "rev-parse", "main"), c2)
}

func TestResetCandidateRefusesOtherFolders(t *testing.T) {
	ctx := context.Background()
	is := is.New(t)
	dir, c1, _ := candidateRepo(t)
	r := open(t, dir)
	// The main checkout itself is not a candidate.
	write(t, dir, "untracked.txt", "the user's\n")
	is.True(r.ResetCandidate(ctx, dir, c1, nil) != nil)
	is.Equal(read(t, filepath.Join(dir, "untracked.txt")), "the user's\n")
	is.Equal(read(t, filepath.Join(dir, "a.txt")), "two\n")
}

func TestRemoveCandidate(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		prepare func(t *testing.T, r *Repo, path, c string)
		wantErr bool
		stays   bool
	}{
		{name: "with changes and untracked files", prepare: func(t *testing.T, r *Repo, path, c string) {
			is.New(t).NoErr(r.AddCandidate(ctx, path, c))
			write(t, path, "a.txt", "changed\n")
			write(t, path, "stray", "x\n")
		}},
		{name: "already gone", prepare: func(*testing.T, *Repo, string, string) {}},
		{name: "registered, folder gone", prepare: func(t *testing.T, r *Repo, path, c string) {
			is.New(t).NoErr(r.AddCandidate(ctx, path, c))
			is.New(t).NoErr(os.RemoveAll(path))
		}},
		{name: "half made: registered, its .git file missing", prepare: func(t *testing.T, r *Repo, path, c string) {
			is.New(t).NoErr(r.AddCandidate(ctx, path, c))
			is.New(t).NoErr(os.Remove(filepath.Join(path, ".git")))
		}},
		{name: "someone else's folder", prepare: func(t *testing.T, _ *Repo, path, _ string) {
			write(t, path, "mine.txt", "x\n")
		}, wantErr: true, stays: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			dir, _, c2 := candidateRepo(t)
			r := open(t, dir)
			other := filepath.Join(t.TempDir(), "other")
			is.NoErr(r.AddCandidate(ctx, other, c2))
			is.NoErr(os.RemoveAll(other)) // another missing worktree: must stay registered
			path := filepath.Join(t.TempDir(), "cand")
			tt.prepare(t, r, path, c2)
			err := r.RemoveCandidate(ctx, path)
			is.Equal(err != nil, tt.wantErr)
			is.Equal(exists(path), tt.stays)
			is.True(!r.registered(ctx, path))
			is.True(r.registered(ctx, other)) // no prune of every missing worktree
		})
	}
}

func TestCommitTree(t *testing.T) {
	ctx := context.Background()
	for _, identity := range []bool{true, false} {
		t.Run(map[bool]string{true: "configured identity", false: "no identity"}[identity], func(t *testing.T) {
			is := is.New(t)
			isolate(t, identity)
			dir := t.TempDir()
			gitT(t, dir, "init", "-q")
			write(t, dir, "f", "x\n")
			gitT(t, dir, "-c", "user.name=U", "-c", "user.email=u@example.com", "add", "f")
			gitT(t, dir, "-c", "user.name=U", "-c", "user.email=u@example.com", "commit", "-qm", "first")
			head := gitT(t, dir, "rev-parse", "HEAD")
			tree := gitT(t, dir, "rev-parse", "HEAD^{tree}")
			r := open(t, dir)

			root, err := r.CommitTree(ctx, tree, "", "a root")
			is.NoErr(err)
			is.Equal(gitT(t, dir, "rev-list", "--count", root), "1") // no parent
			child, err := r.CommitTree(ctx, tree, head, "a child\n\nwith a body")
			is.NoErr(err)
			is.Equal(gitT(t, dir, "rev-parse", child+"^"), head)
			is.Equal(gitT(t, dir, "rev-parse", child+"^{tree}"), tree)
			is.Equal(gitT(t, dir, "log", "-1", "--format=%B", child), "a child\n\nwith a body")
			wantAuthor := "Test User <test@example.com>"
			if !identity {
				wantAuthor = FallbackName + " <" + FallbackEmail + ">"
			}
			is.Equal(gitT(t, dir, "log", "-1", "--format=%an <%ae>", child), wantAuthor)
			is.Equal(gitT(t, dir, "rev-parse", "HEAD"), head) // no ref moved
			is.Equal(gitT(t, dir, "for-each-ref", "--format=%(refname)"), "refs/heads/main")
		})
	}
}

// registered reports whether git lists a worktree at path.
func (r *Repo) registered(ctx context.Context, path string) bool {
	wts, err := r.Worktrees(ctx)
	if err != nil {
		return false
	}
	for _, wt := range wts {
		if samePath(wt.Path, path) {
			return true
		}
	}
	return false
}
