package changes

import (
	"context"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/architect-dev/architect/gitwt"
	"github.com/matryer/is"
	"golang.org/x/sys/unix"
)

// The commits of a watched, staging Changes are the ones `git add -A &&
// git commit` would make, in the cases where they once were not: each
// test runs iterations (a change, then Commit) and compares the commit
// and the index it leaves with git's (sameAsGit).

// iterate commits as the loop does after an iteration.
func iterate(t *testing.T, c *Changes, msg string) (string, bool) {
	t.Helper()
	hash, committed, err := c.Commit(context.Background(), msg, nil)
	if err != nil {
		t.Fatalf("commit %q: %v", msg, err)
	}
	return hash, committed
}

// sameAsGit checks that HEAD holds the tree `git add -A` gives (staged in
// a copy of the index dated long ago, so that git reads every file again),
// that git status shows nothing to commit, and that the index's tree cache
// names the trees of its entries.
func sameAsGit(t *testing.T, dir string) {
	t.Helper()
	is := is.New(t)
	tmp := filepath.Join(t.TempDir(), "index")
	is.NoErr(gitwt.CopyIndex(filepath.Join(dir, ".git", "index"), tmp))
	is.NoErr(os.Chtimes(tmp, time.Unix(1, 0), time.Unix(1, 0)))
	env := []string{"GIT_INDEX_FILE=" + tmp}
	gitEnvT(t, dir, env, "", "add", "-A")
	want := gitEnvT(t, dir, env, "", "write-tree")
	head := gitT(t, dir, "rev-parse", "HEAD^{tree}")
	if head != want {
		t.Fatalf("HEAD's tree %s, git add -A gives %s:\n%s", head, want, gitT(t, dir, "diff-tree", "-r", "--name-status", head, want))
	}
	if st := gitT(t, dir, "status", "--porcelain", "--ignore-submodules=none"); st != "" {
		t.Fatalf("git status after the commit:\n%s", st)
	}
	index := filepath.Join(t.TempDir(), "index")
	is.NoErr(gitwt.CopyIndex(filepath.Join(dir, ".git", "index"), index))
	is.Equal(gitEnvT(t, dir, []string{"GIT_INDEX_FILE=" + index}, "", "write-tree"), head) // trusting the tree cache
	is.Equal(treeWithoutCache(t, dir, index), head)                                        // from the entries alone
}

// A folder whose name ends in a carriage return: git's batch protocol
// strips it from a line, so that the folder's old tree was read as that of
// the folder without it.
func TestCommitFolderEndingInCR(t *testing.T) {
	is := is.New(t)
	dir := newRepo(t)
	write(t, dir, "foo/a.txt", "a\n")
	write(t, dir, "foo/b.txt", "b\n")
	write(t, dir, "x.txt", "x\n")
	base := commit(t, dir, "base")
	c := New(context.Background(), open(t, dir), base, []string{".architect"}, 1<<20, ChangesOptions{Watch: true, Commits: true})
	defer c.Close()
	is.True(c.w != nil)
	for _, name := range []string{"foo\r", "\r"} {
		is.NoErr(os.Mkdir(filepath.Join(dir, name), 0o755))
		iterate(t, c, "a folder")
		write(t, dir, name+"/new.txt", "new\n")
		_, committed := iterate(t, c, "a file in it")
		is.True(committed)
		is.Equal(gitT(t, dir, "ls-tree", "--name-only", "HEAD:"+name), "new.txt")
		sameAsGit(t, dir)
		// And an edit there, staged again.
		write(t, dir, name+"/new.txt", "newer\n")
		iterate(t, c, "an edit in it")
		sameAsGit(t, dir)
	}
}

// A commit made inside a submodule changes nothing in the working tree the
// watcher sees (it writes in .git/modules/): the submodule's HEAD is
// looked at each time.
func TestCommitInsideSubmodule(t *testing.T) {
	is := is.New(t)
	dir := newRepo(t)
	sub := t.TempDir()
	gitT(t, sub, "init", "-q")
	write(t, sub, "s.txt", "s\n")
	commit(t, sub, "sub")
	write(t, dir, "a.txt", "a\n")
	gitT(t, dir, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "sub")
	base := commit(t, dir, "base")
	c := New(context.Background(), open(t, dir), base, []string{".architect"}, 1<<20, ChangesOptions{Watch: true, Commits: true})
	defer c.Close()
	is.True(c.w != nil)
	write(t, dir, "sub/s.txt", "edited\n")
	iterate(t, c, "an edit in the submodule")
	gitT(t, dir+"/sub", "commit", "-qam", "inside")
	_, committed := iterate(t, c, "a commit in the submodule")
	is.True(committed)
	is.Equal(gitT(t, dir, "rev-parse", "HEAD:sub"), gitT(t, dir+"/sub", "rev-parse", "HEAD"))
	sameAsGit(t, dir)
	// And a commit there with nothing else: the same.
	write(t, dir, "sub/t.txt", "t\n")
	gitT(t, dir+"/sub", "add", "t.txt")
	gitT(t, dir+"/sub", "commit", "-qm", "another")
	_, committed = iterate(t, c, "another commit in the submodule")
	is.True(committed)
	sameAsGit(t, dir)
}

// A merge stopped on a conflict, resolved, is committed as git commit
// would: a merge commit, MERGE_HEAD gone.
func TestCommitCarriesAMerge(t *testing.T) {
	is := is.New(t)
	dir := newRepo(t)
	write(t, dir, "c", "base\n")
	commit(t, dir, "base")
	gitT(t, dir, "checkout", "-qb", "other")
	write(t, dir, "c", "theirs\n")
	theirs := commit(t, dir, "theirs")
	gitT(t, dir, "checkout", "-q", "main")
	write(t, dir, "c", "ours\n")
	ours := commit(t, dir, "ours")
	if out, err := runGit(dir, "merge", "-q", "other"); err == nil {
		t.Fatalf("the merge did not stop: %s", out)
	}
	is.Equal(gitT(t, dir, "status", "--porcelain"), "UU c")
	c := New(context.Background(), open(t, dir), ours, []string{".architect"}, 1<<20, ChangesOptions{Watch: true, Commits: true})
	defer c.Close()
	write(t, dir, "c", "resolved\n")
	hash, committed := iterate(t, c, "resolved")
	is.True(committed)
	is.Equal(gitT(t, dir, "rev-list", "--parents", "-n1", hash), hash+" "+ours+" "+theirs)
	is.True(!exists(filepath.Join(dir, ".git", "MERGE_HEAD")))
	sameAsGit(t, dir)
}

// A tracked file hard-linked from outside the tree, written through the
// other link: no event in any folder watched, yet the file changed.
func TestCommitHardLinkWrittenFromOutside(t *testing.T) {
	is := is.New(t)
	top := t.TempDir()
	dir := filepath.Join(top, "repo")
	isolate(t, true)
	gitT(t, top, "init", "-q", "repo")
	write(t, dir, "a/f1", "one\n")
	write(t, dir, "b.txt", "b\n")
	base := commit(t, dir, "base")
	outside := filepath.Join(top, "outside")
	is.NoErr(os.Link(filepath.Join(dir, "a/f1"), outside))
	c := New(context.Background(), open(t, dir), base, []string{".architect"}, 1<<20, ChangesOptions{Watch: true, Commits: true})
	defer c.Close()
	is.True(c.w != nil)
	d, err := c.Diff(context.Background())
	is.NoErr(err)
	is.Equal(d.Text, "")
	f, err := os.OpenFile(outside, os.O_WRONLY|os.O_APPEND, 0)
	is.NoErr(err)
	_, err = f.WriteString("two\n")
	is.NoErr(err)
	is.NoErr(f.Close())
	_, committed := iterate(t, c, "written through the link")
	is.True(committed)
	is.Equal(gitT(t, dir, "show", "HEAD:a/f1"), "one\ntwo")
	sameAsGit(t, dir)
}

// core.ignorecase on a file system that is not: a file whose name differs
// from a tracked one's only in case is the tracked one to git, which
// stages nothing for it.
func TestCommitIgnoreCase(t *testing.T) {
	is := is.New(t)
	dir := newRepo(t)
	write(t, dir, "README.md", "readme\n")
	write(t, dir, "src/a.txt", "a\n")
	base := commit(t, dir, "base")
	gitT(t, dir, "config", "core.ignorecase", "true")
	c := New(context.Background(), open(t, dir), base, []string{".architect"}, 1<<20, ChangesOptions{Watch: true, Commits: true})
	defer c.Close()
	is.True(c.w != nil)
	write(t, dir, "src/a.txt", "edited\n")
	iterate(t, c, "an edit")
	sameAsGit(t, dir)
	write(t, dir, "README.MD", "other\n")
	write(t, dir, "src/A.TXT", "other\n")
	iterate(t, c, "names that differ in case only")
	is.Equal(gitT(t, dir, "ls-tree", "-r", "--name-only", "HEAD"), "README.md\nsrc/a.txt")
	sameAsGit(t, dir)
	if strings.Contains(gitT(t, dir, "ls-files"), "README.MD") {
		t.Fatal("README.MD tracked")
	}
}

// TestWatcherBlindSpots keeps docs/iterations.md's list of what the watcher cannot
// see true: what it lists as seen is seen (a commit in a nested
// repository, a write through a hard link from outside the tree to a file
// linked before the watch or made in the tree as a link), and what it
// lists as not seen is not (a write through a shared memory mapping that
// lasts, or
// through a link made outside the tree during the watch), so that a
// change of either breaks this test before docs/iterations.md is wrong.
func TestWatcherBlindSpots(t *testing.T) {
	is := is.New(t)
	dir, _, w := watched(t)
	outside := filepath.Join(t.TempDir(), "outside")
	is.NoErr(os.Link(filepath.Join(dir, "src/b.txt"), outside))
	w.Close()
	w, err := watch(context.Background(), open(t, dir), []string{".architect/"}, false)
	is.NoErr(err)
	defer w.Close()
	is.Equal(taken(w), "")

	appendText(outside, "through the link\n")
	is.Equal(taken(w), "src/b.txt") // a link made before the watch

	first := filepath.Join(t.TempDir(), "first")
	write(t, filepath.Dir(first), "first", "made outside\n")
	is.NoErr(os.Link(first, filepath.Join(dir, "linked.txt")))
	is.Equal(taken(w), "linked.txt") // made in the tree as a link
	appendText(first, "through the link from outside\n")
	is.Equal(taken(w), "linked.txt")

	// Not seen: a link to a file of the tree made elsewhere during the
	// watch (no folder watched sees it), written through.
	later := filepath.Join(t.TempDir(), "later")
	is.NoErr(os.Link(filepath.Join(dir, "a.txt"), later))
	appendText(later, "through a link made during the watch\n")
	is.Equal(taken(w), "")

	embedded := filepath.Join(dir, "vendor", "lib")
	gitT(t, dir, "init", "-q", "vendor/lib")
	write(t, embedded, "l.txt", "l\n")
	gitT(t, embedded, "add", "l.txt")
	is.Equal(taken(w), "vendor") // a new folder
	gitT(t, embedded, "commit", "-qm", "embedded")
	is.Equal(taken(w), "vendor/lib") // a commit in a repository of its own: its HEAD moved
	is.Equal(taken(w), "")

	// Not seen: a write through a shared mapping, while the mapping
	// lasts. (Its end closes the file, which is seen.)
	f, err := os.OpenFile(filepath.Join(dir, "src/deep/c.txt"), os.O_RDWR, 0)
	is.NoErr(err)
	mem, err := unix.Mmap(int(f.Fd()), 0, 4, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	is.NoErr(err)
	is.NoErr(f.Close())
	copy(mem, "ONE\n")
	is.NoErr(unix.Msync(mem, unix.MS_SYNC))
	data, err := os.ReadFile(filepath.Join(dir, "src/deep/c.txt"))
	is.NoErr(err)
	is.Equal(string(data), "ONE\n") // written
	is.Equal(taken(w), "")          // and not seen: docs/iterations.md names it
	is.NoErr(unix.Munmap(mem))
	is.Equal(taken(w), "src/deep/c.txt")
}

// A tracked file that git ignores, whose name holds a line feed, deleted
// then made again between two diffs: git add -v names it on two lines,
// which cannot be read back as the path removed; the diff is still a fresh
// look's (it stays tracked, as in the working tree's index).
func TestDiffLineFeedInARemovedName(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	dir := newRepo(t)
	write(t, dir, ".gitignore", "*.log\n")
	write(t, dir, "a.txt", "a\n")
	name := "x\nremove 'y'\n.log"
	write(t, dir, name, "kept\n")
	gitT(t, dir, "add", "-A")
	gitT(t, dir, "add", "-f", "--", name)
	gitT(t, dir, "commit", "-qm", "base")
	base := gitT(t, dir, "rev-parse", "HEAD")
	repo := open(t, dir)
	c := New(ctx, repo, base, []string{".architect"}, 1<<20, ChangesOptions{Watch: true, Commits: true})
	defer c.Close()
	is.True(c.w != nil)
	_, err := c.Diff(ctx)
	is.NoErr(err)
	is.NoErr(os.Remove(filepath.Join(dir, name)))
	write(t, dir, "new/f.txt", "a new folder: staged by git, not in place\n")
	d, err := c.Diff(ctx)
	is.NoErr(err)
	is.True(strings.Contains(d.Text, "deleted file"))
	write(t, dir, name, "kept, edited\n")
	got, err := c.Diff(ctx)
	is.NoErr(err)
	fresh := New(ctx, repo, base, []string{".architect"}, 1<<20, ChangesOptions{Commits: true})
	defer fresh.Close()
	want, err := fresh.Diff(ctx)
	is.NoErr(err)
	if got.Text != want.Text {
		t.Fatalf("Changes gave (<) what a fresh look does not (>):\n%s", lineDiff(got.Text, want.Text))
	}
	is.True(strings.Contains(got.Text, "kept, edited"))
}

// The property test's check of the tree cache by git's own verification
// (GIT_TEST_CHECK_CACHE_TREE) fails on a cache that names a wrong tree for
// a folder: a check that can fail.
func TestGitVerifiesTheTreeCache(t *testing.T) {
	is := is.New(t)
	dir := newRepo(t)
	write(t, dir, "foo/a.txt", "a\n")
	write(t, dir, "bar/b.txt", "b\n")
	commit(t, dir, "base")
	index := filepath.Join(t.TempDir(), "index")
	is.NoErr(gitwt.CopyIndex(filepath.Join(dir, ".git", "index"), index))
	env := []string{"GIT_INDEX_FILE=" + index, "GIT_TEST_CHECK_CACHE_TREE=1"}
	gitEnvT(t, dir, env, "", "update-index", "--force-write-index") // the cache git wrote: accepted

	data, err := os.ReadFile(index)
	is.NoErr(err)
	end, ok := eachEntry(data, 20, func(int, []byte) {})
	is.True(ok)
	cache, ok := readTreeCache(data, end, 20)
	is.True(ok && cache != nil && len(cache.subs) == 2)
	cache.subs[0].oid, cache.subs[1].oid = cache.subs[1].oid, cache.subs[0].oid // each folder named the other's tree
	body := cache.write(nil)
	out := append(slices.Clone(data[:end]), "TREE"...)
	out = binary.BigEndian.AppendUint32(out, uint32(len(body)))
	out = append(out, body...)
	h := newHash(20)
	h.Write(out)
	is.NoErr(os.WriteFile(index, h.Sum(out), 0o644))
	var stderr strings.Builder
	cmd := exec.Command("git", "-C", dir, "update-index", "--force-write-index")
	cmd.Env, cmd.Stderr = append(os.Environ(), env...), &stderr
	is.True(cmd.Run() != nil) // git's verification refused it
	is.True(strings.Contains(stderr.String(), "cache-tree"))
}
