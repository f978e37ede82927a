package cli

import (
	"strings"
	"testing"
)

// `architect help CMD` and `CMD --help` print the same text, on stdout;
// flags are grouped; every command has examples.
func TestHelpSameBothWays(t *testing.T) {
	loop := mainIn(t, "", "help", "loop").status(t, 0)
	viaFlag := mainIn(t, "", "loop", "--help").status(t, 0)
	if viaFlag.stdout != loop.stdout {
		t.Errorf("loop --help differs from help loop:\n%s\n---\n%s", viaFlag.stdout, loop.stdout)
	}
	if viaFlag.stderr != "" {
		t.Errorf("loop --help wrote on stderr: %q", viaFlag.stderr)
	}
	for _, want := range []string{
		`^Examples:$`, `^  architect loop -c ralph.yaml --dry-run$`, `^Task and prompt:$`, `^Agent:$`, `^Checks:$`,
		`^Limits:$`, `^Workspace:$`, `^Supervision:$`, `^Output:$`, `^  -c, --config file  `, `^      --max-cost USD  `,
	} {
		has(t, "loop --help", viaFlag.stdout, want)
	}
	for _, c := range [][]string{{"batch"}, {"completion", "bash"}} {
		a := mainIn(t, "", append([]string{"help"}, c...)...).status(t, 0)
		b := mainIn(t, "", append(c, "--help")...).status(t, 0)
		if a.stdout != b.stdout {
			t.Errorf("help %v differs from %v --help", c, c)
		}
	}
	// every command: the same text both ways, with examples
	for _, c := range []string{"loop", "batch", "demo", "status", "pause", "resume", "cancel", "report", "merge", "clean", "init", "template", "version", "completion"} {
		a := mainIn(t, "", "help", c).status(t, 0)
		b := mainIn(t, "", c, "--help").status(t, 0)
		if a.stdout != b.stdout {
			t.Errorf("%s differs", c)
		}
		has(t, c+" --help", a.stdout, `^Examples:`)
	}
}

func TestHelpListsCommandsByGroup(t *testing.T) {
	r := mainIn(t, "", "help").status(t, 0)
	has(t, "help", r.stdout, `^Run a loop:$`)
	has(t, "help", r.stdout, `^  loop  +run an agent in a check-driven loop`)
	has(t, "help", r.stdout, `^Bring the work in:$`)
	has(t, "help", r.stdout, `^  merge  `)
	has(t, "help", r.stdout, `^Other commands:$`)
	has(t, "help", r.stdout, `^  completion  `)
	lacks(t, "help", r.stdout, `__demo-agent`)

	// template --help names the value MODE (a backquote used to become `plan`)
	r = mainIn(t, "", "template", "--help").status(t, 0)
	has(t, "template --help", r.stdout, `^      --mode MODE   MODE: plan or build`)
	lacks(t, "template --help", r.stdout, `^ *--mode plan`)

	// version --help is help, not the version
	r = mainIn(t, "", "version", "--help").status(t, 0)
	has(t, "version --help", r.stdout, `^Usage:$`)
	has(t, "version --help", r.stdout, `--json`)
	lacks(t, "version --help", r.stdout, `^architect `)

	// no command: the help, on stderr, exit 2
	r = mainIn(t, "").status(t, 2)
	has(t, "architect", r.stderr, `^Usage:$`)
	if r.stdout != "" {
		t.Errorf("architect alone wrote on stdout: %q", r.stdout)
	}
}

// Did you mean, for commands and flags; every unknown name is a usage
// error (exit 2) with a hint.
func TestDidYouMean(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"lopo"}, []string{`^architect: error: unknown command "lopo"$`, "^architect: hint: did you mean `architect loop`\\?"}},
		{[]string{"help", "lopo"}, []string{"did you mean `architect loop`"}},
		{[]string{"frobnicate"}, []string{`^architect: error: unknown command "frobnicate"$`, "^architect: hint: run `architect help` to list the commands$"}},
		{[]string{"loop", "task", "--chek", "true"}, []string{`^architect: error: unknown flag: --chek$`,
			"^architect: hint: did you mean --check\\? \\(run `architect loop --help` to see the flags\\)$"}},
		{[]string{"status", "--worktree-nam", "x"}, []string{`did you mean --worktree-name\?`}},
		{[]string{"loop", "task", "--no-such-flag"}, []string{`^architect: error: unknown flag: --no-such-flag$`, "^architect: hint: run `architect loop --help` to see the flags$"}},
		{[]string{"loop", "task", "-Z"}, []string{`^architect: error: unknown flag: -Z`}},
		{[]string{"loop", "task", "--check"}, []string{`^architect: error: --check needs a value$`, `^architect: hint: `}},
	} {
		r := mainIn(t, "", tc.args...).status(t, 2)
		for _, w := range tc.want {
			has(t, "architect "+strings.Join(tc.args, " "), r.stderr, w)
		}
	}
}

// --version, -V and version print the same line; --json for scripts.
func TestVersionCommand(t *testing.T) {
	v := mainIn(t, "", "--version").status(t, 0)
	has(t, "--version", v.stdout, `^architect \S+ \(.*go1\.\d+.* \w+/\w+\)$`)
	lacks(t, "--version", v.stdout, `^architect dev$`)
	for _, args := range [][]string{{"-V"}, {"version"}} {
		if r := mainIn(t, "", args...).status(t, 0); r.stdout != v.stdout {
			t.Errorf("%v: %q, want %q", args, r.stdout, v.stdout)
		}
	}
	j := mainIn(t, "", "version", "--json").status(t, 0)
	has(t, "version --json", j.stdout, `"platform": "\w+/\w+"`)
	has(t, "version --json", j.stdout, `"go": "go1\.`)
	if r := mainIn(t, "", "--version", "--json").status(t, 0); r.stdout != j.stdout {
		t.Errorf("--version --json: %q, want %q", r.stdout, j.stdout)
	}
	r := mainIn(t, "", "version", "extra").status(t, 2)
	has(t, "version extra", r.stderr, `^architect: error: version takes no arguments`)
}
