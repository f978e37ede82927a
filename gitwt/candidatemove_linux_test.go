//go:build linux

package gitwt_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/changes"
	"github.com/architect-dev/architect/gitwt"
	"github.com/architect-dev/architect/internal/testutil"
)

// A candidate's round, played on two twin worktrees of one repository:
// the same agent, the same checks, then the round's kept change committed
// in the main checkout. One twin is brought to that commit by
// ResetCandidate, the other by MoveCandidate from what a watched
// changes.Changes knew at the end of the round (as the loop does); the two
// must then be the same in everything: files, folders, modes, symbolic
// links, ignored and untracked files, HEAD, the index's entries and its
// stat data.
type moveCase struct {
	name    string
	agent   func(t *testing.T, dir string) // the candidate's agent, in its worktree
	check   func(t *testing.T, dir string) // its checks, after its change was committed
	winner  func(t *testing.T, dir string) // the kept change, in the main checkout
	refused bool                           // MoveCandidate refuses (ResetCandidate does it)
}

func mkfile(t *testing.T, dir, name, text string) { testutil.WriteFile(t, dir, name, text) }

func rm(t *testing.T, dir, name string) {
	t.Helper()
	if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
}

func chmod(t *testing.T, dir, name string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(filepath.Join(dir, name), mode); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, dir, target, name string) {
	t.Helper()
	if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
}

func mkdir(t *testing.T, dir, name string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
		t.Fatal(err)
	}
}

var moveCases = []moveCase{
	{name: "edited, winner elsewhere",
		agent:  func(t *testing.T, d string) { mkfile(t, d, "a.txt", "agent\n") },
		winner: func(t *testing.T, d string) { mkfile(t, d, "b.txt", "winner\n") }},
	{name: "edited the file the winner edited",
		agent:  func(t *testing.T, d string) { mkfile(t, d, "a.txt", "agent\n") },
		winner: func(t *testing.T, d string) { mkfile(t, d, "a.txt", "winner\n") }},
	{name: "the winner's own change",
		agent:  func(t *testing.T, d string) { mkfile(t, d, "a.txt", "same\n"); rm(t, d, "b.txt") },
		winner: func(t *testing.T, d string) { mkfile(t, d, "a.txt", "same\n"); rm(t, d, "b.txt") }},
	{name: "added the file the winner added",
		agent:  func(t *testing.T, d string) { mkfile(t, d, "new.txt", "agent\n") },
		winner: func(t *testing.T, d string) { mkfile(t, d, "new.txt", "winner\n") }},
	{name: "deleted the file the winner edited",
		agent:  func(t *testing.T, d string) { rm(t, d, "b.txt") },
		winner: func(t *testing.T, d string) { mkfile(t, d, "b.txt", "winner\n") }},
	{name: "renamed a file",
		agent: func(t *testing.T, d string) {
			if err := os.Rename(filepath.Join(d, "dir/x.txt"), filepath.Join(d, "dir/x2.txt")); err != nil {
				t.Fatal(err)
			}
		},
		winner: func(t *testing.T, d string) { mkfile(t, d, "dir/y.txt", "winner\n") }},
	{name: "changed modes",
		agent:  func(t *testing.T, d string) { chmod(t, d, "a.txt", 0o755); chmod(t, d, "run.sh", 0o644) },
		winner: func(t *testing.T, d string) { chmod(t, d, "b.txt", 0o755) }},
	{name: "only touched files",
		agent: func(t *testing.T, d string) {
			mkfile(t, d, "a.txt", "a\n")
			chmod(t, d, "b.txt", 0o755)
			chmod(t, d, "b.txt", 0o644)
		},
		winner: func(t *testing.T, d string) { mkfile(t, d, "dir/y.txt", "winner\n") }},
	{name: "a file replaced by a symbolic link, a link by a file",
		agent: func(t *testing.T, d string) {
			rm(t, d, "a.txt")
			symlink(t, d, "b.txt", "a.txt")
			rm(t, d, "link")
			mkfile(t, d, "link", "now a file\n")
		},
		winner: func(t *testing.T, d string) { mkfile(t, d, "b.txt", "winner\n") }},
	{name: "a folder replaced by a file",
		agent:  func(t *testing.T, d string) { rm(t, d, "dir/sub"); mkfile(t, d, "dir/sub", "a file\n") },
		winner: func(t *testing.T, d string) { mkfile(t, d, "dir/sub/z.txt", "winner\n") }},
	{name: "a file replaced by a folder",
		agent:  func(t *testing.T, d string) { rm(t, d, "b.txt"); mkfile(t, d, "b.txt/in.txt", "in\n") },
		winner: func(t *testing.T, d string) { mkfile(t, d, "a.txt", "winner\n") }},
	{name: "untracked files and folders",
		agent: func(t *testing.T, d string) {
			mkfile(t, d, "u.txt", "u\n")
			mkfile(t, d, "deep/er/new.txt", "n\n")
			mkdir(t, d, "empty/nested/dirs")
			mkfile(t, d, "dir/u2.txt", "u2\n")
			mkfile(t, d, "mixed/u.txt", "u\n")
			mkfile(t, d, "mixed/inner/i.ign", "ignored\n")
			mkdir(t, d, "dir/sub/emptied")
		},
		winner: func(t *testing.T, d string) { mkfile(t, d, "a.txt", "winner\n") }},
	{name: "ignored files",
		agent: func(t *testing.T, d string) {
			mkfile(t, d, "cache.ign", "changed\n")
			mkfile(t, d, "build/more.o", "o\n")
			rm(t, d, "build/out.o")
			mkfile(t, d, "dir/n.ign", "n\n")
			mkdir(t, d, "build/empty")
		},
		winner: func(t *testing.T, d string) { mkfile(t, d, "a.txt", "winner\n") }},
	{name: "a check wrote a tracked file after the agent",
		agent: func(t *testing.T, d string) { mkfile(t, d, "a.txt", "agent\n") },
		check: func(t *testing.T, d string) {
			mkfile(t, d, "b.txt", "formatted by a check\n")
			mkfile(t, d, "report/out.txt", "check output\n")
			rm(t, d, "solo/only.txt")
		},
		winner: func(t *testing.T, d string) { mkfile(t, d, "dir/y.txt", "winner\n") }},
	{name: "the winner deleted the folder the agent added to",
		agent:  func(t *testing.T, d string) { mkfile(t, d, "solo/extra.txt", "e\n") },
		winner: func(t *testing.T, d string) { rm(t, d, "solo") }},
	{name: "the winner deleted the folder a check wrote into",
		agent: func(t *testing.T, d string) { mkfile(t, d, "a.txt", "agent\n") },
		check: func(t *testing.T, d string) {
			mkfile(t, d, "solo/check.txt", "c\n")
			mkfile(t, d, "solo/deep/er.txt", "c\n")
		},
		winner: func(t *testing.T, d string) { rm(t, d, "solo") }},
	{name: "the winner deleted a tracked file git ignores",
		agent:  func(t *testing.T, d string) { mkfile(t, d, "forced.ign", "agent\n") },
		winner: func(t *testing.T, d string) { rm(t, d, "forced.ign"); rm(t, d, "dir/sub") }},
	{name: "the winner deleted a folder that holds an ignored file",
		agent:  func(t *testing.T, d string) { mkfile(t, d, "solo/kept.ign", "i\n") },
		winner: func(t *testing.T, d string) { rm(t, d, "solo") }},
	{name: "the winner replaced a file by a folder",
		agent: func(t *testing.T, d string) { mkfile(t, d, "b.txt", "agent\n") },
		winner: func(t *testing.T, d string) {
			rm(t, d, "b.txt")
			mkfile(t, d, "b.txt/inner.txt", "winner\n")
			symlink(t, d, "../a.txt", "dir/to-a")
		}},
	{name: "the agent emptied a folder",
		agent:  func(t *testing.T, d string) { rm(t, d, "solo/only.txt"); rm(t, d, "dir/sub/z.txt") },
		winner: func(t *testing.T, d string) { mkfile(t, d, "a.txt", "winner\n") }},
	{name: "the winner changed .gitignore",
		agent:   func(t *testing.T, d string) { mkfile(t, d, "a.txt", "agent\n") },
		winner:  func(t *testing.T, d string) { mkfile(t, d, ".gitignore", "build/\n") },
		refused: true},
}

// moveFixture is the repository a round starts from: files, an
// executable, a symbolic link, folders, ignore rules.
func moveFixture(t *testing.T) (dir, base string) {
	dir = testutil.NewRepo(t)
	for name, text := range map[string]string{
		"a.txt": "a\n", "b.txt": "b\n", "run.sh": "#!/bin/sh\n", "dir/x.txt": "x\n", "dir/y.txt": "y\n",
		"dir/sub/z.txt": "z\n", "solo/only.txt": "only\n", ".gitignore": "*.ign\nbuild/\n",
	} {
		mkfile(t, dir, name, text)
	}
	chmod(t, dir, "run.sh", 0o755)
	symlink(t, dir, "a.txt", "link")
	mkfile(t, dir, "forced.ign", "tracked although ignored\n")
	testutil.Git(t, dir, "add", "--force", "forced.ign")
	return dir, testutil.Commit(t, dir, "base")
}

// candidateRound plays the candidate's round in its worktree, already at
// base: a watched Changes started as the round begins, the agent, the
// commit of its change, the checks, the look after the last of them.
func candidateRound(t *testing.T, wt, base string, tc moveCase) gitwt.CandidateEnd {
	t.Helper()
	ctx := context.Background()
	r, err := gitwt.Open(ctx, wt)
	if err != nil {
		t.Fatal(err)
	}
	ch := changes.New(ctx, r, base, nil, 0, changes.ChangesOptions{Watch: true, Commits: true, Clean: true})
	defer ch.Close()
	tc.agent(t, wt)
	head, _, err := ch.Commit(ctx, "candidate", nil)
	if err != nil {
		t.Fatal(err)
	}
	if tc.check != nil {
		tc.check(t, wt)
	}
	tree, _, err := ch.Tree(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	touched, complete := ch.Touched()
	if !complete {
		t.Fatal("the watcher does not know every path the round touched")
	}
	return gitwt.CandidateEnd{Head: head, Tree: tree, Touched: touched}
}

func TestMoveCandidateLikeReset(t *testing.T) {
	for _, tc := range moveCases {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			ctx := context.Background()
			dir, base := moveFixture(t)
			r, err := gitwt.Open(ctx, dir)
			is.NoErr(err)
			twins := t.TempDir()
			reset, fast := filepath.Join(twins, "reset"), filepath.Join(twins, "fast")
			var ends []gitwt.CandidateEnd
			for _, wt := range []string{reset, fast} {
				is.NoErr(r.AddCandidate(ctx, wt, base))
				// Ignored files earlier rounds left.
				mkfile(t, wt, "cache.ign", "cache\n")
				mkfile(t, wt, "build/out.o", "out\n")
				ends = append(ends, candidateRound(t, wt, base, tc))
			}
			tc.winner(t, dir)
			to := testutil.Commit(t, dir, "the round's kept change")

			is.NoErr(r.ResetCandidate(ctx, reset, to, nil))
			err = r.MoveCandidate(ctx, fast, ends[1], to, nil)
			if tc.refused {
				is.True(errors.Is(err, gitwt.ErrCandidateMoved)) // refused
				return
			}
			is.NoErr(err)
			sameWorktrees(t, reset, fast, to)
		})
	}
}

// MoveCandidate trusts nothing it can check: HEAD elsewhere than the end
// of the round says is refused, changing nothing.
func TestMoveCandidateRefusesAMovedHead(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	dir, base := moveFixture(t)
	r, err := gitwt.Open(ctx, dir)
	is.NoErr(err)
	wt := filepath.Join(t.TempDir(), "c")
	is.NoErr(r.AddCandidate(ctx, wt, base))
	end := candidateRound(t, wt, base, moveCase{agent: func(t *testing.T, d string) { mkfile(t, d, "a.txt", "agent\n") }})
	mkfile(t, dir, "b.txt", "winner\n")
	to := testutil.Commit(t, dir, "kept")
	testutil.Git(t, wt, "checkout", "--quiet", "--detach", base)
	err = r.MoveCandidate(ctx, wt, end, to, nil)
	is.True(errors.Is(err, gitwt.ErrCandidateMoved))
	is.Equal(testutil.Git(t, wt, "rev-parse", "HEAD"), base) // HEAD left alone
}

// A change in the worktree that the round's Touched does not cover (the
// watch missed it, or it came after the look) is refused: the caller
// resets the worktree instead.
func TestMoveCandidateRefusesAnUnseenChange(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	dir, base := moveFixture(t)
	r, err := gitwt.Open(ctx, dir)
	is.NoErr(err)
	wt := filepath.Join(t.TempDir(), "c")
	is.NoErr(r.AddCandidate(ctx, wt, base))
	end := candidateRound(t, wt, base, moveCase{
		agent: func(t *testing.T, d string) { mkfile(t, d, "a.txt", "agent\n") },
		check: func(t *testing.T, d string) { mkfile(t, d, "b.txt", "check\n") },
	})
	is.Equal(end.Touched, []string{"a.txt", "b.txt"})
	end.Touched = []string{"a.txt"}
	mkfile(t, dir, "dir/y.txt", "winner\n")
	to := testutil.Commit(t, dir, "kept")
	err = r.MoveCandidate(ctx, wt, end, to, nil)
	is.True(errors.Is(err, gitwt.ErrCandidateMoved))
	is.Equal(testutil.Git(t, wt, "rev-parse", "HEAD"), end.Head) // HEAD left alone
}

// sameWorktrees fails the test unless worktrees a (ResetCandidate's) and b
// (MoveCandidate's) are the same in everything, HEAD at commit, both clean
// with a stat-clean index.
func sameWorktrees(t *testing.T, a, b, commit string) {
	t.Helper()
	is := is.NewRelaxed(t)
	// First what git status would repair: the index's stat data. git
	// status, with its optional locks on, rewrites the index when it had
	// to refresh an entry: it must not have to.
	before := map[string][32]byte{}
	for _, wt := range []string{a, b} {
		staleStat(t, wt)
		before[wt] = indexSum(t, wt)
	}
	is.Equal(testutil.Git(t, a, "ls-files", "--stage"), testutil.Git(t, b, "ls-files", "--stage"))
	is.Equal(tree(t, a), tree(t, b)) // files, folders, modes, links, ignored and untracked files
	for _, wt := range []string{a, b} {
		is.Equal(testutil.Git(t, wt, "rev-parse", "HEAD"), commit)
		is.Equal(testutil.Git(t, wt, "rev-parse", "--abbrev-ref", "HEAD"), "HEAD") // detached
		is.Equal(testutil.Git(t, wt, "status", "--porcelain"), "")
		is.Equal(indexSum(t, wt), before[wt]) // the index rewritten by git status
	}
	is.Equal(testutil.Git(t, a, "status", "--porcelain", "--ignored", "--untracked-files=all"),
		testutil.Git(t, b, "status", "--porcelain", "--ignored", "--untracked-files=all"))
}

// tree describes every path under dir but .git: its kind, its mode bits,
// its content or link target.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == ".git" {
			return nil
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case info.Mode()&os.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out = append(out, rel+" -> "+target)
		case info.IsDir():
			out = append(out, rel+"/")
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out = append(out, fmt.Sprintf("%s %o %q", rel, info.Mode().Perm(), data))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// staleStat fails the test for each index entry whose stat data is not
// its file's (ctime, mtime, inode, size): git would read that file again.
// Times are compared to the second, as git compares them unless built
// with USE_NSEC (Debian's and most distributions' git is not).
func staleStat(t *testing.T, wt string) {
	t.Helper()
	out := testutil.Git(t, wt, "ls-files", "--debug")
	var path string
	fields := map[string]string{}
	checkOne := func() {
		if path == "" {
			return
		}
		info, err := os.Lstat(filepath.Join(wt, path))
		if err != nil {
			t.Errorf("%s: %s is in the index: %v", wt, path, err)
			return
		}
		st := info.Sys().(*syscall.Stat_t)
		want := map[string]string{
			"ctime": strconv.FormatInt(st.Ctim.Sec, 10),
			"mtime": strconv.FormatInt(st.Mtim.Sec, 10),
			"ino":   strconv.FormatUint(st.Ino, 10),
			"size":  strconv.FormatInt(st.Size, 10),
		}
		for k, v := range want {
			if fields[k] != v {
				t.Errorf("%s: %s: the index's %s is %s, the file's %s", wt, path, k, fields[k], v)
			}
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "  ") {
			checkOne()
			path, fields = line, map[string]string{}
			continue
		}
		for _, f := range strings.Split(strings.TrimSpace(line), "\t") {
			if k, v, ok := strings.Cut(f, ": "); ok {
				if k == "ctime" || k == "mtime" {
					v, _, _ = strings.Cut(v, ":") // seconds
				}
				fields[k] = v
			}
		}
	}
	checkOne()
}

func indexSum(t *testing.T, wt string) [32]byte {
	t.Helper()
	data, err := os.ReadFile(testutil.Git(t, wt, "rev-parse", "--git-path", "index"))
	if err != nil {
		data, err = os.ReadFile(filepath.Join(wt, testutil.Git(t, wt, "rev-parse", "--git-path", "index")))
	}
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(data)
}
