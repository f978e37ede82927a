package changes

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/matryer/is"
)

// TestPatchStatMatchesGit builds the stat from a real patch holding every
// kind of change, written in chunks of every size from 1 byte, and
// compares each file's counts and the summary with git's own.
func TestPatchStatMatchesGit(t *testing.T) {
	is := is.New(t)
	dir := newRepo(t)
	long := strings.Repeat("x", 3*lineKeep) + "\n"
	files := map[string]string{
		"edit.txt":           "one\ntwo\nthree\n",
		"delete.txt":         "gone\nsoon\n",
		"rename-me.txt":      strings.Repeat("the same line\n", 20),
		"mode.sh":            "echo hi\n",
		"bin.dat":            "\x00\x01\x02binary",
		"with space.txt":     "a\n",
		"ünïcode.txt":        "a\n",
		"tricky.txt":         "--- not a header\n+++ nor this\n",
		"long.txt":           long,
		"no-newline.txt":     "last",
		"dir/nested/f.go":    "package f\n",
		"quote\"d\tname.txt": "a\n",
	}
	for name, text := range files {
		write(t, dir, name, text)
	}
	gitT(t, dir, "add", "-A")
	gitT(t, dir, "commit", "-qm", "base")
	base := gitT(t, dir, "rev-parse", "HEAD")
	write(t, dir, "edit.txt", "one\n2\nthree\nfour\n")
	is.NoErr(os.Remove(filepath.Join(dir, "delete.txt")))
	is.NoErr(os.Rename(filepath.Join(dir, "rename-me.txt"), filepath.Join(dir, "renamed.txt")))
	is.NoErr(os.Chmod(filepath.Join(dir, "mode.sh"), 0o755))
	write(t, dir, "bin.dat", "\x00\x03binary too")
	write(t, dir, "with space.txt", "b\n")
	write(t, dir, "ünïcode.txt", "b\nc\n")
	write(t, dir, "tricky.txt", "--- still not\n+++ a header\n-- nope\n")
	write(t, dir, "long.txt", long+long)
	write(t, dir, "no-newline.txt", "last\n")
	write(t, dir, "dir/nested/f.go", "package g\n")
	write(t, dir, "quote\"d\tname.txt", "b\n")
	write(t, dir, "new file.txt", "brand\nnew\n")
	gitT(t, dir, "add", "-A")

	patch := gitT(t, dir, "-c", "core.quotePath=false", "diff", "--cached", "-M", "--full-index", "--no-color", base) + "\n"
	numstat := gitT(t, dir, "-c", "core.quotePath=false", "diff", "--cached", "-M", "--numstat", "-z", base)
	summary := gitT(t, dir, "diff", "--cached", "-M", "--shortstat", base)

	// git's numbers, by the name our stat gives: "old => new" for renames.
	want := map[string]string{}
	fields := strings.Split(numstat, "\x00")
	for i := 0; i < len(fields)-1; i++ {
		counts := strings.SplitN(fields[i], "\t", 3)
		if len(counts) < 3 {
			continue
		}
		name := counts[2]
		if name == "" { // a rename: the old and the new name follow
			name = fields[i+1] + " => " + fields[i+2]
			i += 2
		}
		want[name] = counts[0] + " " + counts[1]
	}
	is.Equal(len(want), 13)

	for _, size := range []int{1, 2, 7, 64, 4096, len(patch)} {
		s := &patchStat{}
		for p := patch; len(p) > 0; {
			n := min(size, len(p))
			s.Write([]byte(p[:n]))
			p = p[n:]
		}
		got := map[string]string{}
		s.finish()
		for _, f := range s.files {
			if f.binary {
				got[f.name] = "- -"
			} else {
				got[f.name] = fmt.Sprint(f.ins, " ", f.del)
			}
		}
		is.Equal(got, want)
		text := s.String()
		lines := strings.Split(text, "\n")
		is.Equal(lines[len(lines)-1], " "+summary) // " 13 files changed, …", as git says it (gitT trims)
		is.Equal(len(lines), 14)
		is.True(strings.Contains(text, " bin.dat "))
		is.True(strings.Contains(text, "| Bin\n"))
	}
}

// TestDiffStatListsAtMost100Files: past 100 files, " ..." and the summary.
func TestPatchStatLimit(t *testing.T) {
	is := is.New(t)
	s := &patchStat{}
	for i := range 150 {
		fmt.Fprintf(s, "diff --git a/f%d b/f%d\nindex 1..2 100644\n--- a/f%d\n+++ b/f%d\n@@ -1 +1 @@\n-a\n+b\n", i, i, i, i)
	}
	text := s.String()
	is.Equal(strings.Count(text, "\n"), 101)
	is.True(strings.HasSuffix(text, " ...\n 150 files changed, 150 insertions(+), 150 deletions(-)"))
	is.Equal((&patchStat{}).String(), "")
}

// FuzzPatchStat: whatever the patch holds (the agent writes the files it
// shows), the stat is built without failing, counts every file it lists
// and keeps to the line limit.
func FuzzPatchStat(f *testing.F) {
	f.Add([]byte("diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"), 3)
	f.Add([]byte("diff --git \"a/q\\tx\" \"b/q\\tx\"\nrename from a\nrename to b\nBinary files a/x and b/y differ\n"), 1)
	f.Fuzz(func(t *testing.T, patch []byte, chunk int) {
		chunk = max(1, chunk%4096)
		s := &patchStat{}
		for p := patch; len(p) > 0; {
			n := min(chunk, len(p))
			s.Write(p[:n])
			p = p[n:]
		}
		text := s.String()
		if s.nfiles == 0 && text != "" {
			t.Fatalf("no file but a stat: %q", text)
		}
		for _, l := range strings.Split(text, "\n") {
			if utf8.RuneCountInString(l) > statWidth+statNameMax {
				t.Fatalf("stat line of %d characters", utf8.RuneCountInString(l))
			}
		}
	})
}

// patchStat builds `git diff --stat` from a patch as it streams by, as
// compose does from the segments the segmenter cuts (git computes each
// file's diff once rather than twice). Memory does not grow with long
// lines or big diffs.
type patchStat struct {
	statSummary
	seg  segmenter
	done int // segments already added
}

// Write never fails.
func (s *patchStat) Write(p []byte) (int, error) {
	n, err := s.seg.Write(p)
	s.collect()
	return n, err
}

func (s *patchStat) collect() {
	for ; s.done < len(s.seg.segs); s.done++ {
		s.add(s.seg.segs[s.done].stat)
	}
	s.seg.segs = s.seg.segs[:0]
	s.done = 0
}

// finish closes the last file's entry.
func (s *patchStat) finish() {
	s.seg.flush()
	s.collect()
}

// String formats the stat as git does: one line per file (" name | N +-"),
// " ..." past statFiles files, and the summary line; "" for no change.
func (s *patchStat) String() string {
	s.finish()
	return s.statSummary.String()
}
