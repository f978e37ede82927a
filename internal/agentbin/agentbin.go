// Package agentbin finds the real agent CLIs that tests run against the
// stub model (internal/stubmodel): the one place that knows where
// .ci/install-agents.sh and .ci/install-aider.sh put them, for the agent
// package's real-CLI tests and the end-to-end tests alike.
package agentbin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/architect-dev/architect/internal/testutil"
)

// Path returns the executable of the agent CLI name (claude, codex, gemini,
// aider…): $ARCHITECT_AGENT_BIN_DIR/NAME, else
// <repo>/.cache/agents/node_modules/.bin/NAME (the npm CLIs
// .ci/install-agents.sh installs), else <repo>/.cache/aider/bin/NAME
// (aider's virtual environment, made by .ci/install-aider.sh). When it is
// missing the test is skipped and counted (testutil.Missing: the package's
// TestMain says so at the end), or fails under CI=true, where every CLI must
// be there.
func Path(t testing.TB, name string) string {
	t.Helper()
	var dirs []string
	if d := os.Getenv("ARCHITECT_AGENT_BIN_DIR"); d != "" {
		dirs = append(dirs, d)
	}
	if root := repoRoot(); root != "" {
		dirs = append(dirs, filepath.Join(root, ".cache", "agents", "node_modules", ".bin"),
			filepath.Join(root, ".cache", "aider", "bin"))
	}
	for _, d := range dirs {
		bin := filepath.Join(d, name)
		if _, err := os.Stat(bin); err == nil {
			return bin
		}
	}
	install := ".ci/install-agents.sh"
	if name == "aider" {
		install = ".ci/install-aider.sh"
	}
	testutil.Missing(t, name, strings.Join(dirs, ", "), "bash "+install)
	return ""
}

// repoRoot is the folder of the go.mod above the working directory (a
// test runs in its package's folder); "" if there is none.
func repoRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
}
