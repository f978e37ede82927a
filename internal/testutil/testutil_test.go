package testutil

import (
	"strings"
	"sync"
	"testing"
	"time"
)

// Writers and a reader at once: run with -race, a buffer without its lock
// fails here.
func TestBufferConcurrent(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				_, _ = b.Write([]byte("ab"))
				_ = b.String()
			}
		}()
	}
	wg.Wait()
	if b.Len() != 800 || b.String() != strings.Repeat("ab", 400) {
		t.Fatalf("got %d bytes: %q", b.Len(), b.String())
	}
}

func TestUntil(t *testing.T) {
	calls := 0
	if !Until(time.Second, func() bool { calls++; return calls == 3 }) {
		t.Fatal("a condition met on the third call was not seen")
	}
	if calls != 3 {
		t.Fatalf("%d calls, want 3: Until goes on after the condition held", calls)
	}
	began := time.Now()
	calls = 0
	if Until(50*time.Millisecond, func() bool { calls++; return false }) {
		t.Fatal("a condition never met was reported met")
	}
	if d := time.Since(began); d < 50*time.Millisecond {
		t.Fatalf("gave up after %s, before the 50ms limit", d)
	}
	if calls < 2 {
		t.Fatalf("%d calls: the condition is looked at again at the limit", calls)
	}
}

// A test that misses a tool is skipped and counted; the message names
// the count, the tools and how to install each. Under CI=true it fails instead (seen in the agent and
// e2e packages' runs).
func TestMissing(t *testing.T) {
	t.Setenv("CI", "")
	if got := missingText(); got != "" {
		t.Fatalf("a message before any skip: %q", got)
	}
	for _, tc := range []struct{ name, tool, install string }{
		{"a", "claude", "bash .ci/install-agents.sh"},
		{"b", "codex", "bash .ci/install-agents.sh"},
		{"c", "chromium", "apt-get install -y chromium"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			Missing(t, tc.tool, "/nowhere", tc.install)
			t.Fatal("Missing did not end the test")
		})
	}
	msg := missingText()
	for _, want := range []string{
		"testutil: 3 tests SKIPPED", "chromium, claude, codex not installed", "not a full test run",
		"bash .ci/install-agents.sh (claude, codex)", "apt-get install -y chromium (chromium)", "ARCHITECT_AGENT_BIN_DIR", "CI=true",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("the message lacks %q:\n%s", want, msg)
		}
	}
}
