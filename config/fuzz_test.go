package config

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzConfigYAML: whatever the file holds, loading it never panics, and a
// failure is a list of problems that each name where they are.
func FuzzConfigYAML(f *testing.F) {
	f.Add("ralph_loop:\n  checks: [\"go test ./...\"]\n  max_iterations: 5\n  protect: ['tests/**']\n  redact: ['ghp_[A-Za-z0-9]+']\n")
	f.Add("ralph_loop:\n  max_cost: abc\n  bogus: 1\n")
	f.Add("prices:\n  m: {input: 1, output: -2}\n")
	f.Add("ralph_loop: [1, 2]\n")
	f.Add("&a [*a]")
	f.Add("ralph_loop:\n  check_timeout: 2m\n  agent_args:\n    - {x: 1}\n")
	f.Fuzz(func(t *testing.T, data string) {
		path := filepath.Join(t.TempDir(), "ralph.yaml")
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := LoadFile(path)
		if err == nil {
			return
		}
		var es Errors
		if !errors.As(err, &es) || len(es) == 0 {
			t.Fatalf("LoadFile error %T %v: not a list of problems", err, err)
		}
		for _, e := range es {
			if e.Source == "" || e.Msg == "" {
				t.Fatalf("problem without a source or a message: %+v", e)
			}
		}
	})
}
