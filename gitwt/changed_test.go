package gitwt

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Diff.Changed names the files whose new content the diff carries, from
// git's own patch: names git quotes or ends with a tab, a hunk line that
// looks like a file header left alone, and the changes that bring no new
// content (a deletion, a pure rename, a mode change, a binary file, an
// empty new file) left out. The watched, incremental diff says the same.
func TestDiffChanged(t *testing.T) {
	dir := newRepo(t)
	for name, text := range map[string]string{"p.py": "a\n", "moved.py": "same content, long enough to be a rename\n", "m.sh": "echo\n", "gone.py": "x\n"} {
		write(t, dir, name, text)
	}
	base := commit(t, dir, "base")
	ctx := context.Background()
	repo, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	c := repo.Changes(ctx, base, nil, 1<<20, ChangesOptions{Watch: true})
	defer c.Close()
	if _, err := c.Diff(ctx); err != nil {
		t.Fatal(err)
	}

	for name, text := range map[string]string{
		"p.py":       "a\n++ b/evil.py\n", // shows as "+++ b/evil.py" in the hunk
		"sp ace.py":  "1\n",
		"ta\tb.py":   "2\n",
		"é.py":       "3\n",
		"dir/new.py": "4\n",
		"empty.py":   "",
		"data.bin":   "\x00\x01",
	} {
		write(t, dir, name, text)
	}
	mustOK(t, os.Rename(filepath.Join(dir, "moved.py"), filepath.Join(dir, "renamed.py")))
	mustOK(t, os.Chmod(filepath.Join(dir, "m.sh"), 0o755))
	mustOK(t, os.Remove(filepath.Join(dir, "gone.py")))

	want := []string{"dir/new.py", "p.py", "sp ace.py", "ta\tb.py", "é.py"}
	whole, err := repo.Diff(ctx, base, nil, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"\n+++ b/evil.py\n", "rename to renamed.py", "old mode 100644", "Binary files", "deleted file mode", "new file mode 100644\nindex 0000000000000000000000000000000000000000..e69de29"} {
		if !strings.Contains(whole.Text, s) {
			t.Fatalf("the diff lacks %q, which this test is about:\n%s", s, whole.Text)
		}
	}
	watched, err := c.Diff(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []Diff{whole, watched} {
		if strings.Join(d.Changed, "|") != strings.Join(want, "|") {
			t.Errorf("Changed = %q, want %q", d.Changed, want)
		}
	}
}

func mustOK(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
