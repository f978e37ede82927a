//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Every row of the door test runs in a folder of its own:
//
//	ws/   the workspace: a git repository with one commit (and, for the
//	      commands that read a run, a finished run in .architect/)
//	fx/   the fixtures the path values name, and the files under test
//	tmp/  TMPDIR
//
// The command runs in ws, so "../fx/NAME" names a fixture both from the
// command line and from a file in fx.
type doorFixture struct {
	bin   string // the architect binary
	base  string // where the rows' folders are made
	clean string // template row folder: ws has no run
	ran   string // template row folder: ws holds a finished run
	env   []string
	n     atomic.Int64
}

const fxRel = "../fx"

// baseYAML is the loop every row starts from: an agent that does nothing,
// a check that passes, one iteration, and no wait after a failed one.
const baseYAML = `ralph_loop:
  task: make the door hold
  agent_cmd: "true"
  checks: ["true"]
  max_iterations: 1
  backoff_cap: 0
`

// baseBatch is the batch every batch row starts from: one such task.
const baseBatch = `defaults:
  task: make the door hold
  agent_cmd: "true"
  checks: ["true"]
  max_iterations: 1
tasks:
  - id: r
`

func newDoorFixture(t *testing.T) *doorFixture {
	t.Helper()
	base := t.TempDir()
	home := filepath.Join(base, "home")
	gitconfig := filepath.Join(home, ".gitconfig")
	fatalIf(t, os.MkdirAll(home, 0o755))
	fatalIf(t, os.WriteFile(gitconfig, []byte("[user]\n\tname = Door\n\temail = door@example.com\n[init]\n\tdefaultBranch = main\n"), 0o644))
	f := &doorFixture{base: base, clean: filepath.Join(base, "tmpl-clean"), ran: filepath.Join(base, "tmpl-ran"), bin: buildArchitect(t, base)}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "ARCHITECT_"), strings.HasPrefix(k, "GITHUB_"), strings.HasPrefix(k, "GIT_"),
			k == "HOME", k == "TMPDIR", k == "TERM", k == "NO_COLOR", k == "CI":
			continue
		}
		f.env = append(f.env, kv)
	}
	f.env = append(f.env, "HOME="+home, "GIT_CONFIG_GLOBAL="+gitconfig, "GIT_CONFIG_NOSYSTEM=1", "TERM=dumb",
		"GORACE=atexit_sleep_ms=0", "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z")
	for _, root := range []string{f.clean, f.ran} {
		ws := filepath.Join(root, "ws")
		fatalIf(t, os.MkdirAll(ws, 0o755))
		fatalIf(t, os.WriteFile(filepath.Join(ws, "file.txt"), []byte("x\n"), 0o644))
		for _, args := range [][]string{{"init", "-q", "--template="}, {"add", "-A"}, {"commit", "-qm", "initial"}} {
			cmd := exec.Command("git", args...)
			cmd.Dir, cmd.Env = ws, f.env
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
		fatalIf(t, makeFixtures(filepath.Join(root, "fx")))
		fatalIf(t, os.MkdirAll(filepath.Join(root, "tmp"), 0o755))
	}
	res := f.run(context.Background(), f.ran, nil, 60*time.Second, "loop", "-c", fxRel+"/base.yaml")
	if res.code != 1 {
		t.Fatalf("the finished run the control commands read: exit %d\n%s", res.code, res.stderr)
	}
	return f
}

// buildArchitect builds the binary as users build it, once: the rows run
// it thousands of times, and the test binary (race-instrumented under go
// test -race) takes three times the CPU to start. After go vet ./..., as
// in CI, the build reuses its compiled packages: about two seconds.
func buildArchitect(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "bin", "architect")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/architect-dev/architect/cmd/architect").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// makeFixtures fills fx with one thing of each sort a path can name.
func makeFixtures(fx string) error {
	if err := os.MkdirAll(filepath.Join(fx, "folder"), 0o755); err != nil {
		return err
	}
	for name, text := range map[string]string{
		"file.md": "# the door\nmake it hold\n", "base.yaml": baseYAML, "batch.yaml": baseBatch,
		"bad\xffname.md": "odd name\n", "new\nline.md": "odd name\n", "\x1b[31mred.md": "odd name\n",
		"unreadable": "secret\n",
	} {
		if err := os.WriteFile(filepath.Join(fx, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return errors.Join(
		os.Chmod(filepath.Join(fx, "unreadable"), 0),
		syscall.Mkfifo(filepath.Join(fx, "fifo"), 0o644),
		os.Symlink("loop", filepath.Join(fx, "loop")),
		os.Symlink("missing-target", filepath.Join(fx, "dangling")),
	)
}

func fatalIf(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// newRow makes a row's folder from a template (ran: the one whose
// workspace holds a finished run) and returns its path.
func (f *doorFixture) newRow(ran bool) (string, error) {
	tmpl := f.clean
	if ran {
		tmpl = f.ran
	}
	root := filepath.Join(f.base, fmt.Sprintf("row%d", f.n.Add(1)))
	if err := copyTree(tmpl, root); err != nil {
		return "", fmt.Errorf("copying the template: %w", err)
	}
	// The finished run's records name its workspace by absolute path.
	return root, filepath.WalkDir(filepath.Join(root, "ws", ".architect"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.Contains(d.Name(), ".json") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err == nil {
			err = os.WriteFile(p, bytes.ReplaceAll(data, []byte(tmpl), []byte(root)), 0o600)
		}
		return err
	})
}

// A desk is a worker's row folder, used by one row after another as long
// as each leaves it as it found it; a row that writes gets the next row a
// fresh copy.
type desk struct {
	dir      string
	pristine map[string]string
}

// desk returns a row folder from the template (ran: the finished run's),
// reusing the worker's own when it has one.
func (f *doorFixture) desk(desks map[bool]*desk, ran bool) (*desk, error) {
	if d := desks[ran]; d != nil {
		return d, nil
	}
	dir, err := f.newRow(ran)
	if err != nil {
		return nil, err
	}
	d := &desk{dir: dir, pristine: snapshot(dir)}
	desks[ran] = d
	return d, nil
}

// release takes the row's file away, and the desk too unless it is as it
// was (git's empty blob, which a dry run may leave, aside).
func (f *doorFixture) release(desks map[bool]*desk, ran bool) {
	d := desks[ran]
	_ = os.Remove(filepath.Join(d.dir, "fx", "row.yaml"))
	if os.Remove(filepath.Join(d.dir, emptyBlob)) == nil {
		_ = os.Remove(filepath.Join(d.dir, filepath.Dir(emptyBlob)))
	}
	if len(changes(d.pristine, snapshot(d.dir))) > 0 {
		_ = os.RemoveAll(d.dir)
		delete(desks, ran)
	}
}

// copyTree copies a folder with its files, links and FIFOs, keeping modes.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(to, fi.Mode().Perm())
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, to)
		case fi.Mode()&fs.ModeNamedPipe != 0:
			return syscall.Mkfifo(to, uint32(fi.Mode().Perm()))
		case fi.Mode().Perm() == 0:
			return os.WriteFile(to, nil, 0) // unreadable: nothing to copy
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, data, fi.Mode().Perm())
	})
}

// snapshot describes every entry under root (links not followed): what a
// refusal must leave exactly as it was.
func snapshot(root string) map[string]string {
	m := map[string]string{}
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		// A folder's time changes when a temporary file comes and goes:
		// what counts is what is left in it.
		desc := fi.Mode().String()
		if !fi.IsDir() {
			desc += fmt.Sprintf(" %d %d", fi.ModTime().UnixNano(), fi.Size())
		}
		m[rel] = desc
		return nil
	})
	return m
}

// emptyBlob is the loose object git writes for the empty blob when `git
// add --intent-to-add` meets a file whose stat data the index does not
// match (a freshly copied repository): the diff of a dry run may leave it.
var emptyBlob = filepath.Join("ws", ".git", "objects", "e6", "9de29bb2d1d6434b8b29ae775ad8c2e48c5391")

// withoutEmptyBlob is a snapshot without git's empty blob and its folder.
func withoutEmptyBlob(m map[string]string) map[string]string {
	delete(m, emptyBlob)
	delete(m, filepath.Dir(emptyBlob))
	return m
}

// changes lists what differs between two snapshots, at most 8 entries.
func changes(before, after map[string]string) []string {
	var out []string
	for p, a := range after {
		if b, ok := before[p]; !ok {
			out = append(out, "created "+p)
		} else if a != b {
			out = append(out, "changed "+p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			out = append(out, "removed "+p)
		}
	}
	sort.Strings(out)
	if len(out) > 8 {
		out = append(out[:8], fmt.Sprintf("… %d more", len(out)-8))
	}
	return out
}

// outcome is how one run of the binary ended.
type outcome struct {
	code           int // -1: killed at the time limit
	stdout, stderr string
	dir            string // the row's folder
}

// run runs architect in root/ws with the fixture's environment and extra,
// killing its whole process group at the end (and at the time limit).
func (f *doorFixture) run(ctx context.Context, root string, extra []string, limit time.Duration, args ...string) outcome {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, f.bin, args...)
	cmd.Dir = filepath.Join(root, "ws")
	cmd.Env = append(append(append([]string(nil), f.env...), "TMPDIR="+filepath.Join(root, "tmp")), extra...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	o := outcome{code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String(), dir: root}
	if ctx.Err() != nil {
		o.code = -1
	} else if err != nil && cmd.ProcessState == nil {
		o.code, o.stderr = -2, err.Error()
	}
	return o
}
