package gitwt

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/matryer/is"
)

// indexMayTrack must never say no for a path the index tracks: a wrong
// "no" would leave an excluded file in the snapshot.
func TestIndexMayTrack(t *testing.T) {
	is := is.New(t)
	for _, version := range []string{"2", "3", "4"} {
		dir := t.TempDir()
		git := func(args ...string) {
			cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
			cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v %s", args, err, out)
			}
		}
		git("init", "-q")
		git("config", "index.version", version)
		for _, f := range []string{"a.txt", "deep/b.txt"} {
			is.NoErr(os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755))
			is.NoErr(os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644))
		}
		git("add", "-A")
		index := filepath.Join(dir, ".git", "index")
		is.True(indexMayTrack(index, []string{"deep/b.txt"})) // tracked
		is.True(indexMayTrack(index, []string{"/deep/"}))     // a tracked folder
		is.True(indexMayTrack(index, []string{"x", "a.txt"})) // any of several
		if version != "4" {
			is.True(!indexMayTrack(index, []string{".architect/", ".architect-ralph-worktree"})) // untracked: skip
		} else {
			is.True(indexMayTrack(index, []string{".architect/"})) // compressed paths: cannot tell
		}
	}
	is.True(!indexMayTrack(filepath.Join(t.TempDir(), "none"), []string{".architect"})) // no index: nothing tracked
}
