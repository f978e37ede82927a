// Package release_test builds architect's release the way a tag does
// (.goreleaser.yaml, with the real GoReleaser from the module proxy), as a
// snapshot from a clean copy of this repository, and checks what it makes:
// the archives, checksums.txt, the SBOMs and the Homebrew formula; then
// install.sh and the GitHub Action's download of a release against a local
// HTTP server serving that snapshot.
//
// The snapshot is built once per test binary and shared. Skipped under
// -short: building GoReleaser and four architect binaries costs minutes
// cold (see docs/install.md for the figures).
package release_test

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"debug/elf"
	"debug/macho"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/architect-dev/architect/internal/acttest"
	"github.com/matryer/is"
)

// The tools the build installs, at the versions .goreleaser.yaml and the
// release workflow name.
const (
	goreleaser = "github.com/goreleaser/goreleaser/v2@v2.15.1"
	cyclonedx  = "github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod@v1.10.0"
	tag        = "v9.8.7"
	version    = "v9.8.7-snapshot" // .goreleaser.yaml: snapshot.version_template
)

// platforms are the archives a release has.
var platforms = []struct{ os, arch string }{
	{"linux", "amd64"}, {"linux", "arm64"}, {"darwin", "amd64"}, {"darwin", "arm64"},
}

func archiveName(goos, goarch string) string { return "architect_" + goos + "_" + goarch + ".tar.gz" }

var snap struct {
	once sync.Once
	root string // removed by TestMain
	src  string // the clean copy, a git repository tagged v9.8.7
	dist string
	home string
	err  error
	log  string
}

func TestMain(m *testing.M) {
	code := m.Run()
	if snap.root != "" {
		_ = os.RemoveAll(snap.root)
	}
	os.Exit(code)
}

// dist builds the snapshot once and returns its dist folder.
func dist(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the release snapshot (minutes cold); skipped with -short")
	}
	snap.once.Do(func() { snap.err = build(t) })
	if snap.err != nil {
		t.Fatalf("building the snapshot: %v\n%s", snap.err, snap.log)
	}
	return snap.dist
}

func goEnv(name string) string {
	out, _ := exec.Command("go", "env", name).Output()
	return strings.TrimSpace(string(out))
}

// env is the environment of the build's commands: a fixed HOME and git
// identity, the caller's Go caches (so that a warm run needs no network).
func env() []string {
	var out []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "GIT_") || k == "HOME" || k == "GOFLAGS" {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "HOME="+snap.home, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Release Test", "GIT_AUTHOR_EMAIL=release@example.com",
		"GIT_COMMITTER_NAME=Release Test", "GIT_COMMITTER_EMAIL=release@example.com",
		"GOCACHE="+goEnv("GOCACHE"), "GOMODCACHE="+goEnv("GOMODCACHE"), "GOPATH="+goEnv("GOPATH"),
		"GOTOOLCHAIN=local", "GOFLAGS=", "GITHUB_TOKEN=")
}

func build(t *testing.T) error {
	var err error
	if snap.root, err = os.MkdirTemp("", "architect-release-"); err != nil {
		return err
	}
	snap.src = filepath.Join(snap.root, "src")
	snap.home = filepath.Join(snap.root, "home")
	bin := filepath.Join(snap.root, "bin")
	for _, d := range []string{snap.home, bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	var log strings.Builder
	run := func(dir string, extra []string, name string, args ...string) error {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir = dir
		cmd.Env = append(env(), extra...)
		start := time.Now()
		out, err := cmd.CombinedOutput()
		fmt.Fprintf(&log, "$ %s %s (%s)\n%s", name, strings.Join(args, " "), time.Since(start).Round(time.Second/10), out)
		t.Logf("%s %s: %s", name, strings.Join(args, " "), time.Since(start).Round(time.Second/10))
		if err != nil {
			return fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
		}
		return nil
	}
	defer func() { snap.log = log.String() }()
	for _, tool := range []string{goreleaser, cyclonedx} {
		if err := run(snap.root, []string{"GOBIN=" + bin}, "go", "install", tool); err != nil {
			return err
		}
	}
	if err := copySource(acttest.ModuleRoot(t), snap.src); err != nil {
		return err
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "release fixture"}, {"tag", tag},
		// GoReleaser reads the remote's URL (never contacted in a snapshot);
		// without one it ignores the git state, tag included.
		{"remote", "add", "origin", "https://github.com/architect-dev/architect.git"}} {
		if err := run(snap.src, nil, "git", args...); err != nil {
			return err
		}
	}
	path := "PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")
	if err := run(snap.src, []string{path}, filepath.Join(bin, "goreleaser"), "release", "--snapshot", "--clean"); err != nil {
		return err
	}
	snap.dist = filepath.Join(snap.src, "dist")
	return nil
}

// copySource copies the files git tracks or would track (nothing ignored:
// no dist/, no .release/), as a clone of the working tree would have them.
func copySource(root, dst string) error {
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "-co", "--exclude-standard").Output()
	if err != nil {
		return fmt.Errorf("listing the source files: %w", err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		src := filepath.Join(root, filepath.FromSlash(name))
		fi, err := os.Lstat(src)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		data, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		p := filepath.Join(dst, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, fi.Mode().Perm()); err != nil {
			return err
		}
	}
	return nil
}

// unpack reads a .tar.gz into memory: name → content, and name → mode.
func unpack(t *testing.T, path string) (map[string][]byte, map[string]os.FileMode) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	files, modes := map[string][]byte{}, map[string]os.FileMode{}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		data, err := io.ReadAll(io.LimitReader(tr, 256<<20))
		if err != nil {
			t.Fatal(err)
		}
		files[h.Name], modes[h.Name] = data, h.FileInfo().Mode()
	}
	return files, modes
}

// binaryPlatform reads the OS and architecture of an executable from its
// ELF or Mach-O header, and for ELF whether it is static (no interpreter).
func binaryPlatform(data []byte) (goos, goarch string, static bool, err error) {
	if f, err := elf.NewFile(bytes.NewReader(data)); err == nil {
		static = true
		for _, p := range f.Progs {
			static = static && p.Type != elf.PT_INTERP
		}
		switch f.Machine {
		case elf.EM_X86_64:
			return "linux", "amd64", static, nil
		case elf.EM_AARCH64:
			return "linux", "arm64", static, nil
		}
		return "linux", f.Machine.String(), static, nil
	}
	f, err := macho.NewFile(bytes.NewReader(data))
	if err != nil {
		return "", "", false, fmt.Errorf("neither ELF nor Mach-O: %w", err)
	}
	switch f.Cpu {
	case macho.CpuAmd64:
		return "darwin", "amd64", true, nil
	case macho.CpuArm64:
		return "darwin", "arm64", true, nil
	}
	return "darwin", f.Cpu.String(), true, nil
}

// checksums reads checksums.txt: file name → sha256.
func checksums(t *testing.T, dir string) map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sums := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("checksums.txt: bad line %q", sc.Text())
		}
		sums[name] = sum
	}
	return sums
}

func sha(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// Every archive unpacks to a static binary of its OS and architecture,
// with the man pages and the completions; the one for this machine runs
// and names the version.
func TestArchives(t *testing.T) {
	d := dist(t)
	for _, p := range platforms {
		t.Run(p.os+"_"+p.arch, func(t *testing.T) {
			is := is.New(t)
			files, modes := unpack(t, filepath.Join(d, archiveName(p.os, p.arch)))
			top := "architect_" + p.os + "_" + p.arch + "/"
			bin, ok := files[top+"architect"]
			is.True(ok) // the binary is in the archive's folder
			is.True(modes[top+"architect"]&0o111 != 0)
			goos, goarch, static, err := binaryPlatform(bin)
			is.NoErr(err)
			is.Equal(goos, p.os)
			is.Equal(goarch, p.arch)
			is.True(static) // CGO_ENABLED=0: no dynamic loader
			for name, want := range map[string]string{
				"man/man1/architect.1":       `.TH "ARCHITECT" "1"`,
				"man/man1/architect-loop.1":  "max-iterations",
				"completions/architect.bash": "__start_architect",
				"completions/_architect":     "#compdef architect",
				"completions/architect.fish": "complete -c architect",
				"docs/install.md":            "install.sh",
			} {
				is.True(bytes.Contains(files[top+name], []byte(want))) // name
			}
			if p.os != runtime.GOOS || p.arch != runtime.GOARCH {
				return
			}
			exe := filepath.Join(t.TempDir(), "architect")
			is.NoErr(os.WriteFile(exe, bin, 0o755))
			out, err := exec.Command(exe, "--version").CombinedOutput()
			is.NoErr(err)
			is.True(strings.HasPrefix(string(out), "architect "+version+" (")) // --version names the tag
		})
	}
}

// checksums.txt lists every archive and SBOM, and each sum verifies.
func TestChecksums(t *testing.T) {
	is := is.New(t)
	d := dist(t)
	sums := checksums(t, d)
	for _, p := range platforms {
		a := archiveName(p.os, p.arch)
		is.True(sums[a] != "")             // the archive is listed
		is.True(sums[a+".cdx.json"] != "") // its SBOM is listed
	}
	is.Equal(len(sums), 2*len(platforms))
	for name, sum := range sums {
		is.Equal(sha(t, filepath.Join(d, name)), sum) // name
	}
}

// Each archive has a CycloneDX SBOM of the module graph it was built from.
func TestSBOMs(t *testing.T) {
	d := dist(t)
	for _, p := range platforms {
		t.Run(p.os+"_"+p.arch, func(t *testing.T) {
			is := is.New(t)
			data, err := os.ReadFile(filepath.Join(d, archiveName(p.os, p.arch)+".cdx.json"))
			is.NoErr(err)
			var bom struct {
				BOMFormat string `json:"bomFormat"`
				Metadata  struct {
					Component struct{ Name string } `json:"component"`
				} `json:"metadata"`
				Components []struct{ Name, Version string } `json:"components"`
			}
			is.NoErr(json.Unmarshal(data, &bom))
			is.Equal(bom.BOMFormat, "CycloneDX")
			is.Equal(bom.Metadata.Component.Name, "github.com/architect-dev/architect")
			names := map[string]bool{}
			for _, c := range bom.Components {
				names[c.Name] = true
			}
			is.True(names["github.com/spf13/cobra"]) // a dependency
		})
	}
}

// The formula names every archive with its sha256.
func TestFormula(t *testing.T) {
	is := is.New(t)
	d := dist(t)
	data, err := os.ReadFile(filepath.Join(d, "homebrew", "Formula", "architect.rb"))
	is.NoErr(err)
	formula := string(data)
	sums := checksums(t, d)
	for _, p := range platforms {
		a := archiveName(p.os, p.arch)
		i := strings.Index(formula, "/download/"+tag+"/"+a+`"`)
		is.True(i > 0) // the archive's URL
		rest := formula[i:]
		j := strings.Index(rest, `sha256 "`)
		is.True(j > 0)
		is.Equal(rest[j+len(`sha256 "`):j+len(`sha256 "`)+64], sums[a]) // the sha256 that follows its URL
	}
	is.True(strings.Contains(formula, `man1.install`))
	is.True(strings.Contains(formula, `zsh_completion.install`))
}
