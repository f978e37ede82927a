//go:build unix

package doctest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"
)

var (
	digitsRE = regexp.MustCompile(`[0-9]+`)
	rulesRE  = regexp.MustCompile(`─{3,}$`)
)

// ViewShape is what a capture of the view must keep from run to run: its
// status line, the task line, the history's column heads, every section
// heading in order, and the keys line; numbers (times, costs, iterations
// left) as N and a heading's rule to the pane's edge left out. The agent's
// activity, the spinner, the sandbox line and the check's output vary with
// the machine and the instant, and are not compared.
func ViewShape(view string) []string {
	lines := strings.Split(strings.TrimRight(view, "\n"), "\n")
	var out []string
	for i, l := range lines {
		switch {
		case i == 0, strings.HasPrefix(l, "task: "), strings.HasPrefix(l, "   #  "), strings.HasPrefix(l, "── "):
			out = append(out, rulesRE.ReplaceAllString(digitsRE.ReplaceAllString(l, "N"), "─"))
		case i == len(lines)-1:
			out = append(out, l)
		}
	}
	return out
}

// pictureBlock is the text between README.md's picture markers.
func pictureBlock(t *testing.T, readme string) string {
	t.Helper()
	_, rest, ok := strings.Cut(readme, "<!-- picture: view ")
	if !ok {
		t.Fatal("README.md has no <!-- picture: view --> marker")
	}
	_, rest, _ = strings.Cut(rest, "```text\n")
	block, _, ok := strings.Cut(rest, "```\n<!-- end picture -->")
	if !ok {
		t.Fatal("README.md's view picture is not a ```text block ending at <!-- end picture -->")
	}
	return block
}

// TestPictures checks that the README's pictures are those of today's
// architect: docs/pictures/make.sh captures the view of a real `architect
// demo` in tmux and the headings of the report it wrote, and their shape
// must be that of docs/pictures/view.txt and report.txt (run `bash
// docs/pictures/make.sh` to make them again). README.md must hold view.txt
// as it is, and report.png must be a PNG under 150 KB.
func TestPictures(t *testing.T) {
	is := is.New(t)
	root := repoRoot(t)
	pics := filepath.Join(root, "docs", "pictures")
	view, err := os.ReadFile(filepath.Join(pics, "view.txt"))
	is.NoErr(err)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	is.NoErr(err)
	if pictureBlock(t, string(readme)) != string(view) {
		t.Error("README.md's view is not docs/pictures/view.txt: run bash docs/pictures/make.sh")
	}
	png, err := os.ReadFile(filepath.Join(pics, "report.png"))
	is.NoErr(err)
	is.True(bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n"))) // report.png is a PNG
	is.True(len(png) < 150<<10)                                // report.png stays small

	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("tmux is not installed: the view's picture cannot be checked")
		}
		t.Skip("tmux is not installed: the view's picture is not checked")
	}
	e := newEnv(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, "bash", filepath.Join(pics, "make.sh"), "--view-only", dir)
	c.Dir = root
	// The capture's tmux server is named, so that it ends with the test
	// even if make.sh is killed before its own clean-up.
	sock := fmt.Sprintf("architect-doctest-%d", os.Getpid())
	c.Env = append(e.vars, "PICTURES_TMUX_SOCKET="+sock)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", sock, "kill-server").Run() })
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("make.sh --view-only: %v\n%s", err, out)
	}
	got, err := os.ReadFile(filepath.Join(dir, "view.txt"))
	is.NoErr(err)
	if g, w := ViewShape(string(got)), ViewShape(string(view)); strings.Join(g, "\n") != strings.Join(w, "\n") {
		t.Errorf("the view no longer looks like docs/pictures/view.txt (run bash docs/pictures/make.sh):\nnow:\n%s\n\npicture:\n%s",
			strings.Join(g, "\n"), strings.Join(w, "\n"))
	}
	gotReport, err := os.ReadFile(filepath.Join(dir, "report.txt"))
	is.NoErr(err)
	wantReport, err := os.ReadFile(filepath.Join(pics, "report.txt"))
	is.NoErr(err)
	if string(gotReport) != string(wantReport) {
		t.Errorf("the report's headings are no longer those of docs/pictures/report.png (run bash docs/pictures/make.sh):\nnow:\n%s\npicture:\n%s", gotReport, wantReport)
	}
}

func TestViewShape(t *testing.T) {
	is := is.New(t)
	a := "architect · ● running · iteration 2/5 · $0.0000 · 3s · 4m57s left\ntask: T\n⠦ agent command 0s\nsandbox: x\n── History (1) ────────\n   #  checks      time\n  #1  ✗ 1/2       3.0s\n── iteration 2 ──\n  reading\n\np pause · q stop"
	b := "architect · ● running · iteration 2/5 · $0.0000 · 12s · 4m48s left\ntask: T\n⠴ agent command 1s\nsandbox: off\n── History (1) ──────────────\n   #  checks      time\n  #1  ✗ 1/2       9.9s\n── iteration 2 ──\n  reading\n  reading calc.go\n\np pause · q stop"
	is.Equal(ViewShape(a), ViewShape(b)) // timings, spinner, sandbox and activity differ
	is.Equal(ViewShape(a), []string{"architect · ● running · iteration N/N · $N.N · Ns · NmNs left", "task: T", "── History (N) ─", "   #  checks      time", "── iteration N ──", "p pause · q stop"})
	is.True(strings.Join(ViewShape(strings.Replace(a, "── History", "── Past", 1)), "") != strings.Join(ViewShape(a), "")) // a renamed section shows
	is.True(strings.Join(ViewShape(strings.Replace(a, "q stop", "q quit", 1)), "") != strings.Join(ViewShape(a), ""))      // changed keys show
}
