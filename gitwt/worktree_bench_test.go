package gitwt

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkAddWorktree is the creation of a batch's worktrees: each op
// makes one worktree as the batch does (AddWorktree: HEAD, the folder, the
// worktree list, the branch, then `git worktree add`) and one with `git
// worktree add` alone, alternately first, on a repository of 50,000 files
// (ARCHITECT_BENCH_WT_FILES for another size); -benchtime 20x is a batch
// of 20 each. It reports the mean time of each and their ratio.
func BenchmarkAddWorktree(b *testing.B) {
	n := 50000
	if s := os.Getenv("ARCHITECT_BENCH_WT_FILES"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	dir := benchRepo(b, n)
	ctx := context.Background()
	r, err := Open(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	wts := b.TempDir()
	var arch, plain time.Duration
	for i := 0; b.Loop(); i++ {
		steps := []func(){
			func() {
				name := fmt.Sprintf("a%03d", i)
				t0 := time.Now()
				if err := r.AddWorktree(ctx, filepath.Join(wts, name), name, "HEAD"); err != nil {
					b.Fatal(err)
				}
				arch += time.Since(t0)
			},
			func() {
				name := fmt.Sprintf("g%03d", i)
				t0 := time.Now()
				if out, err := runGit(dir, "worktree", "add", "--quiet", "-b", name, "--", filepath.Join(wts, name), "HEAD"); err != nil {
					b.Fatal(err, out)
				}
				plain += time.Since(t0)
			},
		}
		if i%2 == 1 {
			steps[0], steps[1] = steps[1], steps[0]
		}
		steps[0]()
		steps[1]()
	}
	b.ReportMetric(float64(arch.Milliseconds())/float64(b.N), "architect-ms/add")
	b.ReportMetric(float64(plain.Milliseconds())/float64(b.N), "git-ms/add")
	b.ReportMetric(float64(arch)/float64(plain), "ratio")
}

// BenchmarkCheckoutClean is the clean last look's checkout: each op makes
// and removes a clean worktree (CheckoutClean: the snapshot commit of the
// working tree with one file changed, `git worktree add --detach`; then
// Remove) and one with plain `git worktree add --detach HEAD` and `git
// worktree remove --force`, alternately first, on a repository of 1,000
// and 10,000 files (ARCHITECT_BENCH_SIZES for others). It reports the mean
// time of each and their ratio.
func BenchmarkCheckoutClean(b *testing.B) {
	sizes := []int{1000, 10000}
	if s := os.Getenv("ARCHITECT_BENCH_SIZES"); s != "" {
		sizes = nil
		for _, f := range filepath.SplitList(s) {
			n, _ := strconv.Atoi(f)
			sizes = append(sizes, n)
		}
	}
	for _, n := range sizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			dir := benchRepo(b, n)
			ctx := context.Background()
			r, err := Open(ctx, dir)
			if err != nil {
				b.Fatal(err)
			}
			plainDir := filepath.Join(b.TempDir(), "plain")
			var arch, plain time.Duration
			for i := 0; b.Loop(); i++ {
				touch(b, dir, i)
				steps := []func(){
					func() {
						t0 := time.Now()
						ct, err := r.CheckoutClean(ctx, []string{".architect"})
						if err != nil {
							b.Fatal(err)
						}
						if err := ct.Remove(ctx); err != nil {
							b.Fatal(err)
						}
						arch += time.Since(t0)
					},
					func() {
						t0 := time.Now()
						for _, args := range [][]string{{"worktree", "add", "--quiet", "--detach", "--", plainDir, "HEAD"}, {"worktree", "remove", "--force", "--", plainDir}} {
							if out, err := runGit(dir, args...); err != nil {
								b.Fatal(err, out)
							}
						}
						plain += time.Since(t0)
					},
				}
				if i%2 == 1 {
					steps[0], steps[1] = steps[1], steps[0]
				}
				steps[0]()
				steps[1]()
			}
			b.ReportMetric(float64(arch.Microseconds())/1000/float64(b.N), "architect-ms/op")
			b.ReportMetric(float64(plain.Microseconds())/1000/float64(b.N), "git-ms/op")
			b.ReportMetric(float64(arch)/float64(plain), "ratio")
		})
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

// BenchmarkResetCandidate is a round's preparation under --candidates:
// each op commits a one-file change, has each of 4 candidates' agents edit
// a file and leave an untracked one, then brings the 4 to the new commit
// with ResetCandidate, concurrently, on a repository of 10,000 files
// (ARCHITECT_BENCH_SIZES for others); move-N does the same with
// MoveCandidate, told what each round touched (the loop knows it from the
// candidate's watched Changes; here the bench says it, and the tree of
// each worktree is written untimed). bench/ measures both on 100,000
// files, with the watch.
func BenchmarkResetCandidate(b *testing.B) {
	sizes := []int{10000}
	if s := os.Getenv("ARCHITECT_BENCH_SIZES"); s != "" {
		sizes = nil
		for _, f := range filepath.SplitList(s) {
			n, _ := strconv.Atoi(f)
			sizes = append(sizes, n)
		}
	}
	for _, n := range sizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			dir := benchRepo(b, n)
			ctx := context.Background()
			r, err := Open(ctx, dir)
			if err != nil {
				b.Fatal(err)
			}
			head, err := r.Head(ctx)
			if err != nil {
				b.Fatal(err)
			}
			paths := make([]string, 4)
			for i := range paths {
				paths[i] = filepath.Join(b.TempDir(), "cand")
				if err := r.AddCandidate(ctx, paths[i], head); err != nil {
					b.Fatal(err)
				}
			}
			var spent time.Duration
			for i := 0; b.Loop(); i++ {
				for k, p := range paths {
					if err := os.WriteFile(filepath.Join(p, "pkg0001", fmt.Sprintf("file%06d.txt", 100+k)), []byte(fmt.Sprint("agent ", i)), 0o644); err != nil {
						b.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(p, "pkg0002", fmt.Sprint("new", i)), nil, 0o644); err != nil {
						b.Fatal(err)
					}
				}
				touch(b, dir, i)
				if out, err := runGit(dir, "-c", "gc.auto=0", "commit", "-q", "-a", "-m", fmt.Sprint("round ", i)); err != nil {
					b.Fatal(err, out)
				}
				commit, err := r.Head(ctx)
				if err != nil {
					b.Fatal(err)
				}
				t0 := time.Now()
				errs := make(chan error, len(paths))
				for _, p := range paths {
					go func() { errs <- r.ResetCandidate(ctx, p, commit, []string{".architect"}) }()
				}
				for range paths {
					if err := <-errs; err != nil {
						b.Fatal(err)
					}
				}
				spent += time.Since(t0)
			}
			b.ReportMetric(float64(spent.Microseconds())/1000/float64(b.N), "ms/round-of-4")
		})
		b.Run("move-"+strconv.Itoa(n), func(b *testing.B) { benchMove(b, n) })
	}
}

// benchMove is BenchmarkResetCandidate's round with MoveCandidate.
func benchMove(b *testing.B, n int) {
	dir := benchRepo(b, n)
	ctx := context.Background()
	r, err := Open(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	head, err := r.Head(ctx)
	if err != nil {
		b.Fatal(err)
	}
	paths := make([]string, 4)
	for i := range paths {
		paths[i] = filepath.Join(b.TempDir(), "cand")
		if err := r.AddCandidate(ctx, paths[i], head); err != nil {
			b.Fatal(err)
		}
	}
	var spent time.Duration
	for i := 0; b.Loop(); i++ {
		ends := make([]CandidateEnd, len(paths))
		for k, p := range paths {
			edited := fmt.Sprintf("pkg0001/file%06d.txt", 100+k)
			added := fmt.Sprint("pkg0002/new", i)
			if err := os.WriteFile(filepath.Join(p, edited), []byte(fmt.Sprint("agent ", i)), 0o644); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(p, added), nil, 0o644); err != nil {
				b.Fatal(err)
			}
			// The worktree's tree, as the candidate's Changes would stage it.
			index := filepath.Join(b.TempDir(), "index")
			env := Command{Env: []string{"GIT_INDEX_FILE=" + index}}
			if err := run(ctx, p, env, "read-tree", head); err != nil {
				b.Fatal(err)
			}
			if err := run(ctx, p, env, "add", "-A"); err != nil {
				b.Fatal(err)
			}
			var tree strings.Builder
			env.Stdout = &tree
			if err := run(ctx, p, env, "write-tree"); err != nil {
				b.Fatal(err)
			}
			ends[k] = CandidateEnd{Head: head, Tree: strings.TrimSpace(tree.String()), Touched: []string{edited, added}}
		}
		touch(b, dir, i)
		if out, err := runGit(dir, "-c", "gc.auto=0", "commit", "-q", "-a", "-m", fmt.Sprint("round ", i)); err != nil {
			b.Fatal(err, out)
		}
		commit, err := r.Head(ctx)
		if err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		errs := make(chan error, len(paths))
		for k, p := range paths {
			go func() { errs <- r.MoveCandidate(ctx, p, ends[k], commit, []string{".architect"}) }()
		}
		for range paths {
			if err := <-errs; err != nil {
				b.Fatal(err)
			}
		}
		spent += time.Since(t0)
		head = commit
	}
	b.ReportMetric(float64(spent.Microseconds())/1000/float64(b.N), "ms/round-of-4")
}
