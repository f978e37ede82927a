package gitwt

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// entry is one file of a test tree: its content, executable or not, or a
// symbolic link's target.
type entry struct {
	text string
	exec bool
	link string
}

type tree map[string]entry

// writeTree makes dir hold exactly files (besides .git).
func writeTree(t *testing.T, dir string, files tree) {
	t.Helper()
	names, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if n.Name() != ".git" {
			if err := os.RemoveAll(filepath.Join(dir, n.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	for name, e := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if e.link != "" {
			if err := os.Symlink(e.link, path); err != nil {
				t.Fatal(err)
			}
			continue
		}
		mode := os.FileMode(0o644)
		if e.exec {
			mode = 0o755
		}
		if err := os.WriteFile(path, []byte(e.text), mode); err != nil {
			t.Fatal(err)
		}
	}
}

// workTree returns the tree of dir's working tree as it is (every file
// git does not ignore), built in a temporary index.
func workTree(t *testing.T, dir string) string {
	t.Helper()
	index := filepath.Join(t.TempDir(), "index")
	var out []byte
	for _, args := range [][]string{{"add", "-A"}, {"write-tree"}} {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_INDEX_FILE="+index)
		var err error
		if out, err = cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return strings.TrimSpace(string(out))
}

// applyRepo commits from, then to, and leaves the working tree at from
// (the index and HEAD too); it returns the two commits.
func applyRepo(t *testing.T, from, to tree) (dir, c1, c2 string) {
	t.Helper()
	dir = newRepo(t)
	writeTree(t, dir, from)
	gitT(t, dir, "add", "-A")
	gitT(t, dir, "commit", "-q", "--allow-empty", "-m", "from")
	c1 = gitT(t, dir, "rev-parse", "HEAD")
	writeTree(t, dir, to)
	gitT(t, dir, "add", "-A")
	gitT(t, dir, "commit", "-q", "--allow-empty", "-m", "to")
	c2 = gitT(t, dir, "rev-parse", "HEAD")
	gitT(t, dir, "reset", "-q", "--hard", c1)
	return dir, c1, c2
}

// The names git's own commits got right and architect's once did not.
var hostile = []string{
	"with space.txt", "new\nline", "cr\r", "\xff\xfe latin1 \xe9", "-leading-dash", "--", "tab\there",
	`back\slash "quoted"`, "trailing space ", "dir with space/ünïcödé",
}

func TestApplyTrees(t *testing.T) {
	binary := "\x00\x01\x02PNG\r\n\x1a\n" + strings.Repeat("\x00\xff", 3000)
	many := func(text string) tree {
		m := tree{}
		for _, n := range hostile {
			m[n] = entry{text: text}
		}
		return m
	}
	tests := []struct {
		name     string
		from, to tree
	}{
		{"add a file and its folders", tree{"a": {text: "a\n"}}, tree{"a": {text: "a\n"}, "x/y/z.txt": {text: "new\n"}}},
		{"modify", tree{"a": {text: "1\n2\n3\n"}}, tree{"a": {text: "1\ntwo\n3\n"}}},
		{"delete, empty folders go", tree{"a": {text: "a\n"}, "d/e/f": {text: "f\n"}}, tree{"a": {text: "a\n"}}},
		{"no newline at the end, CRLF lines", tree{"a": {text: "x\r\ny"}}, tree{"a": {text: "x\r\nz"}}},
		{"mode change only", tree{"run.sh": {text: "#!/bin/sh\n"}}, tree{"run.sh": {text: "#!/bin/sh\n", exec: true}}},
		{"executable added, then its mode dropped", tree{"b": {text: "b\n", exec: true}}, tree{"b": {text: "b2\n"}, "c": {text: "c\n", exec: true}}},
		{"symbolic links: added, retargeted, removed", tree{"l1": {link: "a"}, "l2": {link: "b"}, "a": {text: "a\n"}}, tree{"l1": {link: "c"}, "l3": {link: "../outside"}, "a": {text: "a\n"}}},
		{"file to symbolic link and back", tree{"f": {text: "f\n"}, "l": {link: "f"}}, tree{"f": {link: "l"}, "l": {text: "now a file\n"}}},
		{"binary added and changed", tree{"img": {text: binary}}, tree{"img": {text: binary + "\x00more"}, "img2": {text: binary}}},
		{"file becomes a folder", tree{"a": {text: "file\n"}}, tree{"a/b": {text: "in a folder\n"}}},
		{"folder becomes a file", tree{"a/b": {text: "b\n"}, "a/c/d": {text: "d\n"}}, tree{"a": {text: "file\n"}}},
		{"hostile names added", tree{"keep": {text: "k\n"}}, many("new\n")},
		{"hostile names modified", many("old\n"), many("new\n")},
		{"hostile names deleted", many("old\n"), tree{"keep": {text: "k\n"}}},
		{"empty file added and removed", tree{"e1": {}}, tree{"e2": {}}},
		{"nothing changes", tree{"a": {text: "a\n"}}, tree{"a": {text: "a\n"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			dir, c1, c2 := applyRepo(t, tt.from, tt.to)
			write(t, dir, "untracked.txt", "the user's\n")
			indexBefore, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
			is.NoErr(err)
			refsBefore := gitT(t, dir, "show-ref", "--head")

			is.NoErr(ApplyTrees(context.Background(), dir, c1, c2))

			is.NoErr(os.Remove(filepath.Join(dir, "untracked.txt"))) // left alone
			is.Equal(workTree(t, dir), gitT(t, dir, "rev-parse", c2+"^{tree}"))
			indexAfter, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
			is.NoErr(err)
			is.Equal(indexAfter, indexBefore)                        // the index untouched
			is.Equal(gitT(t, dir, "show-ref", "--head"), refsBefore) // HEAD and refs untouched
			stray, _ := filepath.Glob(filepath.Join(dir, ".git", "architect-apply-*"))
			is.Equal(len(stray), 0) // no staging folder left
			if tt.name == "delete, empty folders go" {
				is.True(!exists(filepath.Join(dir, "d")))
			}
		})
	}
}

// Trees given as tree hashes rather than commits work the same.
func TestApplyTreesTreeHashes(t *testing.T) {
	is := is.New(t)
	dir, c1, c2 := applyRepo(t, tree{"a": {text: "1\n"}}, tree{"a": {text: "2\n"}})
	is.NoErr(ApplyTrees(context.Background(), dir, c1+"^{tree}", c2+"^{tree}"))
	is.Equal(read(t, filepath.Join(dir, "a")), "2\n")
}

func TestApplyTreesRefuses(t *testing.T) {
	from := tree{
		"a.txt":    {text: strings.Repeat("line\n", 20)},
		"del.txt":  {text: "to be deleted\n"},
		"same.txt": {text: "unchanged\n"},
		"link":     {link: "a.txt"},
		"sub/x":    {text: "x\n"},
	}
	to := tree{
		"a.txt":     {text: "changed first line\n" + strings.Repeat("line\n", 19)},
		"same.txt":  {text: "unchanged\n"},
		"link":      {link: "same.txt"},
		"sub/x":     {text: "x\n"},
		"added.txt": {text: "added\n"},
		"sub/new":   {text: "new\n"},
	}
	tests := []struct {
		name  string
		mess  func(t *testing.T, dir string)
		names string // the file the error names
	}{
		{"a modified file edited elsewhere (git apply would merge it)", func(t *testing.T, dir string) {
			write(t, dir, "a.txt", strings.Repeat("line\n", 19)+"the user's last line\n")
		}, `"a.txt"`},
		{"a modified file's mode changed", func(t *testing.T, dir string) {
			is.New(t).NoErr(os.Chmod(filepath.Join(dir, "a.txt"), 0o755))
		}, `"a.txt"`},
		{"a file to be deleted was edited", func(t *testing.T, dir string) {
			write(t, dir, "del.txt", "edited\n")
		}, `"del.txt"`},
		{"a modified file was deleted", func(t *testing.T, dir string) {
			is.New(t).NoErr(os.Remove(filepath.Join(dir, "a.txt")))
		}, `"a.txt"`},
		{"a symbolic link retargeted", func(t *testing.T, dir string) {
			is.New(t).NoErr(os.Remove(filepath.Join(dir, "link")))
			is.New(t).NoErr(os.Symlink("elsewhere", filepath.Join(dir, "link")))
		}, `"link"`},
		{"an untracked file where one is to be added", func(t *testing.T, dir string) {
			write(t, dir, "added.txt", "the user's own\n")
		}, `"added.txt"`},
		{"a folder where a file is to be added", func(t *testing.T, dir string) {
			write(t, dir, "added.txt/inside", "the user's own\n")
		}, `"added.txt"`},
		{"a symbolic link where a folder goes", func(t *testing.T, dir string) {
			is.New(t).NoErr(os.RemoveAll(filepath.Join(dir, "sub")))
			is.New(t).NoErr(os.Symlink(t.TempDir(), filepath.Join(dir, "sub")))
		}, `"sub"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			dir, c1, c2 := applyRepo(t, from, to)
			tt.mess(t, dir)
			before := workTree(t, dir)
			err := ApplyTrees(context.Background(), dir, c1, c2)
			is.True(errors.Is(err, ErrTreeMoved))
			is.True(strings.Contains(err.Error(), tt.names)) // the error names the file
			is.Equal(workTree(t, dir), before)               // nothing changed
		})
	}
}

// A symbolic link standing where a folder goes, with nothing of that
// folder tracked: the new file would land outside the working tree.
func TestApplyTreesNeverWritesThroughALink(t *testing.T) {
	is := is.New(t)
	dir, c1, c2 := applyRepo(t, tree{"a": {text: "a\n"}}, tree{"a": {text: "a\n"}, "out/f": {text: "f\n"}})
	outside := t.TempDir()
	is.NoErr(os.Symlink(outside, filepath.Join(dir, "out")))
	err := ApplyTrees(context.Background(), dir, c1, c2)
	is.True(errors.Is(err, ErrTreeMoved))
	is.True(strings.Contains(err.Error(), `"out"`))
	is.True(!exists(filepath.Join(outside, "f")))
}

// What an interrupted call leaves (some files at to's version, others at
// from's) a second call completes; each file is whole at either version.
func TestApplyTreesCompletesAHalfDoneChange(t *testing.T) {
	is := is.New(t)
	from := tree{"a": {text: "a1\n"}, "b": {text: "b1\n"}, "gone": {text: "g\n"}}
	to := tree{"a": {text: "a2\n"}, "b": {text: "b2\n"}, "new": {text: "n\n", exec: true}}
	dir, c1, c2 := applyRepo(t, from, to)
	// As a SIGKILL after the deletions and two of the three renames.
	is.NoErr(os.Remove(filepath.Join(dir, "gone")))
	write(t, dir, "a", "a2\n")
	is.NoErr(os.WriteFile(filepath.Join(dir, "new"), []byte("n\n"), 0o755))
	is.NoErr(ApplyTrees(context.Background(), dir, c1, c2))
	is.Equal(workTree(t, dir), gitT(t, dir, "rev-parse", c2+"^{tree}"))
	// Done twice: nothing left to do.
	is.NoErr(ApplyTrees(context.Background(), dir, c1, c2))
	is.Equal(workTree(t, dir), gitT(t, dir, "rev-parse", c2+"^{tree}"))
}

// The run's workspace may be a linked worktree (a candidate's change
// carried to a --worktree run's worktree).
func TestApplyTreesInALinkedWorktree(t *testing.T) {
	is := is.New(t)
	dir, c1, c2 := applyRepo(t, tree{"a": {text: "1\n"}}, tree{"a": {text: "2\n"}, "b/c": {text: "c\n"}})
	r := open(t, dir)
	wt := filepath.Join(t.TempDir(), "wt")
	is.NoErr(r.AddCandidate(context.Background(), wt, c1))
	is.NoErr(ApplyTrees(context.Background(), wt, c1, c2))
	is.Equal(workTree(t, wt), gitT(t, dir, "rev-parse", c2+"^{tree}"))
	is.Equal(gitT(t, wt, "rev-parse", "HEAD"), c1)
}

func TestApplyTreesNotTheTop(t *testing.T) {
	is := is.New(t)
	dir, c1, c2 := applyRepo(t, tree{"sub/a": {text: "1\n"}}, tree{"sub/a": {text: "2\n"}})
	err := ApplyTrees(context.Background(), filepath.Join(dir, "sub"), c1, c2)
	is.True(err != nil)
	is.Equal(read(t, filepath.Join(dir, "sub/a")), "1\n")
}
