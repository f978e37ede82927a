package preflight

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/config"
	"github.com/matryer/is"
)

func TestScriptPaths(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"scripts/ok.sh", "check.py", "bin/test"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		script  string
		missing []string
	}{
		{"./scripts/lint.sh", []string{"./scripts/lint.sh"}},
		{"./scripts/ok.sh && bin/test", nil},
		{"scripts/lint.sh --fix | tail -3", []string{"scripts/lint.sh"}},
		{"sh scripts/lint.sh", []string{"scripts/lint.sh"}},
		{"bash -x ci/test.sh", []string{"ci/test.sh"}},
		{"python3 tools/check.py; python3 check.py", []string{"tools/check.py"}},
		{"node dist/test.js", []string{"dist/test.js"}},
		{"env CI=1 ./run-tests", []string{"./run-tests"}},
		{"timeout 60 ./slow.sh", []string{"./slow.sh"}},
		{"/nonexistent/architect-tool", []string{"/nonexistent/architect-tool"}},
		{"python -m pytest", nil},                                  // a module, not a file
		{"bash -c 'x'", nil},                                       // code, not a file
		{"node -r ts-node/register a.ts", nil},                     // an option with a value: no guess
		{"go test ./... 2>&1 | tail -5", nil},                      // ./... is an argument
		{"cd web && ./scripts/lint.sh", nil},                       // relative to another folder
		{"$ROOT/lint.sh; ./scripts/*.sh", nil},                     // not plain, a glob
		{"make build && ./out/app --check", []string{"./out/app"}}, // a warning only: a build may make it
		{"sh scripts/lint.sh; sh scripts/lint.sh", []string{"scripts/lint.sh"}},
		{"if [ -f x ; then", nil},
	} {
		is.New(t).Equal(ScriptPaths(tc.script, dir), tc.missing) // tc.script
	}
}

func TestSuggest(t *testing.T) {
	bin := t.TempDir()
	for _, name := range []string{"mytool", "golangci-lint", "notexec"} {
		mode := os.FileMode(0o755)
		if name == "notexec" {
			mode = 0o644
		}
		if err := os.WriteFile(filepath.Join(bin, name), nil, mode); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	for _, tc := range []struct{ name, want string }{
		{"pytets", "pytest"},              // a swap: one edit, from the common tools
		{"pyest", "pytest"},               // a letter left out
		{"golangci-lnt", "golangci-lint"}, // on PATH
		{"mytol", "mytool"},               // on PATH only
		{"gti", "git"},                    // short names: one edit at most
		{"ruff", ""},                      // diff, buff...: two edits are too many for 4 letters
		{"notexecc", ""},
		{"pytest", ""}, // a known tool that is not installed, not a misspelt vitest                  // not an executable
		{"go", ""},     // too short to guess
		{"completely-unknown-program", ""},
	} {
		is.New(t).Equal(Suggest(tc.name), tc.want) // tc.name
	}
}

// The pre-flight says what runs the checks, refuses a shell without
// pipefail, names the program a misspelt one likely meant, and warns about
// a script path that is not there.
func TestCheckItems(t *testing.T) {
	is := is.New(t)
	cfg := config.Defaults()
	cfg.Dir = t.TempDir()
	cfg.Checks = []string{"false | tail -1", "./scripts/lint.sh", "pytets -q"}
	ag := commandAgent(t, "true")
	r := Run(context.Background(), cfg, ag, Options{NoWorkspace: true})
	sh := item(r, "check shell")
	is.Equal(sh.Status, OK)
	is.True(strings.Contains(sh.Detail, "checks run with "))
	is.True(strings.Contains(sh.Detail, "pipefail"))
	first := item(r, "check `false | tail -1`")
	is.Equal(first.Status, OK)
	is.True(strings.HasPrefix(first.Detail, "runs with ")) // how the check runs
	is.True(strings.Contains(first.Detail, "pipefail"))
	var lint []Item
	for _, it := range r.Items {
		if it.Check == "check `./scripts/lint.sh`" {
			lint = append(lint, it)
		}
	}
	is.Equal(len(lint), 2)
	is.Equal(lint[1].Status, Warn)
	is.Equal(lint[1].Detail, "./scripts/lint.sh does not exist in "+cfg.Dir+": the check fails unless something makes it first")
	typo := item(r, "check `pytets -q`")
	is.Equal(typo.Status, Fail)
	is.True(strings.HasSuffix(typo.Detail, "; did you mean `pytest`?"))
	is.True(strings.HasPrefix(typo.Hint, "fix the check, or install pytets"))

	cfg.Checks = []string{"true"}
	cfg.CheckShell = "architect-no-such-shell"
	r = Run(context.Background(), cfg, ag, Options{NoWorkspace: true})
	sh = item(r, "check shell")
	is.Equal(sh.Status, Fail)
	is.Equal(sh.Detail, "--check-shell: the check shell architect-no-such-shell is not installed (not found on PATH)")
	is.True(r.Err() != nil)

	cfg.Checks, cfg.NoChecks, cfg.OnFinish = nil, true, "notify.sh"
	cfg.CheckShell = ""
	r = Run(context.Background(), cfg, ag, Options{NoWorkspace: true})
	is.True(strings.HasPrefix(item(r, "check shell").Detail, "checks and hooks run with "))
}

// Claude Code as root refuses --dangerously-skip-permissions unless
// IS_SANDBOX=1: caught before the first iteration.
func TestClaudeAsRoot(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "claude")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho 2.1.0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ag, err := agent.New(agent.Config{Name: "claude", Bin: bin})
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Defaults()
	for _, tc := range []struct {
		euid       int
		sandbox    string
		bubblewrap string
		status     Status
	}{
		{0, "", "", Fail},
		{0, "yes", "", Fail},
		{0, "1", "", OK},
		{0, "", "1", OK}, // Claude Code takes its bubblewrap sandbox as IS_SANDBOX=1
		{0, "", "0", Fail},
		{1000, "", "", OK},
	} {
		is := is.New(t)
		r := Run(context.Background(), cfg, ag, Options{NoWorkspace: true,
			Geteuid: func() int { return tc.euid },
			Getenv: func(k string) string {
				switch k {
				case "IS_SANDBOX":
					return tc.sandbox
				case "CLAUDE_CODE_BUBBLEWRAP":
					return tc.bubblewrap
				}
				return ""
			}})
		it := item(r, "agent claude")
		is.Equal(it.Status, tc.status) // tc
		if tc.status == Fail {
			is.True(strings.Contains(it.Detail, "architect runs as root, and Claude Code refuses"))
			is.Equal(it.Hint, "if this machine is a sandbox (a container or VM with nothing to lose), set IS_SANDBOX=1; otherwise run architect as a normal user")
		}
	}
}
