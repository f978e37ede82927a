package changes

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/architect-dev/architect/gitwt"
	"github.com/matryer/is"
)

// TestStageInPlace: staging files (edited, new, deleted) leaves the
// private index as `git add -A -- PATHS` and `git write-tree` would, entry
// by entry (stat data included) and tree cache included, and the staged
// tree theirs; on index versions 2 and 4, in SHA-1 and SHA-256
// repositories, with git's ignore and line-ending rules, executable bits
// and links. What it does not make is left to git, with nothing changed.
func TestStageInPlace(t *testing.T) {
	for _, tc := range []struct {
		name   string
		format string            // object format
		setup  func(dir string)  // before the private index is seeded
		change func(dir string)  // the change staged
		paths  []string          // what changed
		refuse bool              // not a change in place
		after  func(string) bool // optional: a check of the staged blob's text
	}{
		{name: "an edit", paths: []string{"src/deep/c.txt"}, change: func(dir string) { appendTo(t, dir, "src/deep/c.txt", "more\n") }},
		{name: "two edits in different folders", paths: []string{"a.txt", "src/deep/c.txt"}, change: func(dir string) {
			appendTo(t, dir, "a.txt", "more\n")
			appendTo(t, dir, "src/deep/c.txt", "more\n")
		}},
		{name: "the same text written again", paths: []string{"src/b.txt"}, change: func(dir string) {
			time.Sleep(10 * time.Millisecond) // a later modification time than the index's
			write(t, dir, "src/b.txt", "two\n")
		}},
		{name: "made executable", paths: []string{"src/b.txt"}, change: func(dir string) { os.Chmod(filepath.Join(dir, "src/b.txt"), 0o755) }},
		{name: "a link pointed elsewhere", paths: []string{"link"}, change: func(dir string) {
			os.Remove(filepath.Join(dir, "link"))
			os.Symlink("src/b.txt", filepath.Join(dir, "link"))
		}},
		{name: "index version 4", paths: []string{"src/deep/c.txt"}, setup: func(dir string) { gitT(t, dir, "update-index", "--index-version", "4") },
			change: func(dir string) { appendTo(t, dir, "src/deep/c.txt", "more\n") }},
		{name: "a new file", paths: []string{"src/new.txt"}, change: func(dir string) { write(t, dir, "src/new.txt", "new\n") }},
		{name: "new files in new folders", paths: []string{"x/y/z.txt", "x/w.txt", "src/deep/more/m.txt", "0.txt"}, change: func(dir string) {
			write(t, dir, "x/y/z.txt", "z\n")
			write(t, dir, "x/w.txt", "w\n")
			write(t, dir, "src/deep/more/m.txt", "m\n")
			write(t, dir, "0.txt", "0\n")
		}},
		{name: "a new file ignored", paths: []string{"build.log"}, setup: func(dir string) {
			write(t, dir, ".gitignore", "*.log\n")
			gitT(t, dir, "add", ".gitignore")
		}, change: func(dir string) { write(t, dir, "build.log", "noise\n") }},
		{name: "a file deleted", paths: []string{"src/b.txt"}, change: func(dir string) { os.Remove(filepath.Join(dir, "src/b.txt")) }},
		{name: "a folder emptied", paths: []string{"src/deep/c.txt"}, change: func(dir string) { os.RemoveAll(filepath.Join(dir, "src/deep")) }},
		{name: "a file renamed into a new folder", paths: []string{"src/b.txt", "lib/b.txt"}, change: func(dir string) {
			os.MkdirAll(filepath.Join(dir, "lib"), 0o755)
			os.Rename(filepath.Join(dir, "src/b.txt"), filepath.Join(dir, "lib/b.txt"))
		}},
		{name: "index version 4, files added and deleted", paths: []string{"a.txt", "a0.txt", "src/a.txt", "src/b.txt", "src/deep/c.txt"},
			setup: func(dir string) { gitT(t, dir, "update-index", "--index-version", "4") },
			change: func(dir string) {
				write(t, dir, "a0.txt", "new\n")
				write(t, dir, "src/a.txt", "new\n")
				os.Remove(filepath.Join(dir, "src/b.txt"))
				appendTo(t, dir, "a.txt", "more\n")
				appendTo(t, dir, "src/deep/c.txt", "more\n")
			}},
		{name: "sha256, a file added", format: "sha256", paths: []string{"src/deep/d.txt"}, change: func(dir string) { write(t, dir, "src/deep/d.txt", "d\n") }},
		{name: "refused: a new folder", paths: []string{"x"}, refuse: true, change: func(dir string) { write(t, dir, "x/y.txt", "y\n") }},
		{name: "refused: a folder replaced, beside an ignored new file", paths: []string{"src/deep", "build.log"}, refuse: true, setup: func(dir string) {
			write(t, dir, ".gitignore", "*.log\n")
			gitT(t, dir, "add", ".gitignore")
		}, change: func(dir string) {
			os.RemoveAll(filepath.Join(dir, "src/deep"))
			write(t, dir, "src/deep/other.txt", "other\n")
			write(t, dir, "build.log", "noise\n")
		}},
		{name: "refused: a tracked folder made again with files git ignores", paths: []string{"src/deep"}, refuse: true,
			setup: func(dir string) { write(t, dir, ".git/info/exclude", "*.txt\n") },
			change: func(dir string) {
				os.RemoveAll(filepath.Join(dir, "src/deep"))
				write(t, dir, "src/deep/c.txt", "again\n")
			}},
		{name: "refused: a tracked folder become a file git ignores", paths: []string{"src/deep"}, refuse: true,
			setup: func(dir string) { write(t, dir, ".git/info/exclude", "deep\n") },
			change: func(dir string) {
				os.RemoveAll(filepath.Join(dir, "src/deep"))
				write(t, dir, "src/deep", "a file now\n")
			}},
		{name: "refused: a folder gone", paths: []string{"src/deep"}, refuse: true, change: func(dir string) { os.RemoveAll(filepath.Join(dir, "src/deep")) }},
		{name: "sha256", format: "sha256", paths: []string{"src/deep/c.txt"}, change: func(dir string) { appendTo(t, dir, "src/deep/c.txt", "more\n") }},
		{name: "CRLF kept where the blob had it (core.autocrlf)", paths: []string{"crlf.txt"},
			setup:  func(dir string) { gitT(t, dir, "config", "core.autocrlf", "true") },
			change: func(dir string) { appendTo(t, dir, "crlf.txt", "c\r\n") },
			after:  func(text string) bool { return text == "a\r\nb\r\nc\r\n" }},
		{name: "refused: a file become a folder", paths: []string{"a.txt"}, refuse: true, change: func(dir string) {
			os.Remove(filepath.Join(dir, "a.txt"))
			write(t, dir, "a.txt/inner.txt", "x\n")
		}},
		{name: "refused: an index extension other than the tree cache", paths: []string{"a.txt"}, refuse: true, setup: func(dir string) {
			gitT(t, dir, "config", "core.untrackedCache", "true")
			gitT(t, dir, "update-index", "--untracked-cache")
			gitT(t, dir, "status")
		}, change: func(dir string) { appendTo(t, dir, "a.txt", "more\n") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			ctx := context.Background()
			isolate(t, true)
			dir := t.TempDir()
			args := []string{"init", "--quiet"}
			if tc.format != "" {
				args = append(args, "--object-format="+tc.format)
			}
			gitT(t, dir, args...)
			write(t, dir, "a.txt", "one\n")
			write(t, dir, "src/b.txt", "two\n")
			write(t, dir, "src/deep/c.txt", "three\n")
			write(t, dir, "crlf.txt", "a\r\nb\r\n")
			is.NoErr(os.Symlink("a.txt", filepath.Join(dir, "link")))
			base := commit(t, dir, "base")
			if tc.setup != nil {
				tc.setup(dir)
			}
			c := New(ctx, open(t, dir), base, []string{".architect"}, 1<<20, ChangesOptions{Commits: true})
			defer c.Close()
			_, err := c.Diff(ctx) // seeds the private index and writes its tree
			is.NoErr(err)
			before, err := os.ReadFile(c.index.path)
			is.NoErr(err)
			oracle := filepath.Join(t.TempDir(), "index")
			is.NoErr(gitwt.CopyIndex(c.index.path, oracle))
			tc.change(dir)

			var present, gone []string
			for _, p := range tc.paths {
				if exists(filepath.Join(dir, p)) {
					present = append(present, p)
				} else {
					gone = append(gone, p)
				}
			}
			err = c.stageInPlace(ctx, present, gone)
			if tc.refuse {
				if !errors.Is(err, errNotInPlace) {
					t.Fatalf("stageInPlace: %v, want errNotInPlace", err)
				}
				after, rerr := os.ReadFile(c.index.path)
				is.NoErr(rerr)
				is.True(bytes.Equal(after, before)) // left as it was
				return
			}
			is.NoErr(err)
			is.Equal(c.counts.inPlace, 1)

			env := []string{"GIT_INDEX_FILE=" + oracle}
			is.NoErr(open(t, dir).Add(ctx, gitwt.Command{Env: env}, tc.paths, nil, "-A"))
			want := gitEnvT(t, dir, env, "", "write-tree")
			is.Equal(c.tree, want) // the staged tree
			mine := []string{"GIT_INDEX_FILE=" + c.index.path}
			// Every entry, its stat data included, as git's.
			is.Equal(gitEnvT(t, dir, mine, "", "ls-files", "-s", "--debug"), gitEnvT(t, dir, env, "", "ls-files", "-s", "--debug"))
			// The tree cache: git trusts it to write the tree.
			copied := filepath.Join(t.TempDir(), "index")
			is.NoErr(gitwt.CopyIndex(c.index.path, copied))
			is.Equal(gitEnvT(t, dir, []string{"GIT_INDEX_FILE=" + copied}, "", "write-tree"), want)
			is.Equal(treeWithoutCache(t, dir, c.index.path), want)
			// The tree cache, folder by folder, as the one git wrote.
			is.Equal(cacheOf(t, c.index.path, c.oidLen()), cacheOf(t, oracle, c.oidLen()))
			// Nothing left to stage: git sees the files as the index has them.
			is.Equal(gitEnvT(t, dir, mine, "", "diff-files", "--name-only"), "")
			if tc.after != nil {
				text := gitEnvT(t, dir, nil, "", "cat-file", "-p", want+":"+tc.paths[0])
				is.True(tc.after(text + "\r\n"))
			}
		})
	}
}

// appendTo adds text to the end of dir/name, in place.
func appendTo(t *testing.T, dir, name, text string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// cacheOf is the tree cache of the index file index, as the bytes of its
// TREE extension (read here, not by the reader under test).
func cacheOf(t *testing.T, index string, oidLen int) string {
	t.Helper()
	data, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	end, ok := entriesEnd(data, oidLen)
	if !ok {
		t.Fatal("entriesEnd: not an index")
	}
	for off := end; off+8 <= len(data)-oidLen; {
		n := int(binary.BigEndian.Uint32(data[off+4 : off+8]))
		if string(data[off:off+4]) == "TREE" {
			return string(data[off+8 : off+8+n])
		}
		off += 8 + n
	}
	t.Fatalf("no tree cache in %s", index)
	return ""
}

// TestStageInPlaceRacilyClean: a file changed in the same clock tick as
// the private index was written, keeping its size and modification time,
// is read again and staged, as git staging in that index would: the index
// of the paths alone is dated as the private index.
func TestStageInPlaceRacilyClean(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	dir := newRepo(t)
	gitT(t, dir, "config", "core.trustctime", "false") // the change keeps all the stat data git then compares
	write(t, dir, "a.txt", "one\n")
	base := commit(t, dir, "base")
	write(t, dir, "f.txt", "first\n")
	// Seconds ago: git may compare times to the second only (built
	// without USE_NSEC, as Debian's is), and an index written now must not
	// look racy by itself.
	tick := time.Now().Add(-10 * time.Second)
	is.NoErr(os.Chtimes(filepath.Join(dir, "f.txt"), tick, tick))
	c := New(ctx, open(t, dir), base, []string{".architect"}, 1<<20, ChangesOptions{Commits: true})
	defer c.Close()
	_, err := c.Diff(ctx) // stages f.txt with its stat data
	is.NoErr(err)
	is.NoErr(os.Chtimes(c.index.path, tick, tick)) // the index written in the file's tick
	time.Sleep(20 * time.Millisecond)
	write(t, dir, "f.txt", "later\n") // same size, same inode
	is.NoErr(os.Chtimes(filepath.Join(dir, "f.txt"), tick, tick))

	is.NoErr(c.stageInPlace(ctx, []string{"f.txt"}, nil))
	is.Equal(gitEnvT(t, dir, nil, "", "cat-file", "-p", c.tree+":f.txt"), "later")
}
