package agentbin

import (
	"os"
	"path/filepath"
	"testing"
)

func TestPath(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "claude")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ARCHITECT_AGENT_BIN_DIR", dir)
	if got := Path(t, "claude"); got != bin {
		t.Fatalf("Path = %q, want %q", got, bin)
	}

	t.Setenv("CI", "")
	var skipped bool
	t.Run("missing", func(t *testing.T) {
		defer func() { skipped = t.Skipped() }()
		Path(t, "no-such-agent-cli")
		t.Error("Path returned for a CLI that is not installed")
	})
	if !skipped {
		t.Fatal("a missing CLI did not skip the test")
	}
}

func TestRepoRoot(t *testing.T) {
	root := repoRoot()
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("repoRoot() = %q, which has no go.mod", root)
	}
	if _, err := os.Stat(filepath.Join(root, "internal", "agentbin")); err != nil {
		t.Fatalf("repoRoot() = %q, which is not this repository", root)
	}
}
