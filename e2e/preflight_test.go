//go:build unix

package e2e

import (
	"context"
	"os"
	"regexp"
	"testing"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/internal/agentbin"
	"github.com/architect-dev/architect/preflight"
)

// The real CLIs pass the pre-flight: each answers --version, which is
// shown.
func TestPreflightRealCLIs(t *testing.T) {
	for _, name := range []string{"claude", "codex", "gemini"} {
		t.Run(name, func(t *testing.T) {
			bin := agentbin.Path(t, name)
			t.Setenv("HOME", t.TempDir())
			// Claude Code refuses root without IS_SANDBOX=1, and the
			// pre-flight says so first; CI runs as root in a sandbox.
			t.Setenv("IS_SANDBOX", "1")
			ag, err := agent.New(agent.Config{Name: name, Bin: bin})
			if err != nil {
				t.Fatal(err)
			}
			cfg := config.Defaults()
			cfg.Dir = os.TempDir()
			r := preflight.Run(context.Background(), cfg, ag, preflight.Options{NoWorkspace: true})
			if err := r.Err(); err != nil {
				t.Fatal(err)
			}
			it := r.Items[0]
			if it.Check != "agent "+name || it.Status != preflight.OK || !regexp.MustCompile(`^\S*\s*\d+\.\d+\.\d+`).MatchString(it.Detail) {
				t.Fatalf("got %+v, want the CLI's version", it)
			}
			t.Log(it.Detail)
		})
	}
}
