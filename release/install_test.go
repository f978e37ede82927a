package release_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/architect-dev/architect/internal/acttest"
	"github.com/matryer/is"
)

// server serves the files of dir on 127.0.0.1 the way GitHub serves a
// release's: /releases/download/TAG/FILE and /releases/latest/download/FILE.
// It records the paths asked for.
type server struct {
	*httptest.Server
	mu    sync.Mutex
	asked []string
}

func serve(t *testing.T, dir string) *server {
	t.Helper()
	s := &server{}
	files := http.FileServer(http.Dir(dir))
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.asked = append(s.asked, r.URL.Path)
		s.mu.Unlock()
		name, ok := strings.CutPrefix(r.URL.Path, "/releases/download/"+tag+"/")
		if !ok {
			name, ok = strings.CutPrefix(r.URL.Path, "/releases/latest/download/")
		}
		if !ok || strings.Contains(name, "/") {
			http.NotFound(w, r)
			return
		}
		r.URL.Path = "/" + name
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) requested() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.asked...)
}

// fakeUname is a folder holding a uname that prints kernel for -s and
// machine for -m, to put first on PATH.
func fakeUname(t *testing.T, kernel, machine string) string {
	t.Helper()
	dir := t.TempDir()
	script := "#!/bin/sh\ncase $1 in -s) echo " + kernel + " ;; -m) echo " + machine + " ;; *) exit 1 ;; esac\n"
	if err := os.WriteFile(filepath.Join(dir, "uname"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

type installRun struct {
	code           int
	stdout, stderr string
	dir            string // the install folder
}

// install runs install.sh with the base URL, the version ("" for latest)
// and, if given, a folder put first on PATH.
func install(t *testing.T, base, ver, pathFirst string) installRun {
	t.Helper()
	home := t.TempDir()
	dir := filepath.Join(home, "bin")
	cmd := exec.Command("sh", filepath.Join(acttest.ModuleRoot(t), "install.sh"))
	path := os.Getenv("PATH")
	if pathFirst != "" {
		path = pathFirst + string(os.PathListSeparator) + path
	}
	cmd.Env = []string{"HOME=" + home, "PATH=" + path, "ARCHITECT_DOWNLOAD_URL=" + base,
		"ARCHITECT_INSTALL_DIR=" + dir, "ARCHITECT_VERSION=" + ver}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatal(err)
		}
		code = ee.ExitCode()
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("install.sh (exit %d) printed:\n%s%s", code, stdout.String(), stderr.String())
		}
	})
	return installRun{code: code, stdout: stdout.String(), stderr: stderr.String(), dir: dir}
}

// installed lists what the install folder holds.
func installed(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// install.sh installs this machine's archive, checked, from a tag or from
// the latest release, and the binary runs.
func TestInstallScript(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("install.sh is for Linux and macOS")
	}
	d := dist(t)
	srv := serve(t, d)
	for _, ver := range []string{tag, ""} {
		t.Run("version="+ver, func(t *testing.T) {
			is := is.New(t)
			r := install(t, srv.URL+"/releases", ver, "")
			is.Equal(r.code, 0)
			is.Equal(installed(t, r.dir), []string{"architect"})
			out, err := exec.Command(filepath.Join(r.dir, "architect"), "--version").Output()
			is.NoErr(err)
			is.True(strings.HasPrefix(string(out), "architect "+version+" ("))
			is.True(strings.Contains(r.stderr, "architect install: installed architect "+version))
			is.True(strings.Contains(r.stderr, "architect install: hint: "+r.dir+" is not on your PATH"))
		})
	}
}

// uname -s/-m pick the archive: each pair gets the binary of its OS and
// architecture (one that cannot run here is installed, then reported).
func TestInstallScriptPicksArchive(t *testing.T) {
	d := dist(t)
	srv := serve(t, d)
	for _, tc := range []struct{ kernel, machine, os, arch string }{
		{"Linux", "x86_64", "linux", "amd64"},
		{"Linux", "aarch64", "linux", "arm64"},
		{"Linux", "arm64", "linux", "arm64"},
		{"Darwin", "x86_64", "darwin", "amd64"},
		{"Darwin", "arm64", "darwin", "arm64"},
	} {
		t.Run(tc.kernel+"_"+tc.machine, func(t *testing.T) {
			is := is.New(t)
			before := len(srv.requested())
			r := install(t, srv.URL+"/releases", tag, fakeUname(t, tc.kernel, tc.machine))
			asked := srv.requested()[before:]
			is.Equal(asked, []string{"/releases/download/" + tag + "/checksums.txt", "/releases/download/" + tag + "/" + archiveName(tc.os, tc.arch)})
			data, err := os.ReadFile(filepath.Join(r.dir, "architect"))
			is.NoErr(err)
			goos, goarch, _, err := binaryPlatform(data)
			is.NoErr(err)
			is.Equal(goos+"/"+goarch, tc.os+"/"+tc.arch)
			if tc.os == runtime.GOOS && tc.arch == runtime.GOARCH {
				is.Equal(r.code, 0)
			} else {
				is.Equal(r.code, 1)
				is.True(strings.Contains(r.stderr, "but it does not run here"))
			}
		})
	}
}

// A system or processor without a release is refused before any download,
// with exit 2 and a hint; Windows is pointed to WSL.
func TestInstallScriptUnsupported(t *testing.T) {
	srv := serve(t, t.TempDir())
	for _, tc := range []struct{ kernel, machine, says string }{
		{"MINGW64_NT-10.0-19045", "x86_64", "install it inside WSL"},
		{"FreeBSD", "amd64", "no architect release for this system (FreeBSD)"},
		{"Linux", "riscv64", "no architect release for this processor (riscv64)"},
		{"Darwin", "i386", "no architect release for this processor (i386)"},
	} {
		t.Run(tc.kernel+"_"+tc.machine, func(t *testing.T) {
			is := is.New(t)
			r := install(t, srv.URL+"/releases", tag, fakeUname(t, tc.kernel, tc.machine))
			is.Equal(r.code, 2)
			is.True(strings.HasPrefix(r.stderr, "architect install: error: "))
			is.True(strings.Contains(r.stderr, tc.says))
			is.Equal(len(srv.requested()), 0) // nothing downloaded
			is.Equal(installed(t, r.dir), []string(nil))
		})
	}
}

// An archive that does not match checksums.txt, or that checksums.txt does
// not list, is refused and nothing is installed.
func TestInstallScriptRefusesMismatch(t *testing.T) {
	d := dist(t)
	name := archiveName(runtime.GOOS, runtime.GOARCH)
	for _, tc := range []struct {
		name   string
		tamper func(dir string) error
		says   string
	}{
		{"tampered archive", func(dir string) error {
			p := filepath.Join(dir, name)
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			data[len(data)/2] ^= 0xff
			return os.WriteFile(p, data, 0o644)
		}, "checksum mismatch for " + name},
		{"replaced archive", func(dir string) error {
			// A well-formed archive whose binary is not the release's.
			var buf bytes.Buffer
			zw := gzip.NewWriter(&buf)
			tw := tar.NewWriter(zw)
			evil := []byte("#!/bin/sh\necho 'architect v9.8.7-snapshot (not the release)'\n")
			hdr := &tar.Header{Name: strings.TrimSuffix(name, ".tar.gz") + "/architect", Mode: 0o755, Size: int64(len(evil))}
			if err := tw.WriteHeader(hdr); err != nil {
				return err
			}
			if _, err := tw.Write(evil); err != nil {
				return err
			}
			if err := tw.Close(); err != nil {
				return err
			}
			if err := zw.Close(); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644)
		}, "checksum mismatch for " + name},
		{"unlisted archive", func(dir string) error {
			p := filepath.Join(dir, "checksums.txt")
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			var keep []string
			for _, l := range strings.SplitAfter(string(data), "\n") {
				if !strings.HasSuffix(strings.TrimSpace(l), "  "+name) {
					keep = append(keep, l)
				}
			}
			return os.WriteFile(p, []byte(strings.Join(keep, "")), 0o644)
		}, "checksums.txt of " + tag + " does not list " + name},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			dir := t.TempDir()
			for _, f := range []string{name, "checksums.txt"} {
				data, err := os.ReadFile(filepath.Join(d, f))
				is.NoErr(err)
				is.NoErr(os.WriteFile(filepath.Join(dir, f), data, 0o644))
			}
			is.NoErr(tc.tamper(dir))
			r := install(t, serve(t, dir).URL+"/releases", tag, "")
			is.Equal(r.code, 1)
			is.True(strings.Contains(r.stderr, "architect install: error: "+tc.says))
			is.True(strings.Contains(r.stderr, "nothing installed"))
			is.Equal(installed(t, r.dir), []string(nil))
		})
	}
}
