package changes

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/architect-dev/architect/gitwt"
	"github.com/matryer/is"
)

var architectExcludes = []string{".architect/", ".architect-ralph-worktree/", "/.architect-worktrees"}

func TestDiffWorkingTree(t *testing.T) {
	is := is.New(t)
	dir := newRepo(t)
	ctx := context.Background()
	write(t, dir, ".gitignore", "*.log\n")
	write(t, dir, "a.txt", "a\n")
	write(t, dir, "b.txt", "b\n")
	write(t, dir, "gone.txt", "gone\n")
	base := commit(t, dir, "first")
	r := open(t, dir)
	is.NoErr(r.AddWorktree(ctx, ".architect-ralph-worktree", "architect/ralph", base))
	write(t, dir, ".architect-ralph-worktree/inside.txt", "worktree file\n")

	write(t, dir, "a.txt", "a changed\n") // modified, unstaged
	write(t, dir, "b.txt", "b staged\n")  // modified and staged by the user
	gitT(t, dir, "add", "b.txt")          //
	is.NoErr(os.Remove(filepath.Join(dir, "gone.txt")))
	write(t, dir, "new/c.txt", "brand new\n") // untracked
	write(t, dir, "日本.txt", "名前\n")           // untracked, non-ASCII name
	write(t, dir, "debug.log", "ignored\n")   // ignored by .gitignore
	write(t, dir, ".architect/state.json", "{}\n")

	statusBefore := gitT(t, dir, "status", "--porcelain") // may refresh the index, so first
	indexPath := filepath.Join(dir, ".git", "index")
	indexBefore, err := os.ReadFile(indexPath)
	is.NoErr(err)
	infoBefore, err := os.Stat(indexPath)
	is.NoErr(err)

	d, err := Compare(ctx, r, base, architectExcludes, 1<<20)
	is.NoErr(err)
	for _, want := range []string{"+a changed", "+b staged", "diff --git a/gone.txt", "+++ b/new/c.txt", "+brand new", "b/日本.txt"} {
		is.True(strings.Contains(d.Text, want)) // want is in the diff
	}
	for _, unwanted := range []string{".architect", "debug.log", "inside.txt", "Subproject"} {
		is.True(!strings.Contains(d.Text, unwanted)) // unwanted is not in the diff
		is.True(!strings.Contains(d.Stat, unwanted))
	}
	is.Equal(d.Total, int64(len(d.Text)))
	is.Equal(d.Truncated, int64(0))
	is.True(strings.HasSuffix(d.Stat, "5 files changed, 4 insertions(+), 3 deletions(-)"))
	is.Equal(len(d.Tree), 64)

	// The user's index and status are exactly as they were.
	indexAfter, err := os.ReadFile(indexPath)
	is.NoErr(err)
	infoAfter, err := os.Stat(indexPath)
	is.NoErr(err)
	is.Equal(indexAfter, indexBefore)
	is.Equal(infoAfter.ModTime(), infoBefore.ModTime())
	is.Equal(gitT(t, dir, "status", "--porcelain"), statusBefore)
	is.True(!exists(indexPath + ".lock"))
	tmp, err := os.ReadDir(os.Getenv("TMPDIR"))
	is.NoErr(err)
	is.Equal(len(tmp), 0) // the temporary index is gone

	// The same once info/exclude ignores architect's folders too (git add
	// complains when an exclusion names an ignored folder).
	is.NoErr(r.Exclude(ctx, "/.architect/", "/.architect-ralph-worktree/"))
	ignored, err := Compare(ctx, r, base, architectExcludes, 1<<20)
	is.NoErr(err)
	is.Equal(ignored, d)
}

func TestDiffIgnoresExcludedTrackedPaths(t *testing.T) {
	is := is.New(t)
	dir := newRepo(t)
	ctx := context.Background()
	write(t, dir, "a.txt", "a\n")
	write(t, dir, "notes/k.txt", "k\n")
	base := commit(t, dir, "first")
	r := open(t, dir)

	before, err := Compare(ctx, r, base, []string{"notes"}, 1<<20)
	is.NoErr(err)
	is.Equal(before.Text, "")
	write(t, dir, "notes/k.txt", "k changed\n")
	gitT(t, dir, "add", "notes/k.txt") // even staged
	after, err := Compare(ctx, r, base, []string{"notes"}, 1<<20)
	is.NoErr(err)
	is.Equal(after.Text, "")
	is.Equal(after.Tree, before.Tree)
}

// TestDiffSeesRacyEdit: an edit that leaves a file's size and times as the
// index recorded them, made in the same second the index was written, is
// seen by git only because the index's own time marks the entry as racy.
// The temporary index must keep that time.
func TestDiffSeesRacyEdit(t *testing.T) {
	is := is.New(t)
	dir := newRepo(t)
	gitT(t, dir, "config", "core.trustctime", "false") // the ctime cannot be set back
	path := filepath.Join(dir, "a.txt")
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	write(t, dir, "a.txt", "aaaa\n")
	is.NoErr(os.Chtimes(path, old, old))
	base := commit(t, dir, "first") // the entry is older than the index: not racy

	write(t, dir, "a.txt", "bbbb\n") // same size, same inode
	is.NoErr(os.Chtimes(path, old, old))
	index := filepath.Join(dir, ".git", "index")
	is.NoErr(os.Chtimes(index, old, old)) // now the entry is racy
	// git sees the change (and, writing no index, smudges no entry).
	is.Equal(gitT(t, dir, "--no-optional-locks", "status", "--porcelain"), "M a.txt")

	d, err := Compare(context.Background(), open(t, dir), base, nil, 1<<20)
	is.NoErr(err)
	is.True(strings.Contains(d.Text, "+bbbb"))
}

func TestDiffNoCommit(t *testing.T) {
	is := is.New(t)
	dir := newRepo(t)
	write(t, dir, "a.txt", "hello\n")
	write(t, dir, ".architect/x", "x\n")
	r := open(t, dir)
	d, err := Compare(context.Background(), r, "", architectExcludes, 1<<20)
	is.NoErr(err)
	is.True(strings.Contains(d.Text, "new file mode 100644"))
	is.True(strings.Contains(d.Text, "+hello"))
	is.True(!strings.Contains(d.Text, ".architect"))
	is.True(!exists(filepath.Join(dir, ".git", "index"))) // still no index
	is.Equal(gitT(t, dir, "status", "--porcelain"), "?? .architect/\n?? a.txt")

	empty, err := Compare(context.Background(), open(t, newRepo(t)), "", nil, 100)
	is.NoErr(err)
	is.Equal(empty, Diff{Tree: noChange})
}

func TestDiffTree(t *testing.T) {
	is := is.New(t)
	dir := newRepo(t)
	ctx := context.Background()
	write(t, dir, "a.txt", "a\n")
	base := commit(t, dir, "first")
	r := open(t, dir)

	clean, err := Compare(ctx, r, base, nil, 1<<20)
	is.NoErr(err)
	is.Equal(clean, Diff{Tree: noChange})
	again, err := Compare(ctx, r, base, nil, 1<<20)
	is.NoErr(err)
	is.Equal(again.Tree, clean.Tree) // unchanged state, same tree

	write(t, dir, "a.txt", "b\n")
	edited, err := Compare(ctx, r, base, nil, 1<<20)
	is.NoErr(err)
	is.True(edited.Tree != clean.Tree)
	edited2, err := Compare(ctx, r, base, nil, 1<<20)
	is.NoErr(err)
	is.Equal(edited2.Tree, edited.Tree)

	write(t, dir, "a.txt", "a\n")
	reverted, err := Compare(ctx, r, base, nil, 1<<20)
	is.NoErr(err)
	is.Equal(reverted.Tree, clean.Tree)

	// What a diff's text alone would not tell apart: binary content with
	// the same size, and a mode.
	write(t, dir, "b.bin", "\x00one")
	commit(t, dir, "binary")
	base = gitT(t, dir, "rev-parse", "HEAD")
	write(t, dir, "b.bin", "\x00two")
	bin1, err := Compare(ctx, r, base, nil, 1<<20)
	is.NoErr(err)
	write(t, dir, "b.bin", "\x00six")
	bin2, err := Compare(ctx, r, base, nil, 1<<20)
	is.NoErr(err)
	is.True(bin1.Tree != bin2.Tree)
	is.Equal(strings.ReplaceAll(bin1.Text, bin1.Text[strings.Index(bin1.Text, "..")+2:strings.Index(bin1.Text, "..")+42], ""),
		strings.ReplaceAll(bin2.Text, bin2.Text[strings.Index(bin2.Text, "..")+2:strings.Index(bin2.Text, "..")+42], "")) // only the object name differs
	write(t, dir, "b.bin", "\x00one")
	is.NoErr(os.Chmod(filepath.Join(dir, "b.bin"), 0o755))
	mode, err := Compare(ctx, r, base, nil, 1<<20)
	is.NoErr(err)
	is.True(mode.Tree != clean.Tree)
	is.True(strings.Contains(mode.Stat, "1 file changed"))
}

// noChange is Diff.Tree when nothing changed: the hash of an empty diff.
const noChange = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// TestDiffWritesNoObject: comparing costs the repository nothing, but for
// the empty blob, which new files marked as to be added refer to (15
// bytes, once per repository).
func TestDiffWritesNoObject(t *testing.T) {
	is := is.New(t)
	dir := newRepo(t)
	write(t, dir, "a.txt", "a\n")
	base := commit(t, dir, "first")
	write(t, dir, "empty", "")
	gitT(t, dir, "hash-object", "-w", "empty")
	is.NoErr(os.Remove(filepath.Join(dir, "empty")))
	write(t, dir, "a.txt", "changed\n")
	write(t, dir, "new.txt", "new\n")
	before := gitT(t, dir, "count-objects", "-v")
	d, err := Compare(context.Background(), open(t, dir), base, nil, 1<<20)
	is.NoErr(err)
	is.True(strings.Contains(d.Text, "+changed") && strings.Contains(d.Text, "+new"))
	is.Equal(gitT(t, dir, "count-objects", "-v"), before)
}

func TestDiffTruncatesAtCharacterBoundary(t *testing.T) {
	is := is.New(t)
	dir := newRepo(t)
	ctx := context.Background()
	write(t, dir, "a.txt", "a\n")
	base := commit(t, dir, "first")
	write(t, dir, "a.txt", strings.Repeat("日本語のテキスト\n", 2000))
	r := open(t, dir)

	full, err := Compare(ctx, r, base, nil, 1<<30)
	is.NoErr(err)
	is.Equal(full.Truncated, int64(0))
	is.Equal(full.Total, int64(len(full.Text)))

	start := strings.Index(full.Text, "+日本") + 10
	cuts := 0
	for limit := start; limit < start+3; limit++ {
		d, err := Compare(ctx, r, base, nil, limit)
		is.NoErr(err)
		is.True(utf8.ValidString(d.Text))
		is.True(strings.HasPrefix(full.Text, d.Text))
		is.True(len(d.Text) <= limit && len(d.Text) > limit-utf8.UTFMax)
		is.Equal(d.Total, full.Total)
		is.Equal(d.Truncated, full.Total-int64(len(d.Text)))
		is.Equal(d.Tree, full.Tree)
		is.Equal(d.Stat, full.Stat)
		if len(d.Text) < limit {
			cuts++
		}
	}
	is.Equal(cuts, 2) // two of three limits fall inside a 3-byte character

	none, err := Compare(ctx, r, base, nil, 0)
	is.NoErr(err)
	is.Equal(none.Text, "")
	is.Equal(none.Truncated, full.Total)
	is.Equal(none.Tree, full.Tree)
}

// rewriteFiles commits n files of about size bytes each, then rewrites
// every line of every one of them in the working tree.
func rewriteFiles(tb testing.TB, dir string, n, size int) {
	line := strings.Repeat("x", 63) + "\n"
	for _, pass := range []string{"old", "new"} {
		for i := range n {
			var b strings.Builder
			for b.Len() < size {
				fmt.Fprintf(&b, "%s %d %s", pass, b.Len(), line)
			}
			name := filepath.Join(dir, fmt.Sprintf("pkg%02d/file%04d.txt", i%50, i))
			if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
				tb.Fatal(err)
			}
			if err := os.WriteFile(name, []byte(b.String()), 0o644); err != nil {
				tb.Fatal(err)
			}
		}
		if pass == "old" {
			for _, args := range [][]string{{"add", "-A"}, {"commit", "--quiet", "-m", "old"}} {
				if out, err := runGit(dir, args...); err != nil {
					tb.Fatalf("git %v: %v\n%s", args, err, out)
				}
			}
		}
	}
}

func runGit(dir string, args ...string) (string, error) {
	var out strings.Builder
	err := run(context.Background(), dir, gitwt.Command{Stdout: &out}, args...)
	return strings.TrimSpace(out.String()), err
}

func TestDiffMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 12 MB diff")
	}
	is := is.New(t)
	dir := newRepo(t)
	rewriteFiles(t, dir, 400, 16<<10)
	base, err := runGit(dir, "rev-parse", "HEAD")
	is.NoErr(err)
	r := open(t, dir)

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	d, err := Compare(context.Background(), r, base, nil, 64<<10)
	runtime.ReadMemStats(&after)
	is.NoErr(err)
	is.True(d.Total > 12<<20)
	is.Equal(d.Truncated, d.Total-int64(len(d.Text)))
	is.True(len(d.Text) <= 64<<10 && len(d.Text) > 60<<10)
	is.True(strings.HasSuffix(d.Stat, "400 files changed, 89600 insertions(+), 89600 deletions(-)"))
	is.Equal(strings.Count(d.Stat, "\n"), 101) // 100 files, "...", the summary
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("diff of %d bytes: %d bytes allocated", d.Total, allocated)
	is.True(allocated < 4<<20) // far less than the diff
}

// BenchmarkDiffLarge diffs 2000 rewritten files (about 20 MB of diff),
// keeping 64 KiB of it.
func BenchmarkDiffLarge(b *testing.B) {
	dir := b.TempDir()
	b.Setenv("HOME", dir)
	b.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	b.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	b.Setenv("GIT_AUTHOR_NAME", "bench")
	b.Setenv("GIT_AUTHOR_EMAIL", "bench@example.com")
	b.Setenv("GIT_COMMITTER_NAME", "bench")
	b.Setenv("GIT_COMMITTER_EMAIL", "bench@example.com")
	if out, err := runGit(dir, "init", "--quiet"); err != nil {
		b.Fatal(err, out)
	}
	rewriteFiles(b, dir, 2000, 5<<10)
	r, err := gitwt.Open(context.Background(), dir)
	if err != nil {
		b.Fatal(err)
	}
	base, err := r.Head(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var d Diff
	for b.Loop() {
		d, err = Compare(context.Background(), r, base, architectExcludes, 64<<10)
		if err != nil {
			b.Fatal(err)
		}
	}
	if !strings.Contains(d.Stat, "2000 files changed") {
		b.Fatalf("stat: %s", d.Stat[max(0, len(d.Stat)-200):])
	}
	b.ReportMetric(float64(d.Total), "diff-bytes")
}
