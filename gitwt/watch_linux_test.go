package gitwt

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/matryer/is"
	"golang.org/x/sys/unix"
)

// watched makes a committed repository with a few folders, an ignored
// node_modules and architect's state folder, and watches it.
func watched(t *testing.T) (string, *Repo, *Watcher) {
	t.Helper()
	is := is.New(t)
	dir := newRepo(t)
	for _, f := range []string{"a.txt", "src/b.txt", "src/deep/c.txt", ".gitignore"} {
		write(t, dir, f, "one\n")
	}
	write(t, dir, ".gitignore", "node_modules/\n*.log\n")
	write(t, dir, "node_modules/pkg/index.js", "x\n")
	write(t, dir, ".architect/state.json", "{}\n")
	write(t, dir, "nested/.git/HEAD", "ref: refs/heads/main\n")
	gitT(t, dir, "add", "a.txt", "src", ".gitignore")
	gitT(t, dir, "commit", "-qm", "base")
	repo, err := Open(context.Background(), dir)
	is.NoErr(err)
	w, err := repo.Watch(context.Background(), []string{".architect/"})
	is.NoErr(err)
	t.Cleanup(func() { w.Close() })
	return dir, repo, w
}

func TestWatcherSeesChangesThatMatter(t *testing.T) {
	ctx := context.Background()
	dir, _, w := watched(t)
	changes := map[string]func(){
		"edit in a subfolder": func() { write(t, dir, "src/deep/c.txt", "two\n") },
		"new file":            func() { write(t, dir, "new.txt", "x\n") },
		"delete":              func() { os.Remove(filepath.Join(dir, "a.txt")) },
		"chmod":               func() { os.Chmod(filepath.Join(dir, "src/b.txt"), 0o755) },
		"rename":              func() { os.Rename(filepath.Join(dir, "src/b.txt"), filepath.Join(dir, "src/b2.txt")) },
		"new folder":          func() { os.Mkdir(filepath.Join(dir, "pkg"), 0o755) },
		"file in new folder":  func() { write(t, dir, "pkg/x.go", "package x\n") },
		"gitignore edited":    func() { write(t, dir, ".gitignore", "*.log\n") },
		"index written":       func() { gitT(t, dir, "add", "new.txt") },
		"info/exclude edited": func() { write(t, dir, ".git/info/exclude", "*.tmp\n") },
		"empty file truncated": func() {
			f, _ := os.OpenFile(filepath.Join(dir, "new.txt"), os.O_WRONLY|os.O_TRUNC, 0)
			f.Close()
		},
	}
	// In order: some changes rely on earlier ones (the new folder, then a
	// file in it, which needs the watch added by the previous Gen).
	order := []string{"edit in a subfolder", "new file", "delete", "chmod", "rename", "new folder",
		"file in new folder", "gitignore edited", "index written", "info/exclude edited", "empty file truncated"}
	for _, name := range order {
		before := w.Gen(ctx)
		if again := w.Gen(ctx); again != before {
			t.Fatalf("before %s: Gen changed with nothing done (%d, %d)", name, before, again)
		}
		changes[name]()
		if after := w.Gen(ctx); after == before {
			t.Errorf("%s: Gen did not change", name)
		}
	}
}

func TestWatcherIgnoresWhatNoSnapshotHolds(t *testing.T) {
	ctx := context.Background()
	dir, _, w := watched(t)
	quiet := map[string]func(){
		"architect's state":       func() { write(t, dir, ".architect/state.json", "{\"x\":1}\n") },
		"a new state file":        func() { write(t, dir, ".architect/prompts/iteration-1.md", "p\n") },
		"an ignored folder":       func() { write(t, dir, "node_modules/pkg/index.js", "y\n") },
		"an object in .git":       func() { write(t, dir, ".git/objects/ab/cdef", "z") },
		"a ref in .git":           func() { write(t, dir, ".git/refs/heads/other", "0000\n") },
		"a nested repo's .git":    func() { write(t, dir, "nested/.git/objects/ab/cdef", "z") },
		"reading files":           func() { os.ReadFile(filepath.Join(dir, "src/b.txt")) },
		"a snapshot (Diff) taken": func() { _, _ = open(t, dir).Diff(ctx, "", []string{".architect"}, 0) },
	}
	for name, do := range quiet {
		before := w.Gen(ctx)
		do()
		if after := w.Gen(ctx); after != before {
			t.Errorf("%s: Gen changed (%d → %d)", name, before, after)
		}
	}
}

func TestWatcherGivesUpSafely(t *testing.T) {
	ctx := context.Background()
	t.Run("overflow", func(t *testing.T) {
		_, _, w := watched(t)
		w.mu.Lock()
		w.event(-1, unix.IN_Q_OVERFLOW, "")
		w.mu.Unlock()
		a, b := w.Gen(ctx), w.Gen(ctx)
		if a == b {
			t.Fatal("after lost events, Gen must report a change every time")
		}
	})
	t.Run("top-level folder removed", func(t *testing.T) {
		dir, _, w := watched(t)
		before := w.Gen(ctx)
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		a, b, c := w.Gen(ctx), w.Gen(ctx), w.Gen(ctx)
		if a == before || b == a || c == b {
			t.Fatal("a removed tree must count as changed, every time")
		}
	})
	t.Run("too many folders", func(t *testing.T) {
		is := is.New(t)
		old := maxWatches
		maxWatches = 2
		t.Cleanup(func() { maxWatches = old })
		dir := newRepo(t)
		write(t, dir, "a/b/c/d.txt", "x\n")
		_, err := open(t, dir).Watch(ctx, nil)
		is.True(err != nil) // the caller does without
	})
}

// TestChangesMatchAFreshDiff is the property that matters: after any
// sequence of changes, the diff Changes returns is the one a fresh
// snapshot gives. Random edits, creations, deletions, renames, mode
// changes, new folders and ignore-rule changes, in and out of excluded and
// ignored folders, in 60 rounds.
func TestChangesMatchAFreshDiff(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	dir, repo, w := watched(t)
	w.Close()
	base := gitT(t, dir, "rev-parse", "HEAD")
	excludes := []string{".architect"}
	c := repo.Changes(ctx, base, excludes, 1<<20, true)
	defer c.Close()
	is.True(c.Watching())
	rng := rand.New(rand.NewPCG(7, 11))
	folders := []string{"", "src", "src/deep", "node_modules/pkg", ".architect", "fresh", "fresh/inner"}
	var files []string
	pick := func() string {
		if len(files) == 0 || rng.IntN(3) == 0 {
			f := filepath.Join(folders[rng.IntN(len(folders))], fmt.Sprintf("f%d.txt", rng.IntN(20)))
			files = append(files, f)
			return f
		}
		return files[rng.IntN(len(files))]
	}
	recomputed := 0
	for round := range 60 {
		for range rng.IntN(3) { // 0 to 2 operations: some rounds change nothing
			f := pick()
			switch rng.IntN(6) {
			case 0, 1:
				write(t, dir, f, fmt.Sprintf("round %d\n", round))
			case 2:
				os.Remove(filepath.Join(dir, f))
			case 3:
				os.Chmod(filepath.Join(dir, f), os.FileMode(0o644|rng.IntN(2)*0o111))
			case 4:
				os.Rename(filepath.Join(dir, f), filepath.Join(dir, pick()))
			case 5:
				if rng.IntN(2) == 0 {
					write(t, dir, ".gitignore", "node_modules/\n*.log\n")
				} else {
					write(t, dir, ".gitignore", "node_modules/\nf1*.txt\n")
				}
			}
		}
		before := c.gen
		got, err := c.Diff(ctx)
		is.NoErr(err)
		want, err := repo.Diff(ctx, base, excludes, 1<<20)
		is.NoErr(err)
		if got.Tree != want.Tree || got.Text != want.Text {
			t.Fatalf("round %d: Changes gave tree %s, a fresh snapshot %s", round, got.Tree, want.Tree)
		}
		if c.gen != before {
			recomputed++
		}
	}
	t.Logf("%d of 60 rounds recomputed", recomputed)
}

func TestChangesReuseWithoutRunningGit(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	dir, repo, _ := watched(t)
	c := repo.Changes(ctx, gitT(t, dir, "rev-parse", "HEAD"), []string{".architect"}, 1<<20, true)
	defer c.Close()
	write(t, dir, "a.txt", "changed\n")
	first, err := c.Diff(ctx)
	is.NoErr(err)
	is.True(first.Text != "")
	// Without its .git folder, git cannot run here: a reused diff is the
	// only way to get one.
	away := filepath.Join(t.TempDir(), "git")
	is.NoErr(os.Rename(filepath.Join(dir, ".git"), away))
	defer os.Rename(away, filepath.Join(dir, ".git"))
	again, err := c.Diff(ctx)
	is.NoErr(err)
	is.Equal(again, first)
	write(t, dir, "a.txt", "changed again\n")
	_, err = c.Diff(ctx)
	is.True(err != nil) // a change: git runs, and fails without a repository
}

func TestDirCollector(t *testing.T) {
	is := is.New(t)
	d := &dirCollector{dirs: map[string]bool{}}
	long := make([]byte, 5000)
	for i := range long {
		long[i] = 'x'
	}
	for _, chunk := range []string{"node_modules/\x00a.l", "og\x00build/\x00", string(long), "/\x00dist/", "\x00"} {
		d.Write([]byte(chunk))
	}
	is.Equal(d.dirs, map[string]bool{"node_modules": true, "build": true, "dist": true})
}

func TestChangesWithoutWatching(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	dir, repo, _ := watched(t)
	c := repo.Changes(ctx, gitT(t, dir, "rev-parse", "HEAD"), []string{".architect"}, 1<<20, false)
	defer c.Close()
	is.True(!c.Watching())
	_, err := c.Diff(ctx)
	is.NoErr(err)
	away := filepath.Join(t.TempDir(), "git")
	is.NoErr(os.Rename(filepath.Join(dir, ".git"), away))
	defer os.Rename(away, filepath.Join(dir, ".git"))
	_, err = c.Diff(ctx)
	is.True(err != nil) // recomputed, though nothing changed
}
