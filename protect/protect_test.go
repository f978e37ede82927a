package protect

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/matryer/is"
)

func TestRestore(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	put := func(rel, text string) {
		p := filepath.Join(dir, rel)
		is.NoErr(os.MkdirAll(filepath.Dir(p), 0o755))
		is.NoErr(os.WriteFile(p, []byte(text), 0o644))
	}
	get := func(rel string) string {
		b, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			return "<" + err.Error() + ">"
		}
		return string(b)
	}
	put("a_test.go", "real test")
	put("pkg/b_test.go", "another")
	put("tests/data.txt", "fixture")
	put("main.go", "code")
	put(".architect/x_test.go", "architect's own")

	s, err := Take(dir, []string{"*_test.go", "tests/**"}, []string{".git", ".architect"})
	is.NoErr(err)
	is.Equal(len(s.files), 3)

	changed, err := s.Restore()
	is.NoErr(err)
	is.Equal(len(changed), 0) // nothing changed

	put("a_test.go", "func TestX(t *testing.T) {} // always passes")
	is.NoErr(os.Remove(filepath.Join(dir, "pkg/b_test.go")))
	put("tests/new.txt", "new")
	put("c_test.go", "new test file")
	is.NoErr(os.Chmod(filepath.Join(dir, "tests/data.txt"), 0o600))
	put("main.go", "changed code")                            // not protected
	put(".architect/x_test.go", "changed, but not looked at") // skipped

	changed, err = s.Restore()
	is.NoErr(err)
	is.Equal(changed, []string{"a_test.go", "c_test.go", "pkg/b_test.go", "tests/data.txt", "tests/new.txt"})
	is.Equal(get("a_test.go"), "real test")
	is.Equal(get("pkg/b_test.go"), "another")
	_, err = os.Stat(filepath.Join(dir, "c_test.go"))
	is.True(os.IsNotExist(err))
	_, err = os.Stat(filepath.Join(dir, "tests/new.txt"))
	is.True(os.IsNotExist(err))
	fi, err := os.Stat(filepath.Join(dir, "tests/data.txt"))
	is.NoErr(err)
	is.Equal(fi.Mode().Perm(), os.FileMode(0o644))
	is.Equal(get("main.go"), "changed code")

	// A protected file replaced by a symlink or a directory.
	is.NoErr(os.Remove(filepath.Join(dir, "a_test.go")))
	is.NoErr(os.Symlink("main.go", filepath.Join(dir, "a_test.go")))
	is.NoErr(os.RemoveAll(filepath.Join(dir, "pkg/b_test.go")))
	is.NoErr(os.MkdirAll(filepath.Join(dir, "pkg/b_test.go/x"), 0o755))
	changed, err = s.Restore()
	is.NoErr(err)
	is.Equal(changed, []string{"a_test.go", "pkg/b_test.go"})
	is.Equal(get("a_test.go"), "real test")
	is.Equal(get("pkg/b_test.go"), "another")
}

// TestFiles: the files a snapshot can have made read-only are its regular
// files, as absolute paths; symlinks and files absent when listed are not.
func TestFiles(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	for _, rel := range []string{"a_test.go", "pkg/b_test.go", "main.go"} {
		is.NoErr(os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755))
		is.NoErr(os.WriteFile(filepath.Join(dir, rel), []byte("x"), 0o644))
	}
	is.NoErr(os.Symlink("main.go", filepath.Join(dir, "link_test.go")))
	s, err := Take(dir, []string{"*_test.go"}, nil)
	is.NoErr(err)
	is.Equal(s.Files(), []string{filepath.Join(dir, "a_test.go"), filepath.Join(dir, "pkg", "b_test.go")})
	l, err := TakeFiles(dir, []string{"main.go", "missing.sh", "link_test.go"}, nil)
	is.NoErr(err)
	is.Equal(l.Files(), []string{filepath.Join(dir, "main.go")})
	is.Equal((*Snapshot)(nil).Files(), []string(nil))
}
