package mountns

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/matryer/is"
)

// TestMain lets the test binary be the process started in namespaces of
// its own: `child PATH...` makes the paths read-only, then tries to write
// each (a folder: a new file in it), printing "PATH: EROFS", "PATH: ok"
// or the error, then what Check says of the first and the last.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "child" {
		var some *Unmounted
		if err := ReadOnly(os.Args[2:]); errors.As(err, &some) {
			os.Stdout.WriteString("unmounted: " + strings.Join(some.Paths, " ") + "\n")
		} else if err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		for _, p := range os.Args[2:] {
			if p == "/" {
				continue // the refused mount: nothing to write there
			}
			target := p
			if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
				target = filepath.Join(p, "new")
			}
			msg := "ok"
			if err := os.WriteFile(target, []byte("changed"), 0o644); errors.Is(err, syscall.EROFS) {
				msg = "EROFS"
			} else if err != nil {
				msg = err.Error()
			}
			os.Stdout.WriteString(p + ": " + msg + "\n")
		}
		for _, p := range []string{os.Args[2], os.Args[len(os.Args)-1]} {
			msg := "read-only"
			if err := Check([]string{p}); err != nil {
				msg = err.Error()
			}
			os.Stdout.WriteString("check " + p + ": " + msg + "\n")
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestReadOnly(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	file, folder := filepath.Join(dir, "f"), filepath.Join(dir, "d")
	target, link, missing := filepath.Join(dir, "target"), filepath.Join(dir, "link"), filepath.Join(dir, "missing")
	is.NoErr(os.WriteFile(file, []byte("orig"), 0o644))
	is.NoErr(os.Mkdir(folder, 0o755))
	is.NoErr(os.WriteFile(target, []byte("orig"), 0o644))
	is.NoErr(os.Symlink(target, link))
	exe, err := os.Executable()
	is.NoErr(err)
	// "/": a folder the kernel refuses to bind alone, as it has mounts
	// beneath it that the namespace inherited (locked to it).
	refused := "/"
	cmd := exec.Command(exe, "child", file, folder, link, refused, missing)
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	SetAttr(cmd.SysProcAttr)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Skipf("no user namespace here: %v", err)
	}
	t.Log(string(out))
	is.NoErr(err)
	got := string(out)
	is.True(strings.Contains(got, file+": EROFS\n"))           // a file
	is.True(strings.Contains(got, folder+": EROFS\n"))         // a folder: nothing created in it
	is.True(strings.Contains(got, link+": ok\n"))              // a symlink is left alone: its target is not mounted
	is.True(strings.Contains(got, missing+": ok\n"))           // a missing path is skipped, not an error
	is.True(strings.Contains(got, "unmounted: "+refused+"\n")) // a refused mount is said, the others done
	is.True(strings.Contains(got, "check "+file+": read-only\n"))
	is.True(strings.Contains(got, "check "+missing+": "+missing+" stayed writable\n"))
	data, err := os.ReadFile(file)
	is.NoErr(err)
	is.Equal(string(data), "orig") // the child's write did not happen
	_, err = os.Stat(filepath.Join(folder, "new"))
	is.True(os.IsNotExist(err))
	is.NoErr(ReadOnly(nil)) // nothing to do, nothing done
}
