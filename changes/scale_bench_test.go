package changes

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/architect-dev/architect/gitwt"
)

// BenchmarkIteration is one loop iteration's git work with one file
// changed: Changes.Diff then Changes.Commit on a watched tree (build mode,
// worktrees), Changes.Diff alone (plan mode), and plain git doing what a
// commit does (git add -A && git commit && git diff HEAD~1) on a copy, for
// repositories of 1,000 and 100,000 files, 100 to a folder
// (ARCHITECT_BENCH_SIZES=1000:50000 for others). bench/ measures the same
// through the whole binary.
func BenchmarkIteration(b *testing.B) {
	sizes := []int{1000, 100000}
	if s := os.Getenv("ARCHITECT_BENCH_SIZES"); s != "" {
		sizes = nil
		for _, f := range filepath.SplitList(s) {
			n, _ := strconv.Atoi(f)
			sizes = append(sizes, n)
		}
	}
	for _, n := range sizes {
		arch, plain := benchRepo(b, n), benchRepo(b, n)
		b.Run(fmt.Sprintf("changes/%d", n), func(b *testing.B) { benchChanges(b, arch, true) })
		b.Run(fmt.Sprintf("diff-only/%d", n), func(b *testing.B) { benchChanges(b, arch, false) })
		b.Run(fmt.Sprintf("plain-git/%d", n), func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				touch(b, plain, i)
				b.StartTimer()
				for _, args := range [][]string{{"add", "-A"}, {"commit", "-q", "-m", "iteration"}, {"diff", "HEAD~1"}} {
					if out, err := runGit(plain, args...); err != nil {
						b.Fatal(err, out)
					}
				}
			}
		})
	}
}

// benchChanges times Changes.Diff after one file changed on a watched
// tree, then (commit: build mode) Changes.Commit.
func benchChanges(b *testing.B, dir string, commit bool) {
	ctx := context.Background()
	r, err := gitwt.Open(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	base, _ := r.Head(ctx)
	c := New(ctx, r, base, []string{".architect"}, 5000, ChangesOptions{Watch: true, Commits: commit})
	defer c.Close()
	if _, err := c.Diff(ctx); err != nil {
		b.Fatal(err)
	}
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		touch(b, dir, i)
		b.StartTimer()
		if _, err := c.Diff(ctx); err != nil {
			b.Fatal(err)
		}
		if !commit {
			continue
		}
		if _, ok, err := c.Commit(ctx, "iteration", nil); err != nil || !ok {
			b.Fatal(err, ok)
		}
	}
}

func touch(b *testing.B, dir string, i int) {
	name := filepath.Join(dir, "pkg0000", "file000007.txt")
	if err := os.WriteFile(name, []byte(fmt.Sprintf("iteration %d %d\n", i, time.Now().UnixNano())), 0o644); err != nil {
		b.Fatal(err)
	}
}

func benchRepo(b *testing.B, n int) string {
	dir := b.TempDir()
	b.Setenv("HOME", dir)
	b.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	b.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, v := range []string{"GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"} {
		b.Setenv(v, "bench")
	}
	for _, v := range []string{"GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"} {
		b.Setenv(v, "bench@example.com")
	}
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("pkg%04d", i/100), fmt.Sprintf("file%06d.txt", i))
		if i%100 == 0 {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.WriteFile(p, []byte(fmt.Sprintf("file %d\n", i)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	// Packed, as a repository of that size is, and no gc --auto left
	// running in the background.
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "gc.auto=0", "commit", "-q", "-m", "fixture"}, {"gc", "-q"}} {
		if out, err := runGit(dir, args...); err != nil {
			b.Fatal(err, out)
		}
	}
	return dir
}
