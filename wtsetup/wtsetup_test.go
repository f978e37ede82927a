package wtsetup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/config"
)

// write creates the files of tree (path: content) under dir.
func write(t *testing.T, dir string, tree map[string]string) {
	t.Helper()
	for p, content := range tree {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func dirs(t *testing.T) (top, wt, outside string) {
	base := t.TempDir()
	top, wt, outside = filepath.Join(base, "top"), filepath.Join(base, "wt"), filepath.Join(base, "outside")
	for _, d := range []string{top, wt, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return top, wt, outside
}

func TestBring(t *testing.T) {
	is := is.New(t)
	top, wt, _ := dirs(t)
	write(t, top, map[string]string{".env": "A=1\n", ".env.local": "B=2\n", "cfg/.dev.vars": "C=3\n", "deps/x/index.js": "x\n", "kept.txt": "main\n"})
	write(t, wt, map[string]string{"kept.txt": "worktree\n"})
	w := config.WorktreeSetup{Copy: []string{".env*", "cfg/.dev.vars", "kept.txt", "absent.json?"}, Link: []string{"deps"}}
	b, err := Bring(top, wt, w)
	is.NoErr(err)
	is.Equal(b.Copied, []string{".env", ".env.local", "cfg/.dev.vars"})
	is.Equal(b.Linked, []string{"deps"})
	is.Equal(b.Kept, []string{"kept.txt"})
	is.Equal(b.Missing, []string{"absent.json"})
	got, err := os.ReadFile(filepath.Join(wt, "cfg", ".dev.vars"))
	is.NoErr(err)
	is.Equal(string(got), "C=3\n")
	fi, err := os.Stat(filepath.Join(wt, ".env"))
	is.NoErr(err)
	is.Equal(fi.Mode().Perm(), os.FileMode(0o600)) // a secret stays private
	got, err = os.ReadFile(filepath.Join(wt, "kept.txt"))
	is.NoErr(err)
	is.Equal(string(got), "worktree\n") // never over a file there
	target, err := os.Readlink(filepath.Join(wt, "deps"))
	is.NoErr(err)
	is.Equal(target, filepath.Join(top, "deps"))

	// Again, as on a worktree that has them all: nothing replaced.
	write(t, top, map[string]string{".env": "A=changed\n"})
	b, err = Bring(top, wt, w)
	is.NoErr(err)
	is.Equal(len(b.Copied), 0)
	got, _ = os.ReadFile(filepath.Join(wt, ".env"))
	is.Equal(string(got), "A=1\n")
}

// Nothing that leads outside the repository is brought in or written
// through, and a required entry that is missing is refused; each refusal
// comes before anything is written in the worktree.
func TestBringRefuses(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, top, wt, outside string)
		w     config.WorktreeSetup
		want  string
	}{
		{"a missing entry", func(*testing.T, string, string, string) {}, config.WorktreeSetup{Copy: []string{".env"}}, ".env is not in the main checkout"},
		{"a glob matching nothing", func(*testing.T, string, string, string) {}, config.WorktreeSetup{Copy: []string{".env.*"}}, "is not in the main checkout"},
		{"a link to outside", func(t *testing.T, top, _, outside string) {
			write(t, outside, map[string]string{"secrets.env": "S=1\n"})
			symlink(t, filepath.Join(outside, "secrets.env"), filepath.Join(top, ".env"))
		}, config.WorktreeSetup{Copy: []string{".env"}}, ".env leaves the repository"},
		{"a linked folder leading outside", func(t *testing.T, top, _, outside string) {
			symlink(t, outside, filepath.Join(top, "node_modules"))
		}, config.WorktreeSetup{Link: []string{"node_modules"}}, "node_modules leaves the repository"},
		{"a link inside a copied folder", func(t *testing.T, top, _, outside string) {
			write(t, top, map[string]string{"conf/a.txt": "a\n"})
			symlink(t, outside, filepath.Join(top, "conf", "out"))
		}, config.WorktreeSetup{Copy: []string{"conf"}}, "conf/out leaves the repository"},
		{"the worktree's folder leading outside", func(t *testing.T, top, wt, outside string) {
			write(t, top, map[string]string{"conf/.env": "S=1\n"})
			symlink(t, outside, filepath.Join(wt, "conf"))
		}, config.WorktreeSetup{Copy: []string{"conf/.env"}}, "the worktree's folder conf leads outside it"},
		{"a path with ..", func(*testing.T, string, string, string) {}, config.WorktreeSetup{Copy: []string{"../x"}}, "leaves the repository"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			top, wt, outside := dirs(t)
			tc.setup(t, top, wt, outside)
			_, err := Bring(top, wt, tc.w)
			is.True(err != nil)
			is.True(strings.Contains(err.Error(), tc.want)) // says which entry and why
			entries, _ := os.ReadDir(outside)
			for _, e := range entries {
				is.True(e.Name() != ".env" && e.Name() != "conf") // nothing written outside
			}
			entries, _ = os.ReadDir(wt)
			for _, e := range entries {
				is.Equal(e.Name(), "conf") // the worktree has only what the case put there
			}
		})
	}
}

func TestCheckRefusesWhatGitWouldCommit(t *testing.T) {
	is := is.New(t)
	top, _, _ := dirs(t)
	write(t, top, map[string]string{".env": "A=1\n", "notes.txt": "n\n"})
	var asked []string
	untracked := func(paths ...string) ([]string, error) {
		asked = paths
		return []string{"notes.txt"}, nil
	}
	err := Check(top, config.WorktreeSetup{Copy: []string{".env", "notes.txt"}}, untracked)
	is.True(err != nil)
	is.True(strings.Contains(err.Error(), "files git does not ignore, which the agent's commits would take in: notes.txt"))
	is.Equal(asked, []string{".env", "notes.txt"})
	is.NoErr(Check(top, config.WorktreeSetup{Copy: []string{".env"}}, func(...string) ([]string, error) { return nil, nil }))
}

func TestSecrets(t *testing.T) {
	is := is.New(t)
	top, _, _ := dirs(t)
	write(t, top, map[string]string{
		".env":        "# comment\nexport API_KEY=\"sk-abc def\"\nDB_PASSWORD='p4ss'\nPORT=3000 # the port\nnot a line\n=nothing\n1BAD=x\nEMPTY=\n",
		"conf/x.env":  "IN_FOLDER=1\n",
		".dev.vars":   "CF_TOKEN=tok-123\n",
		"ignored.txt": "OTHER=1\n",
	})
	got := Secrets(top, config.WorktreeSetup{Copy: []string{".env", ".dev.vars", "conf", "missing?"}, Link: []string{"ignored.txt"}})
	is.Equal(got, []string{"API_KEY=sk-abc def", "DB_PASSWORD=p4ss", "PORT=3000", "CF_TOKEN=tok-123"}) // files listed, not folders nor links
}

func TestCacheEnv(t *testing.T) {
	is := is.New(t)
	root := filepath.Join(t.TempDir(), "caches")
	env, err := CacheEnv([]string{"PATH=/bin", "PIP_CACHE_DIR=/mine"}, root)
	is.NoErr(err)
	is.True(contains(env, "npm_config_cache="+filepath.Join(root, "npm")))
	is.True(contains(env, "UV_CACHE_DIR="+filepath.Join(root, "uv")))
	is.True(contains(env, "PIP_CACHE_DIR=/mine")) // the user's choice stays
	is.True(!contains(env, "PIP_CACHE_DIR="+filepath.Join(root, "pip")))
	is.True(exists(filepath.Join(root, "npm")))
	for _, kv := range env {
		is.True(!strings.HasPrefix(kv, "GOCACHE=") && !strings.HasPrefix(kv, "GOMODCACHE=")) // Go's are shared already
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
}

func exists(p string) bool { _, err := os.Lstat(p); return err == nil }

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}
