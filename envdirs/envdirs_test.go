package envdirs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"
)

func writeFile(t testing.TB, dir, name, text string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func project(t *testing.T) string {
	dir := t.TempDir()
	writeFile(t, dir, "node_modules/x/index.js", "module.exports = 41;\n")
	writeFile(t, dir, "node_modules/.bin/x", "#!/bin/sh\n")
	writeFile(t, dir, ".venv/lib/site.py", "x = 1\n")
	writeFile(t, dir, ".env", "A=1\n")
	writeFile(t, dir, ".env.local", "B=2\n")
	writeFile(t, dir, ".envrc", "not an env file\n")
	writeFile(t, dir, "src/app.js", "\n")
	return dir
}

func TestCandidates(t *testing.T) {
	is := is.New(t)
	is.Equal(Candidates(project(t)), []string{"node_modules", ".venv", ".env", ".env.local"})
}

// The fingerprint changes with any change of a file in the folder, even
// one written in place with its size and modification time put back; it
// does not change with the caches the tools write while the checks run.
func TestFingerprint(t *testing.T) {
	cases := []struct {
		name   string
		change func(t *testing.T, dir string)
		same   bool
	}{
		{"nothing", func(*testing.T, string) {}, true},
		{"node_modules/.cache written", func(t *testing.T, dir string) { writeFile(t, dir, "node_modules/.cache/babel/x", "cached") }, true},
		{"__pycache__ written", func(t *testing.T, dir string) { writeFile(t, dir, ".venv/lib/__pycache__/site.pyc", "pyc") }, true},
		{"file added", func(t *testing.T, dir string) { writeFile(t, dir, "node_modules/y/index.js", "") }, false},
		{"file removed", func(t *testing.T, dir string) { _ = os.Remove(filepath.Join(dir, "node_modules/.bin/x")) }, false},
		{"file rewritten, same size, times put back", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "node_modules/x/index.js")
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, dir, "node_modules/x/index.js", "module.exports = 42;\n")
			if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"mode changed", func(t *testing.T, dir string) { _ = os.Chmod(filepath.Join(dir, "node_modules/.bin/x"), 0o755) }, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			dir := project(t)
			before, err := Take(dir, "node_modules")
			is.NoErr(err)
			venv, err := Take(dir, ".venv")
			is.NoErr(err)
			is.Equal(before.Entries, 5) // node_modules, x, x/index.js, .bin, .bin/x
			tick(t, dir)
			c.change(t, dir)
			after, err := Take(dir, "node_modules")
			is.NoErr(err)
			venvAfter, err := Take(dir, ".venv")
			is.NoErr(err)
			is.Equal(before == after && venv == venvAfter, c.same)
		})
	}
}

// tick returns once the file system's clock has moved past the change
// time of the files project wrote (it moves on a coarse clock on Linux),
// so that a file written now gets another change time, as one written
// minutes into a run does.
func tick(t *testing.T, dir string) {
	t.Helper()
	ref, err := os.Stat(filepath.Join(dir, "node_modules/x/index.js"))
	if err != nil {
		t.Fatal(err)
	}
	probe := filepath.Join(t.TempDir(), "probe")
	for range 1_000_000 {
		writeFile(t, filepath.Dir(probe), "probe", "x")
		if fi, err := os.Stat(probe); err == nil && stamp(fi) != "" && ctime(fi) != ctime(ref) {
			return
		}
	}
	t.Fatal("the change time never moved")
}

// BringIn links what is as it was, leaves out what changed, leaves alone
// what the tree has, and gives node_modules a folder of its own without
// the workspace's .cache.
func TestBringIn(t *testing.T) {
	is := is.New(t)
	from := project(t)
	start := TakeAll(from, []string{"node_modules", ".venv", ".env", ".env.local"})
	is.Equal(len(start), 4)
	writeFile(t, from, "node_modules/.cache/x", "cache")
	writeFile(t, from, ".env.local", "B=3\n") // changed during the run
	to := t.TempDir()
	writeFile(t, to, ".env", "tracked in the tree\n")

	got, err := BringIn(from, to, start)
	is.NoErr(err)
	is.Equal(got, []Brought{{Path: ".env.local", Changed: true}, {Path: ".venv"}, {Path: "node_modules"}})

	data, err := os.ReadFile(filepath.Join(to, "node_modules/x/index.js"))
	is.NoErr(err)
	is.Equal(string(data), "module.exports = 41;\n")
	fi, err := os.Lstat(filepath.Join(to, "node_modules"))
	is.NoErr(err)
	is.True(fi.IsDir()) // a folder of its own
	_, err = os.Lstat(filepath.Join(to, "node_modules/.cache"))
	is.True(os.IsNotExist(err))
	_, err = os.Stat(filepath.Join(to, ".venv/lib/site.py"))
	is.NoErr(err)
	_, err = os.Lstat(filepath.Join(to, ".env.local"))
	is.True(os.IsNotExist(err))
	data, err = os.ReadFile(filepath.Join(to, ".env"))
	is.NoErr(err)
	is.Equal(string(data), "tracked in the tree\n")
}

// ctime is the change-time part of stamp.
func ctime(fi os.FileInfo) string {
	c, _, _ := strings.Cut(stamp(fi), "/")
	return c
}
