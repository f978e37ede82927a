package protect

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/matryer/is"
)

// TakeFiles guards named files against the state it recorded, however
// many times Restore runs: changed, deleted and created files are put back
// (a created one removed), a folder named is not recorded, and nothing
// else is looked at.
func TestTakeFiles(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	put := func(rel, text string) {
		p := filepath.Join(dir, rel)
		is.NoErr(os.MkdirAll(filepath.Dir(p), 0o755))
		is.NoErr(os.WriteFile(p, []byte(text), 0o755))
	}
	get := func(rel string) string {
		b, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			return "<absent>"
		}
		return string(b)
	}
	put("check.sh", "grep -q good value.txt")
	put("sub/Makefile", "test:\n\ttrue\n")
	put("tests/a.py", "")
	put("other.txt", "x")
	s, err := TakeFiles(dir, []string{"check.sh", "sub/Makefile", "ruff.toml", "tests", "check.sh"}, nil)
	is.NoErr(err)
	is.Equal(len(s.files), 3) // the folder is not recorded, the duplicate once
	is.Equal(s.Changed(), []string(nil))

	put("check.sh", "exit 0")
	is.NoErr(os.Remove(filepath.Join(dir, "sub/Makefile")))
	put("ruff.toml", "ignore = ['E501']")
	put("other.txt", "y")
	is.Equal(s.Changed(), []string{"check.sh", "ruff.toml", "sub/Makefile"})
	changed, err := s.Restore()
	is.NoErr(err)
	is.Equal(changed, []string{"check.sh", "ruff.toml", "sub/Makefile"})
	is.Equal(get("check.sh"), "grep -q good value.txt")
	is.Equal(get("sub/Makefile"), "test:\n\ttrue\n")
	is.Equal(get("ruff.toml"), "<absent>")
	is.Equal(get("other.txt"), "y") // not named: left alone
	fi, err := os.Stat(filepath.Join(dir, "check.sh"))
	is.NoErr(err)
	is.Equal(fi.Mode().Perm(), os.FileMode(0o755))

	// A second change is compared with the first state, not the last.
	put("check.sh", "true")
	changed, err = s.Restore()
	is.NoErr(err)
	is.Equal(changed, []string{"check.sh"})
	is.Equal(get("check.sh"), "grep -q good value.txt")

	// A folder made where an absent file was is reported, not removed.
	is.NoErr(os.MkdirAll(filepath.Join(dir, "ruff.toml", "inner"), 0o755))
	changed, err = s.Restore()
	is.NoErr(err)
	is.Equal(changed, []string{"ruff.toml"})
	_, err = os.Stat(filepath.Join(dir, "ruff.toml", "inner"))
	is.NoErr(err)
}

// A snapshot saved as JSON and given to TakeFiles as its start guards the
// state it recorded, not the one found now; a file it does not hold is
// taken as it is now.
func TestTakeFilesFromSaved(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	write := func(rel, text string) { is.NoErr(os.WriteFile(filepath.Join(dir, rel), []byte(text), 0o644)) }
	write("check.sh", "grep -q good value.txt")
	first, err := TakeFiles(dir, []string{"check.sh", "ruff.toml"}, nil)
	is.NoErr(err)
	data, err := json.Marshal(first)
	is.NoErr(err)

	write("check.sh", "exit 0") // left by an interrupted session
	write("ruff.toml", "x")     // created then too
	write("package.json", "{}") // a file the resumed configuration adds
	saved := new(Snapshot)
	is.NoErr(json.Unmarshal(data, saved))
	s, err := TakeFiles(dir, []string{"check.sh", "ruff.toml", "package.json"}, saved)
	is.NoErr(err)
	changed, err := s.Restore()
	is.NoErr(err)
	is.Equal(changed, []string{"check.sh", "ruff.toml"})
	b, _ := os.ReadFile(filepath.Join(dir, "check.sh"))
	is.Equal(string(b), "grep -q good value.txt")
	_, err = os.Stat(filepath.Join(dir, "ruff.toml"))
	is.True(os.IsNotExist(err))
	_, err = os.Stat(filepath.Join(dir, "package.json"))
	is.NoErr(err)
}

// A file compared through a view changes only when its view does; a
// version whose view is unchanged becomes the one put back, so the work
// around the guarded part survives a later restore.
func TestTakeFilesView(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "package.json")
	write := func(text string) { is.NoErr(os.WriteFile(file, []byte(text), 0o644)) }
	read := func() string { b, err := os.ReadFile(file); is.NoErr(err); return string(b) }
	firstLine := func(b []byte) []byte { l, _, _ := bytes.Cut(b, []byte("\n")); return l }
	write("test: jest\ndeps: none")
	s, err := TakeFiles(dir, []string{"package.json"}, nil)
	is.NoErr(err)
	s.View("package.json", firstLine)

	write("test: jest\ndeps: lodash") // the view is the same
	changed, err := s.Restore()
	is.NoErr(err)
	is.Equal(changed, []string(nil))
	is.Equal(read(), "test: jest\ndeps: lodash")

	write("test: exit 0\ndeps: lodash, react") // the view changed
	changed, err = s.Restore()
	is.NoErr(err)
	is.Equal(changed, []string{"package.json"})
	is.Equal(read(), "test: jest\ndeps: lodash") // the last version with the part intact

	is.NoErr(os.Remove(file)) // deleted: changed whatever the view
	changed, err = s.Restore()
	is.NoErr(err)
	is.Equal(changed, []string{"package.json"})
	is.Equal(read(), "test: jest\ndeps: lodash")
}
