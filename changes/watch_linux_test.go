package changes

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/architect-dev/architect/gitwt"
	"github.com/matryer/is"
	"golang.org/x/sys/unix"
)

// watched makes a committed repository with a few folders, an ignored
// node_modules and architect's state folder, and watches it.
func watched(t *testing.T) (string, *gitwt.Repo, *Watcher) {
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
	repo, err := gitwt.Open(context.Background(), dir)
	is.NoErr(err)
	w, err := watch(context.Background(), repo, []string{".architect/"}, false)
	is.NoErr(err)
	t.Cleanup(func() { w.Close() })
	return dir, repo, w
}

// taken is a Take's result in short: "all", "index" and the paths.
func taken(w *Watcher) string {
	c := w.Take(context.Background())
	if c.All {
		return "all"
	}
	if c.Index {
		return strings.Join(append([]string{"index"}, c.Paths...), " ")
	}
	return strings.Join(c.Paths, " ")
}

func TestWatcherSeesChangesThatMatter(t *testing.T) {
	dir, _, w := watched(t)
	// In order: some changes rely on earlier ones (the new folder, then a
	// file in it, which needs the watch added by the previous Take).
	for _, c := range []struct {
		name, want string
		do         func()
	}{
		{"edit in a subfolder", "src/deep/c.txt", func() { write(t, dir, "src/deep/c.txt", "two\n") }},
		{"new file", "new.txt", func() { write(t, dir, "new.txt", "x\n") }},
		{"delete", "a.txt", func() { os.Remove(filepath.Join(dir, "a.txt")) }},
		{"chmod", "src/b.txt", func() { os.Chmod(filepath.Join(dir, "src/b.txt"), 0o755) }},
		{"rename", "src/b.txt src/b2.txt", func() { os.Rename(filepath.Join(dir, "src/b.txt"), filepath.Join(dir, "src/b2.txt")) }},
		{"new folder", "pkg", func() { os.Mkdir(filepath.Join(dir, "pkg"), 0o755) }},
		{"file in new folder", "pkg/x.go", func() { write(t, dir, "pkg/x.go", "package x\n") }},
		{"folder with files at once", "gen", func() { write(t, dir, "gen/deep/a.go", "package a\n") }},
		{"file in that folder's folder", "gen/deep/a.go", func() { write(t, dir, "gen/deep/a.go", "package b\n") }},
		{"folder moved", "gen gen2", func() { os.Rename(filepath.Join(dir, "gen"), filepath.Join(dir, "gen2")) }},
		{"file in the moved folder", "gen2/deep/a.go", func() { write(t, dir, "gen2/deep/a.go", "package c\n") }},
		{"folder deleted", "gen2", func() { os.RemoveAll(filepath.Join(dir, "gen2")) }},
		{"a repository appears in a folder", "src", func() { write(t, dir, "src/.git", "gitdir: /elsewhere\n") }},
		{"a change in it is the folder's", "src", func() { write(t, dir, "src/deep/c.txt", "three\n") }},
		{"gitignore edited", "all", func() { write(t, dir, ".gitignore", "*.log\n") }},
		{"gitattributes edited", "all", func() { write(t, dir, "src/.gitattributes", "*.txt binary\n") }},
		{"index written", "index", func() { gitT(t, dir, "add", "new.txt") }},
		{"the caller's commit", "", func() { gitT(t, dir, "commit", "-qm", "x"); w.Settle(true) }},
		{"info/exclude edited", "all", func() { write(t, dir, ".git/info/exclude", "*.tmp\n") }},
		{"info/attributes edited", "all", func() { write(t, dir, ".git/info/attributes", "*.md binary\n") }},
		{"empty file truncated", "new.txt", func() {
			f, _ := os.OpenFile(filepath.Join(dir, "new.txt"), os.O_WRONLY|os.O_TRUNC, 0)
			f.Close()
		}},
	} {
		if before := taken(w); before != "" {
			t.Fatalf("before %s: %q with nothing done", c.name, before)
		}
		c.do()
		if got := taken(w); got != c.want {
			t.Errorf("%s: Take gave %q, want %q", c.name, got, c.want)
		}
	}
}

func TestWatcherIgnoresWhatNoSnapshotHolds(t *testing.T) {
	ctx := context.Background()
	dir, _, w := watched(t)
	quiet := map[string]func(){
		"architect's state":        func() { write(t, dir, ".architect/state.json", "{\"x\":1}\n") },
		"a new state file":         func() { write(t, dir, ".architect/prompts/iteration-1.md", "p\n") },
		"an ignored folder":        func() { write(t, dir, "node_modules/pkg/index.js", "y\n") },
		"an object in .git":        func() { write(t, dir, ".git/objects/ab/cdef", "z") },
		"a ref in .git":            func() { write(t, dir, ".git/refs/heads/other", "0000\n") },
		"a nested repo's .git":     func() { write(t, dir, "nested/.git/objects/ab/cdef", "z") },
		"reading files":            func() { os.ReadFile(filepath.Join(dir, "src/b.txt")) },
		"a snapshot (Diff) taken":  func() { _, _ = Compare(ctx, open(t, dir), "", []string{".architect"}, 0) },
		"the index's times change": func() { os.Chtimes(filepath.Join(dir, ".git/index"), time.Now(), time.Now()) },
	}
	for name, do := range quiet {
		taken(w)
		do()
		if got := taken(w); got != "" {
			t.Errorf("%s: Take gave %q", name, got)
		}
	}
}

func TestWatcherNewIgnoredFolderIsNotWatched(t *testing.T) {
	is := is.New(t)
	dir, _, w := watched(t)
	watches := len(w.dirs)
	write(t, dir, "build.log/a/b/c.txt", "x\n") // *.log: a whole folder git ignores
	is.Equal(taken(w), "")                      // nothing a snapshot holds
	is.Equal(len(w.dirs), watches)              // and nothing more watched
	write(t, dir, "build.log/a/b/c.txt", "y\n")
	is.Equal(taken(w), "")
}

func TestWatcherGivesUpSafely(t *testing.T) {
	ctx := context.Background()
	t.Run("overflow", func(t *testing.T) {
		is := is.New(t)
		dir, _, w := watched(t)
		w.mu.Lock()
		w.event(-1, unix.IN_Q_OVERFLOW, "")
		w.mu.Unlock()
		is.Equal(taken(w), "all")
		write(t, dir, "a.txt", "after\n") // watching goes on
		is.Equal(taken(w), "a.txt")
	})
	t.Run("too many paths", func(t *testing.T) {
		is := is.New(t)
		old := maxChanged
		maxChanged = 3
		t.Cleanup(func() { maxChanged = old })
		dir, _, w := watched(t)
		for i := range 4 {
			write(t, dir, fmt.Sprintf("n%d.txt", i), "x\n")
		}
		is.Equal(taken(w), "all")
		is.Equal(taken(w), "")
	})
	t.Run("top-level folder removed", func(t *testing.T) {
		dir, _, w := watched(t)
		taken(w)
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		for range 3 {
			if got := taken(w); got != "all" {
				t.Fatalf("a removed tree must count as changed, every time: %q", got)
			}
		}
	})
	t.Run("too many folders", func(t *testing.T) {
		is := is.New(t)
		old := maxWatches
		maxWatches = 2
		t.Cleanup(func() { maxWatches = old })
		dir := newRepo(t)
		write(t, dir, "a/b/c/d.txt", "x\n")
		_, err := watch(ctx, open(t, dir), nil, false)
		is.True(err != nil) // the caller does without
	})
	t.Run("too many folders later", func(t *testing.T) {
		is := is.New(t)
		dir, _, w := watched(t)
		old := maxWatches
		maxWatches = len(w.dirs) + 1
		t.Cleanup(func() { maxWatches = old })
		write(t, dir, "x/y/z.txt", "x\n")
		is.Equal(taken(w), "all")
		is.Equal(taken(w), "all") // for good
	})
}

func TestChangesReuseWithoutRunningGit(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	dir, repo, _ := watched(t)
	c := New(ctx, repo, gitT(t, dir, "rev-parse", "HEAD"), []string{".architect"}, 1<<20, ChangesOptions{Watch: true})
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
	for _, chunk := range []string{"node_modules/\x00a.l", "og\x00build/\x00", string(long), "/\x00dist/", "\x00",
		"logs/\x00logs/a.log\x00", "v/\x00v/build/\x00w.log\x00"} {
		d.Write([]byte(chunk))
	}
	// logs/ and v/ are listed because all in them is ignored, not
	// because they are: a new file in them would not be.
	is.Equal(d.dirs, map[string]bool{"node_modules": true, "build": true, "dist": true, "v/build": true})
}

func TestChangesWithoutWatching(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	dir, repo, _ := watched(t)
	c := New(ctx, repo, gitT(t, dir, "rev-parse", "HEAD"), []string{".architect"}, 1<<20, ChangesOptions{})
	defer c.Close()
	is.True(c.w == nil)
	_, err := c.Diff(ctx)
	is.NoErr(err)
	away := filepath.Join(t.TempDir(), "git")
	is.NoErr(os.Rename(filepath.Join(dir, ".git"), away))
	defer os.Rename(away, filepath.Join(dir, ".git"))
	_, err = c.Diff(ctx)
	is.True(err != nil) // recomputed, though nothing changed
}

// TestWatcherForgetsFoldersThatLeave: a folder moved out of the tree is no
// longer watched (a watch follows the folder, not its name).
func TestWatcherForgetsFoldersThatLeave(t *testing.T) {
	is := is.New(t)
	dir, _, w := watched(t)
	before := len(w.dirs)
	write(t, dir, "tmp/a/b/c.txt", "x\n")
	is.Equal(taken(w), "tmp")
	is.Equal(len(w.dirs), before+3)
	away := filepath.Join(t.TempDir(), "away")
	is.NoErr(os.Rename(filepath.Join(dir, "tmp"), away))
	is.Equal(taken(w), "tmp")
	is.Equal(len(w.dirs), before)
	write(t, away, "a/b/d.txt", "y\n") // outside the tree now
	is.Equal(taken(w), "")
}

// TestWatcherTellsWhatAppeared: a file written in place existed before (git
// has it, or ignores it); one created, moved in, or a folder, may be new.
func TestWatcherTellsWhatAppeared(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	dir, _, w := watched(t)
	appeared := func() (string, string) {
		c := w.Take(ctx)
		return strings.Join(c.Paths, " "), strings.Join(c.Appeared, " ")
	}
	f, err := os.OpenFile(filepath.Join(dir, "a.txt"), os.O_WRONLY|os.O_APPEND, 0)
	is.NoErr(err)
	f.WriteString("more\n")
	f.Close()
	is.NoErr(os.Chmod(filepath.Join(dir, "src/b.txt"), 0o755))
	write(t, dir, "new.txt", "x\n")
	is.NoErr(os.Rename(filepath.Join(dir, "new.txt"), filepath.Join(dir, "src/moved.txt")))
	paths, fresh := appeared()
	is.Equal(paths, "a.txt new.txt src/b.txt src/moved.txt")
	is.Equal(fresh, "new.txt src/moved.txt")

	// A folder's own events count as something appearing in it; it
	// stands for what is in it.
	is.NoErr(os.Chmod(filepath.Join(dir, "src/deep"), 0o700))
	write(t, dir, "src/deep/d.txt", "new\n")
	paths, fresh = appeared()
	is.Equal(paths, "src/deep")
	is.Equal(fresh, "src/deep")
}

// Touched is every path the diffs since New saw change, across several
// diffs and a commit of this Changes' own, and an index git status only
// refreshed; it is no longer all of them once someone else made the index
// track something else (git add in the tree), nor without a watcher.
func TestTouched(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	dir := newRepo(t)
	write(t, dir, "a.txt", "one\n")
	write(t, dir, "src/b.txt", "one\n")
	gitT(t, dir, "add", "-A")
	gitT(t, dir, "commit", "-qm", "base")
	repo, err := gitwt.Open(ctx, dir)
	is.NoErr(err)
	c := New(ctx, repo, "HEAD", nil, 0, ChangesOptions{Watch: true, Commits: true, Clean: true})
	defer c.Close()
	write(t, dir, "a.txt", "two\n")
	write(t, dir, "new/in.txt", "x\n")
	_, _, err = c.Commit(ctx, "agent", nil) // its own index write is not someone else's
	is.NoErr(err)
	is.NoErr(os.Remove(filepath.Join(dir, "src/b.txt")))
	_, _, err = c.Tree(ctx, nil)
	is.NoErr(err)
	paths, complete := c.Touched()
	is.True(complete)
	is.Equal(paths, []string{"a.txt", "new", "src/b.txt"})

	// git status refreshing the index (a file rewritten as it was) is no
	// change to what it tracks.
	write(t, dir, "a.txt", "two\n")
	indexBefore, err := os.Stat(filepath.Join(dir, ".git", "index"))
	is.NoErr(err)
	gitT(t, dir, "status", "--porcelain")
	indexAfter, err := os.Stat(filepath.Join(dir, ".git", "index"))
	is.NoErr(err)
	is.True(!os.SameFile(indexBefore, indexAfter)) // git status wrote the index
	_, err = c.Diff(ctx)
	is.NoErr(err)
	paths, complete = c.Touched()
	is.True(complete)
	is.Equal(paths, []string{"a.txt", "new", "src/b.txt"})

	write(t, dir, "c.txt", "x\n")
	gitT(t, dir, "add", "c.txt")
	_, err = c.Diff(ctx)
	is.NoErr(err)
	_, complete = c.Touched()
	is.True(!complete) // the index written by git add

	u := New(ctx, repo, "HEAD", nil, 0, ChangesOptions{Commits: true})
	defer u.Close()
	_, err = u.Diff(ctx)
	is.NoErr(err)
	_, complete = u.Touched()
	is.True(!complete) // no watcher
}

// A Watcher kept across Changes (Watch, ChangesOptions.Watcher): each
// Changes on it starts from what came after New (what the caller did
// before, such as a checkout, is dropped), and closing one leaves the
// watcher to the next.
func TestSharedWatcher(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	dir := newRepo(t)
	write(t, dir, "a.txt", "one\n")
	write(t, dir, "b.txt", "one\n")
	gitT(t, dir, "add", "-A")
	gitT(t, dir, "commit", "-qm", "base")
	repo, err := gitwt.Open(ctx, dir)
	is.NoErr(err)
	w, err := Watch(ctx, repo, nil, true)
	is.NoErr(err)
	defer w.Close()

	first := New(ctx, repo, "HEAD", nil, 1<<20, ChangesOptions{Commits: true, Clean: true, Watcher: w})
	write(t, dir, "a.txt", "two\n")
	_, _, err = first.Commit(ctx, "first", nil)
	is.NoErr(err)
	paths, complete := first.Touched()
	is.True(complete)
	is.Equal(paths, []string{"a.txt"})
	is.NoErr(first.Close())

	// The caller's own change between the two: dropped by the next New.
	gitT(t, dir, "reset", "-q", "--hard", "HEAD~1")
	second := New(ctx, repo, "HEAD", nil, 1<<20, ChangesOptions{Commits: true, Clean: true, Watcher: w})
	defer second.Close()
	write(t, dir, "b.txt", "three\n")
	d, err := second.Diff(ctx)
	is.NoErr(err)
	is.True(strings.Contains(d.Text, "b.txt"))
	is.True(!strings.Contains(d.Text, "a.txt"))
	paths, complete = second.Touched()
	is.True(complete) // the reset's index write was the caller's, before New
	is.Equal(paths, []string{"b.txt"})
}
