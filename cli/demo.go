package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/proc"
	"github.com/architect-dev/architect/sandbox/broker"
	"github.com/architect-dev/architect/usererr"
	"github.com/spf13/cobra"
)

// demoAgentCommand is the hidden subcommand the demo runs as its agent, so
// the demo drives a real agent process like any other.
const demoAgentCommand = "__demo-agent"

var demoFiles = map[string]string{
	"go.mod": "module demo\n\ngo 1.21\n",
	"calc.go": `// Package calc is architect's demo: two functions with bugs.
package calc

// Add returns a + b.
func Add(a, b int) int { return a - b }

// Reverse returns s with its characters in reverse order.
func Reverse(s string) string { return s }
`,
	"calc_test.go": `package calc

import "testing"

func TestAdd(t *testing.T) {
	if got := Add(2, 3); got != 5 {
		t.Errorf("Add(2, 3) = %d, want 5", got)
	}
}

func TestReverse(t *testing.T) {
	if got := Reverse("héllo"); got != "olléh" {
		t.Errorf("Reverse(%q) = %q, want %q", "héllo", got, "olléh")
	}
}
`,
}

// demoFixes are the demo agent's repairs, keyed by the test that shows the bug.
var demoFixes = []struct{ test, broken, fixed string }{
	{"TestAdd", "return a - b", "return a + b"},
	{"TestReverse", "func Reverse(s string) string { return s }", `func Reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}`},
}

func newDemoCmd(e *env) *cobra.Command {
	var keep, noKeep, jsonOut bool
	c := &cobra.Command{
		Use:   "demo [--no-keep] [--json]",
		Short: "run a real loop with the built-in demo agent on a temporary repository",
		Long: `Builds a temporary Go repository with two failing tests and runs a real
loop on it with the built-in demo agent, which fixes one bug per iteration
using the check errors in its prompt. On a terminal the agent takes a few
seconds per iteration, so the view (and its keys, on the last line) can be
watched. The repository and its records (.architect/, with the report) are
kept afterwards; --no-keep removes them.`,
		Example: `  architect demo
  architect demo --no-keep  # remove the temporary repository afterwards`,
		GroupID: groupRun,
		Args:    noArgs("architect demo [--no-keep] [--json]"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDemo(cmd.Context(), e, !noKeep, jsonOut)
		},
	}
	c.Flags().BoolVar(&noKeep, "no-keep", false, "remove the temporary repository and its records afterwards")
	c.Flags().BoolVar(&keep, "keep", true, "keep the temporary repository afterwards (the default)")
	_ = c.Flags().MarkHidden("keep")
	c.Flags().BoolVar(&jsonOut, "json", false, "print the result as JSON on stdout")
	return c
}

// demoPace is how long the demo agent dwells on each step when the run is
// watched on a terminal: an iteration then lasts a few seconds, long
// enough to read the view. Without a terminal it does not wait.
const demoPace = 700 * time.Millisecond

// newDemoAgentCmd is the hidden command the demo runs as its agent.
func newDemoAgentCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:                demoAgentCommand,
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDemoAgent(e, args)
		},
	}
}

func runDemo(ctx context.Context, e *env, keep, jsonOut bool) error {
	if _, err := exec.LookPath("go"); err != nil {
		return &usererr.Error{Msg: "the demo's check is `go test ./...`, and go is not on PATH", Hint: "install Go from https://go.dev/dl/"}
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "architect-demo-")
	if err != nil {
		return err
	}
	if keep {
		defer fmt.Fprintf(e.stderr, "architect: demo: the repository and its records are kept in %s (--no-keep removes them)\n", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	for name, text := range demoFiles {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	if err := gitInitDemo(ctx, dir); err != nil {
		usererr.Say(e.stderr, usererr.LevelWarning, "demo without git (%v)", err)
	}
	cfg := config.Defaults()
	cfg.Task = "Make the tests of package calc pass: Add and Reverse are wrong. Fix one function per iteration."
	cfg.Checks = []string{"go test ./...", "go vet ./..."}
	cfg.Agent = "command"
	cfg.AgentCmd = shellQuote(self) + " " + demoAgentCommand
	if e.isTerminal() && !jsonOut {
		cfg.AgentCmd += " --pace " + demoPace.String()
	}
	cfg.MaxIterations = 5
	cfg.MaxTime = 5 * 60e9
	cfg.Dir = dir
	cfg.JSON = jsonOut
	fmt.Fprintf(e.stderr, "architect: demo: %s\n", cfg.Task)
	// The demo's agent is architect's own and calls no model: no process
	// of the demo needs a model key, so none keeps one.
	for _, k := range broker.ModelKeys {
		_ = os.Unsetenv(k)
	}
	return execute(ctx, e, cfg)
}

func gitInitDemo(ctx context.Context, dir string) error {
	env := append(os.Environ(), "GIT_AUTHOR_NAME=architect demo", "GIT_AUTHOR_EMAIL=demo@localhost",
		"GIT_COMMITTER_NAME=architect demo", "GIT_COMMITTER_EMAIL=demo@localhost")
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "-m", "demo: two failing tests"}} {
		// Through proc, like every process architect starts (git -q says
		// little: its whole output is kept for the error).
		var out bytes.Buffer
		res := proc.Run(ctx, "git", append([]string{"-C", dir}, args...), proc.Options{Env: env, Stdout: &out, Stderr: &out})
		var err error
		switch {
		case res.ExitCode == 0:
			continue
		case res.StartErr != nil:
			err = res.StartErr
		case res.Canceled:
			err = ctx.Err()
		case res.Signalled != "":
			err = fmt.Errorf("signal: %s", res.Signalled)
		default:
			err = fmt.Errorf("exit status %d", res.ExitCode)
		}
		return fmt.Errorf("git %s: %w: %s", args[0], err, strings.TrimSpace(out.String()))
	}
	return nil
}

// runDemoAgent is the demo's agent: it reads the prompt on stdin, fixes
// the bug behind the first failing test the prompt reports (or the first
// bug when no check has run yet), and declares completion when the prompt
// shows no other failing test.
//
// With --pace D it says what it does step by step, D apart, as a real
// agent would, so a person watching the view can follow it.
func runDemoAgent(e *env, args []string) error {
	var pace time.Duration
	if len(args) == 2 && args[0] == "--pace" {
		pace, _ = time.ParseDuration(args[1])
	}
	step := func(format string, a ...any) {
		if pace <= 0 {
			return
		}
		fmt.Fprintf(e.stdout, format+"\n", a...)
		time.Sleep(pace)
	}
	p, err := io.ReadAll(io.LimitReader(e.stdin, 16<<20))
	if err != nil {
		return err
	}
	step("reading the task and the failing checks in the prompt")
	src, err := os.ReadFile("calc.go")
	if err != nil {
		return err
	}
	step("reading calc.go")
	text := string(p)
	errorsSection := ""
	if i := strings.Index(text, "## Errors from Previous Iteration"); i >= 0 {
		errorsSection = text[i:]
	}
	var fixed string
	others := 0
	for _, f := range demoFixes {
		failing := errorsSection == "" || strings.Contains(errorsSection, "--- FAIL: "+f.test)
		if !failing || !strings.Contains(string(src), f.broken) {
			continue
		}
		if fixed != "" {
			others++
			continue
		}
		src = []byte(strings.Replace(string(src), f.broken, f.fixed, 1))
		fixed = f.test
	}
	if fixed != "" {
		step("%s fails: editing calc.go to fix it", fixed)
		if err := os.WriteFile("calc.go", src, 0o644); err != nil {
			return err
		}
	}
	final := "I found nothing to fix."
	switch {
	case fixed != "" && others == 0 && errorsSection != "":
		final = fmt.Sprintf("Fixed the bug behind %s; that was the last failing test.\n<promise>COMPLETE</promise>", fixed)
	case fixed != "":
		final = fmt.Sprintf("Fixed the bug behind %s. Other tests may still fail; the next iteration will see.", fixed)
	}
	fmt.Fprintln(e.stdout, final)
	if rf := os.Getenv("ARCHITECT_RESULT_FILE"); rf != "" {
		data, _ := json.Marshal(map[string]any{"cost_usd": 0.0, "steps": 2, "final_message": final})
		return os.WriteFile(rf, data, 0o600)
	}
	return nil
}
