package testutil

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Tests that need a tool the machine lacks (an agent CLI, Chromium) skip
// on a developer's machine and fail under CI=true. A skipped test shows
// only under go test -v, so a green local run could pass for a full one:
// Missing counts the skips and SayMissing, called from the package's
// TestMain, says at the end how many tests did not run and how to
// install what they need.

var missing struct {
	mu      sync.Mutex
	tests   map[string]bool   // the tests that skipped
	install map[string]string // tool → how to install it
}

// Missing fails t under CI=true and skips it otherwise, because tool is
// not installed (looked names where it was looked for); install says how
// to install it (a command).
func Missing(t testing.TB, tool, looked, install string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s not installed (looked in %s): run %s", tool, looked, install)
	}
	missing.mu.Lock()
	if missing.tests == nil {
		missing.tests, missing.install = map[string]bool{}, map[string]string{}
	}
	missing.tests[t.Name()] = true
	missing.install[tool] = install
	missing.mu.Unlock()
	t.Skipf("%s not installed: run %s", tool, install)
}

// Main runs the package's tests, then SayMissing; it returns their exit
// status. A package whose tests may call Missing has
//
//	func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }
func Main(m *testing.M) int {
	code := m.Run()
	SayMissing()
	return code
}

// SayMissing writes, once the package's tests have run, how many tests
// skipped for want of a tool, which tools and how to install them; nothing
// when none did. It writes to stderr, which go test shows with -v, -json
// or a failure; and, since go test ./... hides a passing package's output,
// also to the terminal (/dev/tty) when there is one and -v is off.
func SayMissing() {
	msg := missingText()
	if msg == "" {
		return
	}
	fmt.Fprint(os.Stderr, msg)
	if testing.Verbose() {
		return
	}
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		_, _ = io.WriteString(tty, msg)
		_ = tty.Close()
	}
}

// missingText is SayMissing's message.
func missingText() string {
	missing.mu.Lock()
	defer missing.mu.Unlock()
	if len(missing.tests) == 0 {
		return ""
	}
	var tools, installs []string
	byInstall := map[string][]string{}
	agents := false
	for tool, install := range missing.install {
		tools = append(tools, tool)
		if byInstall[install] == nil {
			installs = append(installs, install)
		}
		byInstall[install] = append(byInstall[install], tool)
		agents = agents || strings.Contains(install, ".ci/install-")
	}
	slices.Sort(tools)
	slices.Sort(installs)
	var how []string
	for _, install := range installs {
		slices.Sort(byInstall[install])
		how = append(how, fmt.Sprintf("%s (%s)", install, strings.Join(byInstall[install], ", ")))
	}
	if agents {
		how = append(how, "or set ARCHITECT_AGENT_BIN_DIR to a folder that holds the agent CLIs")
	}
	pkg := "this package"
	if wd, err := os.Getwd(); err == nil {
		pkg = filepath.Base(wd)
	}
	tests := "tests"
	if len(missing.tests) == 1 {
		tests = "test"
	}
	return fmt.Sprintf("%s: %d %s SKIPPED, not run: %s not installed; this was not a full test run\n"+
		"%s: to run them: %s; under CI=true they fail instead\n",
		pkg, len(missing.tests), tests, strings.Join(tools, ", "), pkg, strings.Join(how, "; "))
}
