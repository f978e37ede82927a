package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// A page for every command, with its flags and examples; man renders them.
func TestManPages(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	is.NoErr(generate(dir))
	for _, name := range []string{"architect", "architect-loop", "architect-merge", "architect-init", "architect-completion-zsh", "architect-version"} {
		data, err := os.ReadFile(filepath.Join(dir, name+".1"))
		is.NoErr(err) // name
		is.True(strings.HasPrefix(string(data), ".nh\n.TH \"ARCHITECT\" \"1\""))
	}
	page, err := os.ReadFile(filepath.Join(dir, "architect-loop.1"))
	is.NoErr(err)
	is.True(strings.Contains(string(page), "--max-iterations"))
	is.True(strings.Contains(string(page), "EXAMPLE"))
	_, err = os.Stat(filepath.Join(dir, "architect-__demo-agent.1"))
	is.True(os.IsNotExist(err)) // hidden commands have no page

	if _, err := exec.LookPath("man"); err != nil {
		t.Skip("man is not installed")
	}
	cmd := exec.Command("man", "-l", filepath.Join(dir, "architect-loop.1"))
	cmd.Env = append(os.Environ(), "MANPAGER=cat", "PAGER=cat", "MANWIDTH=100")
	out, err := cmd.CombinedOutput()
	is.NoErr(err)
	text := string(out)
	is.True(strings.Contains(text, "--max-iterations"))
	is.True(strings.Contains(text, "architect loop -c ralph.yaml --dry-run"))
	// Markdown in the help texts is not interpreted
	is.True(strings.Contains(text, "<promise>TAG</promise>"))
	is.True(strings.Contains(text, "ralph_loop:"))
	is.True(strings.Contains(text, "PROMPT_<mode>.md"))
}
