package changes

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/architect-dev/architect/gitwt"
	"github.com/gofrs/flock"
	"github.com/matryer/is"
)

// TestChangesMatchAFreshDiff is the property that matters: after any
// sequence of changes, the diff Changes returns, updated path by path from
// what the watcher saw, is byte for byte the one a fresh look at the whole
// tree gives (Compare). Random edits, creations, deletions, renames of
// files and folders, mode changes, symbolic links, files becoming folders,
// new folders full of files, ignore-rule, attribute and info/exclude
// changes, the index written by someone else, in and out of excluded and
// ignored folders; with and without commits (each commit must be the tree
// `git add -A` gives, and leave the index as `git commit` does); with the
// whole diff kept, and with a short text, so that a diff shrinking brings
// segments whose bytes were dropped into view.
func TestChangesMatchAFreshDiff(t *testing.T) {
	for _, tc := range []struct {
		name    string
		commits bool
		limit   int
		seed    uint64
	}{
		{"diff", false, 1 << 20, 7},
		{"commits", true, 1 << 20, 8},
		{"diff, short text", false, 300, 9},
		{"commits, short text", true, 300, 10},
	} {
		t.Run(tc.name, func(t *testing.T) { changesProperty(t, tc.commits, tc.limit, tc.seed, plainRun) })
	}
	// Mostly edits in place, as agents make them: staged in the size of the
	// change (inplace.go), with every other kind of change among them.
	for _, seed := range []uint64{12, 13, 126, 133} {
		t.Run(fmt.Sprintf("commits, edits in place %d", seed), func(t *testing.T) { changesProperty(t, true, 1<<20, seed, inPlaceRun) })
	}
	// git's corner cases among edits in place: control characters in
	// names, a submodule committed in, a file hard-linked from outside the
	// tree written through that link, merges stopped on a conflict, racy
	// writes (same size, same modification time), someone else's git add
	// running during a diff and a commit; and all of it again under
	// core.ignorecase, with names that differ in case only.
	// ARCHITECT_PROPERTY_SEEDS=N runs N more seeds of each, from 1000 (on
	// demand: go test ./changes -run TestChangesMatchAFreshDiff).
	corners := []uint64{21}
	if n, err := strconv.Atoi(os.Getenv("ARCHITECT_PROPERTY_SEEDS")); err == nil {
		for i := range n {
			corners = append(corners, uint64(1000+i))
		}
	}
	for i, seed := range corners {
		t.Run(fmt.Sprintf("commits, git's corner cases %d", seed), func(t *testing.T) { changesProperty(t, true, 1<<20, seed, cornersRun) })
		if i == 0 {
			seed = 22
		}
		t.Run(fmt.Sprintf("commits, git's corner cases, core.ignorecase %d", seed), func(t *testing.T) {
			changesProperty(t, true, 1<<20, seed, cornersRun|ignoreCaseRun)
		})
	}
}

// The kinds of property runs.
type propertyRun int

const (
	plainRun      propertyRun = 0
	inPlaceRun    propertyRun = 1 << iota // mostly edits in place
	cornersRun                            // and git's corner cases
	ignoreCaseRun                         // under core.ignorecase
)

// lines is a file's text: n lines of group g, line k of which says "edit"
// (k < 0: none), so that files of one group are similar (renames with an
// edit are detected) and files of different groups are not.
func lines(g, n, k int) string {
	var b strings.Builder
	for i := range n {
		if i == k {
			fmt.Fprintf(&b, "edited line %d of group %d\n", i, g)
			continue
		}
		fmt.Fprintf(&b, "line %d of group %d, long enough to matter for rename detection\n", i, g)
	}
	return b.String()
}

func changesProperty(t *testing.T, commits bool, limit int, seed uint64, kind propertyRun) {
	is := is.New(t)
	ctx := context.Background()
	inPlace, corners := kind&(inPlaceRun|cornersRun) != 0, kind&cornersRun != 0
	dir, repo, w := watched(t)
	w.Close()
	for i := range 8 {
		write(t, dir, fmt.Sprintf("lib/m%d.go", i), lines(i, 12, -1))
	}
	outside := filepath.Join(t.TempDir(), "outside")
	if corners {
		sub := t.TempDir()
		gitT(t, sub, "init", "-q")
		write(t, sub, "s.txt", "s\n")
		commit(t, sub, "sub")
		gitT(t, dir, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "sub")
	}
	base := commit(t, dir, "more")
	if corners {
		// Branches to merge, each with a conflict in a.txt (edited below,
		// committed by the first commit) and a file of its own.
		for i := range 3 {
			gitT(t, dir, "checkout", "-qb", fmt.Sprintf("side%d", i))
			write(t, dir, "a.txt", fmt.Sprintf("side %d\n", i))
			write(t, dir, fmt.Sprintf("merged/s%d.txt", i), "merged\n")
			commit(t, dir, fmt.Sprintf("side %d", i))
			gitT(t, dir, "checkout", "-q", "main")
		}
		is.NoErr(os.Link(filepath.Join(dir, "lib/m1.go"), outside))
		if kind&ignoreCaseRun != 0 {
			gitT(t, dir, "config", "core.ignorecase", "true")
		}
	}
	excludes := []string{".architect"}
	baseFiles := strings.Split(gitT(t, dir, "ls-tree", "-r", "--name-only", base, "--", "a.txt", "src", "lib"), "\n")
	// Edits to files of the base, so that the diff has files that stay
	// modified while others change (how they show depends on attributes).
	write(t, dir, "a.txt", "one\nedited\n")
	write(t, dir, "lib/m0.go", lines(0, 12, 3))
	c := New(ctx, repo, base, excludes, limit, ChangesOptions{Watch: true, Commits: commits})
	defer c.Close()
	is.True(c.w != nil)
	rng := rand.New(rand.NewPCG(seed, 11))

	// The tree as it is, to pick from: files (and links), and folders.
	scan := func() (files, dirs []string) {
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || path == dir {
				return nil
			}
			rel := filepath.ToSlash(path[len(dir)+1:])
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			if corners && (rel == "sub" || rel == ".gitmodules") {
				return nil // the submodule's files, but not the submodule (a .gitmodules git cannot read stops git)
			}
			if d.IsDir() {
				dirs = append(dirs, rel)
			} else {
				files = append(files, rel)
			}
			return nil
		})
		return files, dirs
	}
	places := []string{"", "src", "src/deep", "lib", "node_modules/pkg", ".architect", "fresh", "fresh/inner"}
	newName := func() string {
		return filepath.Join(places[rng.IntN(len(places))], fmt.Sprintf("f%d.%s", rng.IntN(30), []string{"txt", "go", "md", "bin"}[rng.IntN(4)]))
	}
	oneOf := func(xs []string, or string) string {
		if len(xs) == 0 {
			return or
		}
		return xs[rng.IntN(len(xs))]
	}
	// put writes a file for an operation; one that cannot be written
	// (its folder is a file) is skipped, as an agent's failed write.
	put := func(name, text string) {
		path := filepath.Join(dir, name)
		if os.MkdirAll(filepath.Dir(path), 0o755) == nil {
			os.WriteFile(path, []byte(text), 0o644)
		}
	}
	seen := map[string]bool{}
	ops := map[int]int{} // how many times each operation ran
	var log []string     // the operations of each round, for a failure message
	// The operations below, by how often they come: edits most, changes
	// that make the whole tree be looked at (rules, someone else's git)
	// least.
	opWeights := []int{0, 0, 0, 0, 0, 0, 16, 16, 16, 16, 16, 16, 3, 3, 4, 4, 5, 5, 5, 6, 7, 8, 9, 10, 11, 12, 13, 13, 14, 15, 15}
	if corners {
		opWeights = []int{16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 17, 17, 17, 17, 18, 18, 19, 19, 19, 20, 20, 21, 21, 21, 22, 22, 23, 23, 0, 3, 4, 5, 6, 7, 9, 13, 14, 15}
	} else if inPlace {
		opWeights = []int{16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 4, 4, 4, 0, 3, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}
	}
	counts := map[string]int{} // corner cases met
	rounds := 100
	if kind&ignoreCaseRun != 0 {
		rounds = 60 // every look a whole one: slower
	}
	for round := range rounds {
		var background *exec.Cmd // someone else's git add, running during the diff and the commit
		log = append(log, fmt.Sprintf("round %d:", round))
		forced := corners && round == rounds*7/10   // a merge in every run
		for i := range rng.IntN(4) + btoi(forced) { // 0 to 3 operations: some rounds change nothing
			files, dirs := scan()
			f := oneOf(files, newName())
			if rng.IntN(3) == 0 {
				f = newName()
			}
			p := filepath.Join(dir, f)
			op := opWeights[rng.IntN(len(opWeights))]
			if forced && i == 0 {
				op = 24
			}
			ops[op]++
			log = append(log, fmt.Sprintf("  op %d on %s", op, f))
			switch op {
			default:
				os.RemoveAll(p) // a link or a folder by that name becomes a file
				put(f, lines(rng.IntN(10), 4+rng.IntN(10), rng.IntN(12)-1))
			case 3:
				os.Remove(p)
			case 4:
				if rng.IntN(2) == 0 {
					p = filepath.Join(dir, oneOf(baseFiles, "a.txt")) // a mode change shows only on a file the base has
				}
				os.Chmod(p, os.FileMode(0o644|rng.IntN(2)*0o111))
			case 5:
				to := filepath.Join(dir, newName())
				os.MkdirAll(filepath.Dir(to), 0o755)
				os.Rename(p, to)
				if rng.IntN(2) == 0 {
					if data, err := os.ReadFile(to); err == nil {
						os.WriteFile(to, append(data, "and a line more\n"...), 0o644)
					}
				}
			case 6:
				if d := oneOf(dirs, ""); d != "" {
					to := filepath.Join(places[rng.IntN(len(places))], fmt.Sprintf("moved%d", rng.IntN(5)))
					log[len(log)-1] += " (" + d + " to " + to + ")"
					os.MkdirAll(filepath.Dir(filepath.Join(dir, to)), 0o755)
					os.Rename(filepath.Join(dir, d), filepath.Join(dir, to))
				}
			case 7:
				if d := oneOf(dirs, ""); d != "" && d != "src" {
					log[len(log)-1] += " (" + d + ")"
					os.RemoveAll(filepath.Join(dir, d))
				}
			case 8:
				os.RemoveAll(p)
				os.MkdirAll(filepath.Dir(p), 0o755)
				os.Symlink(oneOf([]string{"a.txt", "../lib", "nowhere"}, ""), p)
			case 9: // a file becomes a folder
				os.RemoveAll(p)
				put(f+"/inner.txt", lines(rng.IntN(10), 5, -1))
			case 10:
				os.RemoveAll(filepath.Join(dir, ".gitignore"))
				put(".gitignore", oneOf([]string{"node_modules/\n*.log\n", "node_modules/\nf1*\n", "node_modules/\n*.md\nmoved*/\n"}, ""))
			case 11:
				f := oneOf([]string{".gitattributes", "lib/.gitattributes"}, "")
				os.RemoveAll(filepath.Join(dir, f))
				put(f, oneOf([]string{"", "*.bin binary\n", "*.txt -diff\n", "*.go -diff\n"}, ""))
			case 12:
				put(".git/info/exclude", oneOf([]string{"", "f2*\n", "*.go\n"}, ""))
			case 13: // a new folder full of files at once
				root := filepath.Join(places[rng.IntN(len(places))], fmt.Sprintf("gen%d", rng.IntN(3)))
				os.RemoveAll(filepath.Join(dir, root))
				for i := range 1 + rng.IntN(4) {
					put(filepath.Join(root, fmt.Sprintf("sub%d/g%d.go", i%2, i)), lines(rng.IntN(10), 6, i))
				}
			case 15: // a file as it was at the base (an agent undoing an edit)
				g := oneOf(baseFiles, "a.txt")
				log[len(log)-1] += " (" + g + ")"
				text, _ := runGit(dir, "show", base+":"+g)
				os.RemoveAll(filepath.Join(dir, g))
				put(g, text+"\n")
			case 16: // an edit in place, as most agents write: the same file rewritten, with fresh stat data
				if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
					data, _ := os.ReadFile(p)
					if rng.IntN(4) == 0 {
						os.WriteFile(p, data, 0) // the same text: only the stat data change
					} else {
						os.WriteFile(p, append(data, fmt.Sprintf("line %d edited in place\n", rng.IntN(100))...), 0)
					}
				} else {
					put(f, lines(rng.IntN(10), 4+rng.IntN(10), rng.IntN(12)-1))
				}
			case 14: // someone else writes the index
				runGit(dir, "add", "-f", "-A", "--", f) // even an ignored file
			case 17: // control characters in names, which git's line protocols mangle ("src\r" read as "src")
				// Folders beside the ones they would be read as, files new
				// in them or edited in place.
				folder := oneOf([]string{"src\r", "src/deep\r", "\r", "lib\r", "ctl\x01", "src", "lib"}, "")
				name := folder + "/" + oneOf([]string{"b.txt", "c.txt", "m0.go", fmt.Sprintf("n%d.txt", rng.IntN(4)), "cr\r.txt", "tab\tname.go", "lf\nname.txt"}, "")
				log[len(log)-1] += fmt.Sprintf(" (%q)", name)
				counts["control characters"]++
				_, ferr := os.Stat(filepath.Join(dir, folder))
				switch _, err := os.Lstat(filepath.Join(dir, name)); {
				case ferr != nil:
					// The folder alone first, empty (nothing to stage): a
					// file made in it later is then a path of its own, in a
					// folder the staged tree does not have.
					os.MkdirAll(filepath.Join(dir, folder), 0o755)
				case err != nil:
					put(name, lines(rng.IntN(10), 5, rng.IntN(6)))
				case rng.IntN(4) == 0:
					os.Remove(filepath.Join(dir, name))
				default: // edited in place: staged in place
					appendText(filepath.Join(dir, name), fmt.Sprintf("round %d\n", round))
				}
			case 18: // a name that differs from another only in case
				if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
					upper := filepath.Join(filepath.Dir(p), strings.ToUpper(filepath.Base(p)))
					log[len(log)-1] += " (to " + upper[len(dir)+1:] + ")"
					if rng.IntN(2) == 0 {
						os.Rename(p, upper)
					} else {
						data, _ := os.ReadFile(p)
						os.WriteFile(upper, append(data, "in upper case\n"...), 0o644)
					}
				}
			case 19: // the submodule: edited, committed in, or both
				if _, err := os.Stat(filepath.Join(dir, "sub", ".git")); err == nil {
					how := rng.IntN(4)
					if how < 2 {
						appendText(filepath.Join(dir, "sub", "s.txt"), fmt.Sprintf("round %d\n", round))
					}
					if how > 0 {
						// Committed alone, nothing in the tree changes: the
						// commit is written in .git/modules/sub.
						runGit(filepath.Join(dir, "sub"), "commit", "-qa", "--allow-empty", "-m", fmt.Sprintf("round %d", round))
						counts["submodule commit"]++
					}
				}
			case 20: // a tracked file written through a hard link from outside the tree
				appendText(outside, fmt.Sprintf("through the link, round %d\n", round))
				counts["hard link"]++
			case 21: // a merge, stopped on a conflict or not
				// Only in the last rounds: once a conflict is resolved,
				// the index keeps a resolve-undo extension, and every later
				// stage is git's.
				if round < rounds*6/10 {
					appendText(p, "edited in place\n")
					break
				}
				if out, err := runGit(dir, "merge", "-q", "--no-edit", fmt.Sprintf("side%d", rng.IntN(3))); err != nil && exists(filepath.Join(dir, ".git", "MERGE_HEAD")) {
					log[len(log)-1] += " (stopped: " + strings.TrimSpace(out) + ")"
					counts["merge stopped"]++
				}
			case 24: // a merge stopped on a conflict, for certain: someone else commits
				// merged/conflict.txt on the branch, a branch changes it too
				if exists(filepath.Join(dir, ".git", "MERGE_HEAD")) {
					break
				}
				runGit(dir, "reset", "-q") // nothing staged, which git merge would refuse
				name := "merged/conflict.txt"
				env := []string{"GIT_INDEX_FILE=" + filepath.Join(t.TempDir(), "side-index")}
				gitEnvT(t, dir, env, "", "read-tree", "HEAD")
				blob := gitEnvT(t, dir, nil, "side\n", "hash-object", "-w", "--stdin")
				gitEnvT(t, dir, env, "", "update-index", "--add", "--cacheinfo", "100644,"+blob+","+name)
				side := gitEnvT(t, dir, nil, "side", "commit-tree", "-p", "HEAD", gitEnvT(t, dir, env, "", "write-tree"))
				put(name, fmt.Sprintf("ours, round %d\n", round))
				out1, err1 := runGit(dir, "add", "-f", "--", name)
				out2, err2 := runGit(dir, "commit", "-q", "-m", "ours", "--", name)
				out, err := runGit(dir, "merge", "--no-edit", side)
				if !exists(filepath.Join(dir, ".git", "MERGE_HEAD")) {
					t.Fatalf("round %d: the merge did not stop: %s %v %s %v %s %v", round, out1, err1, out2, err2, out, err)
				}
				log[len(log)-1] += " (stopped: " + strings.TrimSpace(out) + ")"
				counts["merge stopped"]++
			case 22: // racy: the same size and modification time, other bytes
				if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && fi.Size() > 0 {
					data, _ := os.ReadFile(p)
					data[0] ^= 1
					os.WriteFile(p, data, 0)
					os.Chtimes(p, fi.ModTime(), fi.ModTime())
					counts["racy write"]++
				}
			case 23: // someone else's git add, running during the diff and the commit
				if background == nil {
					background = exec.Command("git", "-C", dir, "add", "-A")
					if background.Start() != nil {
						background = nil
					}
				}
			}
		}
		wait := func() {
			if background != nil {
				background.Wait()
				background = nil
			}
		}
		got, err := c.Diff(ctx)
		if err != nil && kind&ignoreCaseRun != 0 && strings.Contains(err.Error(), "will not add file alias") {
			// Two files whose names differ in case only, both changed:
			// git refuses to stage them under core.ignorecase, and a fresh
			// look fails as well. Taken away, as a user would.
			fresh := New(ctx, repo, base, excludes, limit, ChangesOptions{Commits: commits})
			_, ferr := fresh.Diff(ctx)
			fresh.Close()
			is.True(ferr != nil && strings.Contains(ferr.Error(), "will not add file alias"))
			counts["git refused an alias"]++
			files, _ := scan()
			for _, f := range files {
				if f != strings.ToLower(f) {
					os.Remove(filepath.Join(dir, f))
				}
			}
			got, err = c.Diff(ctx)
		}
		is.NoErr(err)
		if background != nil {
			// The other git may still run: a commit now may have to wait
			// for the next (ErrIndexBusy), which must then take its
			// changes (checked at the next commit, whose tree must be
			// `git add -A`'s). The diff may or may not show what the
			// other git did; the next one must.
			if commits && rng.IntN(2) == 0 {
				before, _ := runGit(dir, "rev-parse", "HEAD")
				hash, committed, err := c.Commit(ctx, fmt.Sprintf("round %d\n", round), nil)
				wait()
				head, _ := runGit(dir, "rev-parse", "HEAD")
				switch {
				case errors.Is(err, ErrIndexBusy):
					counts["commit deferred"]++
					is.Equal(head, before)
				case committed:
					counts["commit during another git"]++
					is.NoErr(err)
					is.Equal(hash, head)
				default:
					is.NoErr(err)
				}
			}
			wait()
			got, err = c.Diff(ctx)
			is.NoErr(err)
		}
		// The oracle: a fresh look at the whole tree, the same way. (With
		// commits, new files are staged rather than marked; the two differ
		// only where a .gitattributes file is deleted from the tree, which
		// git then still reads from the index unless the deletion is
		// staged.)
		fresh := New(ctx, repo, base, excludes, limit, ChangesOptions{Commits: commits})
		want, err := fresh.Diff(ctx)
		is.NoErr(err)
		is.NoErr(fresh.Close())
		if got != want {
			t.Fatalf("%s\nround %d: Changes gave (<) what a fresh look at the tree does not (>):\n%s\n%s\n(tree %s %s, total %d %d)", strings.Join(log, "\n"), round,
				lineDiff(got.Text, want.Text), lineDiff(got.Stat, want.Stat), got.Tree, want.Tree, got.Total, want.Total)
		}
		if commits && rng.IntN(2) == 0 {
			// The untracked files, from what changed: those git lists.
			got, err := c.Untracked(ctx)
			is.NoErr(err)
			want, err := repo.Untracked(ctx, excludes)
			is.NoErr(err)
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("%s\nround %d: Untracked gave %q, git lists %q", strings.Join(log, "\n"), round, got, want)
			}
		}
		for _, mark := range []string{"rename from", "new file mode 120000", "old mode", "Binary files", "deleted file mode"} {
			if strings.Contains(got.Text, mark) {
				seen[mark] = true
			}
		}
		if commits && (rng.IntN(3) == 0 || corners && exists(filepath.Join(dir, ".git", "MERGE_HEAD"))) {
			if exists(filepath.Join(dir, ".git", "MERGE_HEAD")) {
				counts["merge committed"]++
			}
			checkCommit(t, c, dir, round, rng)
		}
	}
	if corners {
		t.Logf("corner cases: %v", counts)
		for _, k := range []string{"submodule commit", "hard link", "racy write", "merge stopped", "merge committed"} {
			is.True(counts[k] > 0) // each corner case was met
		}
	}
	t.Logf("%d path-limited updates (%d fell back, %d staged in place), %d whole-tree; seen %v", c.counts.paths, c.counts.fallback, c.counts.inPlace, c.counts.all, slices.Sorted(func(yield func(string) bool) {
		for k := range seen {
			if !yield(k) {
				return
			}
		}
	}))
	if kind&ignoreCaseRun == 0 {
		is.True(c.counts.paths >= 30) // most updates were path-limited
	}
	if commits && kind&ignoreCaseRun == 0 { // (under ignorecase, every look is a whole one)
		is.True(!c.noSplit)                                                 // every path-limited tree git wrote went through the split view
		is.True(!c.noInPlace)                                               // and git never disagreed with a stage in place
		is.True(c.counts.split+c.counts.inPlace >= 20)                      // (the whole-tree ones and a fresh look's through the index)
		is.True(c.counts.inPlace >= 12 || corners && c.counts.inPlace >= 5) // many staged in the size of the change (fewer among merges, whose index git stages)
		shared, _ := filepath.Glob(filepath.Join(dir, ".git", "sharedindex.*"))
		is.Equal(len(shared), 0) // nothing of it in the git folder
	}
	// Every kind of change ran: deletions, mode changes, renames of files
	// and folders, new folders full of files, ignore-rule changes.
	for _, op := range []int{3, 4, 5, 6, 10, 12, 13} {
		if ops[op] == 0 && !inPlace { // (mostly edits in place: each of them is rare)
			t.Errorf("operation %d never ran", op)
		}
	}
	if limit > 1000 && !inPlace {
		is.Equal(len(seen), 5) // renames, links, modes, binary files and deletions were all seen
	}
}

// checkCommit commits and checks that the commit is the one `git add -A
// && git commit` makes: its tree the tree `git add -A` gives, its parents
// (a merge waiting for its commit gets all of them), and the index it
// leaves that of git commit: the same entries with the same flags, a tree
// cache that git's own verification accepts and that names the trees of
// its entries, and the same git status. Every other commit leaves some
// untracked files out (as the loop leaves out the files the checks
// created): the tree is then `git add -A` less them, and they stay
// untracked.
func checkCommit(t *testing.T, c *Changes, dir string, round int, rng *rand.Rand) {
	t.Helper()
	is := is.New(t)
	git := func(args ...string) string { // stdout only: a file may make git warn
		out, err := runGit(dir, args...)
		is.NoErr(err)
		return out
	}
	paths := func(args ...string) []string { // -z output, untrimmed (a name may start with a CR)
		var out strings.Builder
		is.NoErr(run(context.Background(), dir, gitwt.Command{Stdout: &out}, args...))
		return strings.Split(out.String(), "\x00")
	}
	var leave []string
	if rng.IntN(2) == 0 {
		for _, p := range paths("ls-files", "-z", "--others", "--exclude-standard", "--", ".", ":(exclude).architect") {
			if p != "" && rng.IntN(2) == 0 {
				leave = append(leave, p)
			}
		}
	}
	before := git("rev-parse", "HEAD")
	mergeHead, _ := os.ReadFile(filepath.Join(dir, ".git", "MERGE_HEAD"))
	// The oracle: `git add -A` staged in a copy of the index as it is
	// before the commit, dated long ago: every entry then looks racily
	// clean to git, which reads every file again rather than trust the
	// stat data and objects the index says it has. (Not a copy of the
	// index after: under core.ignorecase, git add -A is not idempotent.)
	wtIndex := filepath.Join(dir, ".git", "index") // the working tree's
	tmp := filepath.Join(t.TempDir(), "index")
	is.NoErr(gitwt.CopyIndex(wtIndex, tmp))
	hash, committed, err := c.Commit(context.Background(), fmt.Sprintf("round %d\n\n", round), leave)
	is.NoErr(err)
	head := git("rev-parse", "HEAD")
	if committed {
		is.Equal(hash, head)
		is.Equal(git("rev-parse", "HEAD^"), before)
		is.Equal(git("log", "-1", "--format=%B"), fmt.Sprintf("round %d", round))
		parents := before
		if len(mergeHead) > 0 {
			parents += " " + strings.TrimSpace(string(mergeHead))
		}
		is.Equal(git("log", "-1", "--format=%P"), parents) // a merge's parents too
	} else {
		is.Equal(head, before)
		is.True(len(mergeHead) == 0) // git commit makes a merge even with no change
	}
	is.True(!exists(filepath.Join(dir, ".git", "MERGE_HEAD")))
	is.NoErr(os.Chtimes(tmp, time.Unix(1, 0), time.Unix(1, 0)))
	env := gitwt.Command{Env: []string{"GIT_INDEX_FILE=" + tmp}}
	is.NoErr(open(t, dir).Add(context.Background(), env, nil, append([]string{".architect"}, leave...), "-A"))
	var tree strings.Builder
	is.NoErr(run(context.Background(), dir, gitwt.Command{Env: env.Env, Stdout: &tree}, "write-tree"))
	if got := git("rev-parse", "HEAD^{tree}"); got != strings.TrimSpace(tree.String()) {
		t.Fatalf("round %d: committed tree %s, git add -A gives %s:\n%s", round, got,
			tree.String(), git("diff-tree", "-r", "--name-status", "HEAD", strings.TrimSpace(tree.String())))
	}
	// The index's entries and their flags, and git status, as in git's.
	entries := func(index string) string {
		var out strings.Builder
		is.NoErr(run(context.Background(), dir, gitwt.Command{Env: []string{"GIT_INDEX_FILE=" + index}, Stdout: &out}, "ls-files", "-s", "-v", "--debug"))
		var keep []string
		for _, l := range strings.Split(out.String(), "\n") {
			if _, flags, ok := strings.Cut(l, "flags: "); ok {
				keep = append(keep, "flags "+flags)
			} else if !strings.HasPrefix(l, "  ") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	status := func(index string) string {
		var out strings.Builder
		is.NoErr(run(context.Background(), dir, gitwt.Command{Env: []string{"GIT_INDEX_FILE=" + index}, Stdout: &out}, "status", "--porcelain=v2", "-z", "--untracked-files=all", "--ignore-submodules=none"))
		return out.String()
	}
	if got, want := entries(wtIndex), entries(tmp); got != want {
		t.Fatalf("round %d: the index's entries (<) are not git's (>):\n%s", round, lineDiff(got, want))
	}
	if got, want := status(wtIndex), status(tmp); got != want {
		t.Fatalf("round %d: git status gives %q, after git add -A %q", round, got, want)
	}
	is.Equal(git("status", "--porcelain", "--untracked-files=no", "--ignore-submodules=dirty", "--", ".", ":(exclude).architect"), "") // index and tree are HEAD's (a submodule may have changes of its own)
	// The index's tree cache names the trees its entries make: git's own
	// verification (cache-tree.c, which GIT_TEST_CHECK_CACHE_TREE runs as
	// the index is written) accepts it, and the tree git writes from the
	// index (trusting the cache), and the one written from its entries
	// alone, are HEAD's.
	headTree, index := git("rev-parse", "HEAD^{tree}"), filepath.Join(t.TempDir(), "index")
	is.NoErr(gitwt.CopyIndex(wtIndex, index))
	gitEnvT(t, dir, []string{"GIT_INDEX_FILE=" + index, "GIT_TEST_CHECK_CACHE_TREE=1"}, "", "update-index", "--force-write-index")
	is.NoErr(gitwt.CopyIndex(wtIndex, index+"2"))
	is.Equal(gitEnvT(t, dir, []string{"GIT_INDEX_FILE=" + index + "2"}, "", "write-tree"), headTree)
	is.Equal(treeWithoutCache(t, dir, index), headTree)
	if len(leave) > 0 {
		untracked := newPathSet(paths("ls-files", "-z", "--others", "--exclude-standard"))
		for _, p := range leave {
			if !untracked[p] { // left out, and still there
				t.Fatalf("round %d: %q left out of the commit is not untracked: %q", round, p, git("status", "--porcelain", "-z", "--ignored", "--", ":(top,literal)"+p))
			}
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// appendText appends text to the file at path, if it can.
func appendText(path, text string) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return
	}
	f.WriteString(text)
	f.Close()
}

// TestChangesCommitWithHook: where a commit hook exists, the commit goes
// through git commit, which runs it.
func TestChangesCommitWithHook(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	dir, repo, _ := watched(t)
	c := New(ctx, repo, gitT(t, dir, "rev-parse", "HEAD"), []string{".architect"}, 1<<20, ChangesOptions{Watch: true, Commits: true})
	defer c.Close()
	write(t, dir, "a.txt", "first\n")
	_, committed, err := c.Commit(ctx, "plain", nil)
	is.NoErr(err)
	is.True(committed)

	write(t, dir, ".git/hooks/pre-commit", "#!/bin/sh\necho ran >> \"$(git rev-parse --git-dir)/hook-ran\"\n")
	is.NoErr(os.Chmod(filepath.Join(dir, ".git/hooks/pre-commit"), 0o755))
	write(t, dir, "a.txt", "second\n")
	_, committed, err = c.Commit(ctx, "hooked", nil)
	is.NoErr(err)
	is.True(committed)
	is.True(exists(filepath.Join(dir, ".git", "hook-ran")))
	is.Equal(gitT(t, dir, "show", "HEAD:a.txt"), "second")

	write(t, dir, ".git/hooks/pre-commit", "#!/bin/sh\necho 'lint failed' >&2\nexit 1\n")
	write(t, dir, "a.txt", "third\n")
	_, committed, err = c.Commit(ctx, "refused", nil)
	var ge *gitwt.GitError
	is.True(errors.As(err, &ge))
	is.True(!committed)
	is.Equal(ge.Stderr, "lint failed\n")
	is.Equal(gitT(t, dir, "status", "--porcelain", "--untracked-files=no"), "M  a.txt") // staged, not lost
}

// TestChangesCommitWhenNothingChanged: no git at all (watched), and no
// commit.
func TestChangesCommitWhenNothingChanged(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	dir, repo, _ := watched(t)
	c := New(ctx, repo, gitT(t, dir, "rev-parse", "HEAD"), []string{".architect"}, 1<<20, ChangesOptions{Watch: true, Commits: true})
	defer c.Close()
	hash, committed, err := c.Commit(ctx, "nothing yet", nil)
	is.NoErr(err)
	is.True(!committed)
	is.Equal(hash, gitT(t, dir, "rev-parse", "HEAD"))
	write(t, dir, "a.txt", "changed\n")
	_, committed, err = c.Commit(ctx, "one", nil)
	is.NoErr(err)
	is.True(committed)
	away := filepath.Join(t.TempDir(), "git")
	is.NoErr(os.Rename(filepath.Join(dir, ".git"), away))
	defer os.Rename(away, filepath.Join(dir, ".git"))
	hash, committed, err = c.Commit(ctx, "two", nil)
	is.NoErr(err) // git could not have run
	is.True(!committed)
	is.Equal(hash, "")
}

// lineDiff shows the lines of a and b that differ, for a failure message.
func lineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out strings.Builder
	i, j := 0, 0
	for i < len(al) || j < len(bl) {
		switch {
		case i < len(al) && j < len(bl) && al[i] == bl[j]:
			i, j = i+1, j+1
		case i < len(al) && !slices.Contains(bl[j:], al[i]):
			fmt.Fprintf(&out, "< %s\n", al[i])
			i++
		case j < len(bl) && !slices.Contains(al[i:], bl[j]):
			fmt.Fprintf(&out, "> %s\n", bl[j])
			j++
		default:
			fmt.Fprintf(&out, "< %s\n> %s\n", al[min(i, len(al)-1)], bl[min(j, len(bl)-1)])
			i, j = i+1, j+1
		}
	}
	return out.String()
}

// TestChangesAfterSomeoneRunsGit: an agent's `git status` rewrites the
// index with fresher stat data; that costs no look at the whole tree. A
// `git add` that tracks something new does.
func TestChangesAfterSomeoneRunsGit(t *testing.T) {
	for _, commits := range []bool{false, true} {
		t.Run(fmt.Sprint("commits ", commits), func(t *testing.T) {
			is := is.New(t)
			ctx := context.Background()
			dir, repo, _ := watched(t)
			base := gitT(t, dir, "rev-parse", "HEAD")
			c := New(ctx, repo, base, []string{".architect"}, 1<<20, ChangesOptions{Watch: true, Commits: commits})
			defer c.Close()
			_, err := c.Diff(ctx)
			is.NoErr(err)
			is.Equal(c.counts.all, 1)

			index := filepath.Join(dir, ".git", "index")
			before, err := os.Stat(index)
			is.NoErr(err)
			write(t, dir, "a.txt", "edited\n")
			// A tracked file with other times and the same text: status
			// refreshes its stat data and so writes the index, whatever
			// the timing (without one, it writes only when an entry
			// happens to be racily clean).
			past := time.Now().Add(-time.Hour)
			is.NoErr(os.Chtimes(filepath.Join(dir, "src", "b.txt"), past, past))
			gitT(t, dir, "status", "--porcelain")
			after, err := os.Stat(index)
			is.NoErr(err)
			is.True(!os.SameFile(before, after)) // status wrote the index
			d, err := c.Diff(ctx)
			is.NoErr(err)
			is.True(strings.Contains(d.Text, "+edited"))
			is.Equal(c.counts.all, 1) // still path by path

			write(t, dir, "debug.log", "ignored, then forced in\n")
			gitT(t, dir, "add", "-f", "debug.log")
			d, err = c.Diff(ctx)
			is.NoErr(err)
			is.True(strings.Contains(d.Text, "b/debug.log"))
			is.Equal(c.counts.all, 2) // the index tracks something new: everything looked at
		})
	}
}

// TestChangesForcedIntoIgnoredFolder: a file added by force in an ignored
// folder makes that folder one to watch, even when the same look had
// another reason to look at everything (an attributes file changed): its
// deletion, with the folder, then shows in the diff.
func TestChangesForcedIntoIgnoredFolder(t *testing.T) {
	for _, commits := range []bool{false, true} {
		t.Run(fmt.Sprint("commits ", commits), func(t *testing.T) {
			is := is.New(t)
			ctx := context.Background()
			dir, repo, _ := watched(t)
			base := gitT(t, dir, "rev-parse", "HEAD")
			c := New(ctx, repo, base, []string{".architect"}, 1<<20, ChangesOptions{Watch: true, Commits: commits})
			defer c.Close()
			_, err := c.Diff(ctx)
			is.NoErr(err)

			gitT(t, dir, "add", "-f", "node_modules/pkg/index.js")
			write(t, dir, ".gitattributes", "*.bin binary\n")
			d, err := c.Diff(ctx)
			is.NoErr(err)
			is.True(strings.Contains(d.Text, "b/node_modules/pkg/index.js"))

			is.NoErr(os.RemoveAll(filepath.Join(dir, "node_modules")))
			d, err = c.Diff(ctx)
			is.NoErr(err)
			fresh := New(ctx, repo, base, []string{".architect"}, 1<<20, ChangesOptions{Commits: commits})
			want, err := fresh.Diff(ctx)
			is.NoErr(err)
			is.NoErr(fresh.Close())
			is.Equal(d.Text, want.Text)
			is.True(!strings.Contains(d.Text, "node_modules"))
		})
	}
}

// TestPrivateIndexLeftovers: the private index of a run that was killed
// is removed by the next; one in use is not.
func TestPrivateIndexLeftovers(t *testing.T) {
	is := is.New(t)
	dir, repo, _ := watched(t)
	dead := filepath.Join(dir, ".git", "architect-index-dead")
	write(t, dead, "index", "x")
	write(t, dead, "lock", "")
	live := filepath.Join(dir, ".git", "architect-index-live")
	write(t, live, "lock", "")
	held := flock.New(filepath.Join(live, "lock"))
	is.NoErr(held.Lock())
	defer held.Unlock()

	c := New(context.Background(), repo, "", nil, 100, ChangesOptions{})
	_, err := c.Diff(context.Background())
	is.NoErr(err)
	is.True(!exists(dead))
	is.True(exists(live))
	mine, _ := filepath.Glob(filepath.Join(dir, ".git", "architect-index-*"))
	is.Equal(len(mine), 2) // live and this one's
	is.NoErr(c.Close())
	mine, _ = filepath.Glob(filepath.Join(dir, ".git", "architect-index-*"))
	is.Equal(mine, []string{live})
}

// TestChangesCleanWorktree: in a worktree just checked out, the first diff
// costs no look at the tree, and what follows is path by path as ever.
func TestChangesCleanWorktree(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	dir, repo, _ := watched(t)
	base := gitT(t, dir, "rev-parse", "HEAD")
	wt := filepath.Join(t.TempDir(), "wt")
	is.NoErr(repo.AddWorktree(ctx, wt, "architect/clean", base))
	r := open(t, wt)
	c := New(ctx, r, base, []string{".architect"}, 1<<20, ChangesOptions{Watch: true, Commits: true, Clean: true})
	defer c.Close()
	d, err := c.Diff(ctx)
	is.NoErr(err)
	is.Equal(d, Diff{Tree: noChange})
	is.Equal(c.counts.all+c.counts.paths, 0) // no look at all

	write(t, wt, "src/b.txt", "changed\n")
	write(t, wt, "new/n.txt", "new\n")
	d, err = c.Diff(ctx)
	is.NoErr(err)
	want, err := Compare(ctx, r, base, []string{".architect"}, 1<<20)
	is.NoErr(err)
	is.Equal(d, want)
	is.Equal(c.counts.all, 0)
	hash, committed, err := c.Commit(ctx, "clean start", nil)
	is.NoErr(err)
	is.True(committed)
	is.Equal(gitT(t, wt, "show", "--name-status", "--format=", hash), "A\tnew/n.txt\nM\tsrc/b.txt")
	is.Equal(gitT(t, wt, "status", "--porcelain", "--untracked-files=no"), "")
}

// TestChangesFirstCommit: a repository with no commit and no identity
// configured gets its first commit, with the fallback identity, and the
// reflog git commit would write.
func TestChangesFirstCommit(t *testing.T) {
	is := is.New(t)
	isolate(t, false)
	dir := t.TempDir()
	gitT(t, dir, "init", "--quiet")
	write(t, dir, "a.txt", "a\n")
	ctx := context.Background()
	c := New(ctx, open(t, dir), "", nil, 1<<20, ChangesOptions{Watch: true, Commits: true})
	defer c.Close()
	hash, committed, err := c.Commit(ctx, "first\n\n\nbody  \n\n", nil)
	is.NoErr(err)
	is.True(committed)
	is.Equal(gitT(t, dir, "rev-parse", "HEAD"), hash)
	is.Equal(gitT(t, dir, "log", "-1", "--format=%an <%ae>|%cn <%ce>|%B"), "architect <architect@localhost>|architect <architect@localhost>|first\n\nbody")
	is.Equal(gitT(t, dir, "reflog", "-1", "--format=%gs"), "commit (initial): first")
	is.Equal(gitT(t, dir, "status", "--porcelain"), "")
}

// TestChangesSignedCommit: where commits are signed, the commit goes
// through git commit, which signs it.
func TestChangesSignedCommit(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	dir, repo, _ := watched(t)
	gpg := filepath.Join(t.TempDir(), "gpg")
	is.NoErr(os.WriteFile(gpg, []byte("#!/bin/sh\ncat >/dev/null\necho '[GNUPG:] SIG_CREATED ' >&2\nprintf -- '-----BEGIN PGP SIGNATURE-----\\n\\nfake\\n-----END PGP SIGNATURE-----\\n'\n"), 0o755))
	gitT(t, dir, "config", "commit.gpgSign", "true")
	gitT(t, dir, "config", "gpg.program", gpg)
	c := New(ctx, repo, gitT(t, dir, "rev-parse", "HEAD"), []string{".architect"}, 1<<20, ChangesOptions{Watch: true, Commits: true})
	defer c.Close()
	write(t, dir, "a.txt", "signed\n")
	_, committed, err := c.Commit(ctx, "signed", nil)
	is.NoErr(err)
	is.True(committed)
	is.True(strings.Contains(gitT(t, dir, "cat-file", "commit", "HEAD"), "gpgsig -----BEGIN PGP SIGNATURE-----"))
}

// TestChangesTextAfterShrink: the first bytes of files far into the diff
// are not kept; when the diff before them shrinks, they are read again.
func TestChangesTextAfterShrink(t *testing.T) {
	for _, commits := range []bool{false, true} {
		t.Run(fmt.Sprint("commits ", commits), func(t *testing.T) {
			is := is.New(t)
			ctx := context.Background()
			dir, repo, _ := watched(t)
			base := gitT(t, dir, "rev-parse", "HEAD")
			write(t, dir, "a.txt", lines(1, 40, -1)) // first in the diff, 3 KB
			for _, f := range []string{"b1.txt", "b2.txt", "b3.txt"} {
				write(t, dir, f, lines(2, 10, -1)+f+"\n")
			}
			const limit = 500 // 2 KB kept: b2 and b3 keep nothing
			c := New(ctx, repo, base, []string{".architect"}, limit, ChangesOptions{Watch: true, Commits: commits})
			defer c.Close()
			_, err := c.Diff(ctx)
			is.NoErr(err)
			write(t, dir, "a.txt", "one\n") // as at the base: out of the diff
			got, err := c.Diff(ctx)
			is.NoErr(err)
			want, err := Compare(ctx, repo, base, []string{".architect"}, limit)
			is.NoErr(err)
			is.Equal(got, want)
			is.True(strings.HasPrefix(got.Text, "diff --git a/b1.txt b/b1.txt"))
			is.Equal(c.counts.refetch, 1)
			is.Equal(c.counts.all, 1) // only the first look was whole
		})
	}
}

// TestChangesWithUsersSplitIndex: where the user splits their index
// (core.splitIndex), the private index is split too; the tree is then
// written from it directly, and commits leave the user's index split, as
// their git would.
func TestChangesWithUsersSplitIndex(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	dir, repo, w := watched(t)
	w.Close()
	gitT(t, dir, "config", "core.splitIndex", "true")
	gitT(t, dir, "update-index", "--split-index")
	base, _ := repo.Head(ctx)
	c := New(ctx, repo, base, []string{".architect"}, 1<<20, ChangesOptions{Watch: true, Commits: true})
	defer c.Close()
	for i := range 3 {
		write(t, dir, "a.txt", fmt.Sprintf("round %d\n", i))
		d, err := c.Diff(ctx)
		is.NoErr(err)
		is.True(d.Text != "")
		_, ok, err := c.Commit(ctx, fmt.Sprintf("round %d", i), nil)
		is.NoErr(err)
		is.True(ok)
		is.Equal(gitT(t, dir, "rev-parse", "HEAD:a.txt"), gitT(t, dir, "hash-object", "a.txt"))
	}
	is.True(c.counts.paths >= 2) // path by path
	is.True(c.noSplit)           // and not through a view
	is.Equal(gitT(t, dir, "status", "--porcelain", "--", "a.txt"), "")
	_, ok, err := indexEntries(filepath.Join(dir, ".git", "index"), 20)
	is.NoErr(err)
	is.True(!ok) // still split
}
