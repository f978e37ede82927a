package proc

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/architect-dev/architect/usererr"
	"github.com/matryer/is"
)

// shellChoices are the check shells this machine has that must work: the
// default, the built-in shell, and every installed shell with pipefail.
func shellChoices(t *testing.T) []string {
	choices := []string{"", BuiltinShell}
	for _, name := range []string{"bash", "zsh", "ksh", "mksh"} {
		if _, err := exec.LookPath(name); err == nil {
			choices = append(choices, name)
		}
	}
	return choices
}

// TestScriptShellPipefail: whichever shell runs a check, a failing first
// stage of a pipeline fails it, and the exit status, the output and $0
// stay what sh -c gives.
func TestScriptShellPipefail(t *testing.T) {
	t.Parallel()
	for _, choice := range shellChoices(t) {
		t.Run("shell="+choice, func(t *testing.T) {
			t.Parallel()
			is := is.New(t)
			s, err := ResolveShell(t.Context(), choice)
			is.NoErr(err)
			is.True(s.String() != "")
			for _, tc := range []struct {
				script string
				code   int
				out    string
			}{
				{"false | tail -1", 1, ""},
				{"echo one; exit 3 | tail -1", 3, "one\n"},
				{"(echo fail; exit 4) 2>&1 | tee /dev/null | head -5", 4, "fail\n"},
				{"printf 'a\\nb\\n' | tail -1", 0, "b\n"},
				{"true | false | true", 1, ""},
				{"exit 5", 5, ""},
				{`echo "$0 $#" >&2`, 0, s.name0() + " 0\n"},
				{"echo $ARCH_SHELL_TEST_VAR", 0, "kept\n"},
			} {
				var out bytes.Buffer
				r := s.Run(t.Context(), tc.script, Options{Stdout: &out, Stderr: &out, Env: env("ARCH_SHELL_TEST_VAR=kept")})
				is.NoErr(r.StartErr)
				is.Equal(r.ExitCode, tc.code) // the status of the script
				if tc.out != "" || tc.code == 0 {
					is.Equal(out.String(), tc.out)
				}
			}
		})
	}
}

// name0 is what $0 is in s: its program's name, "sh" in the built-in
// shell (as under sh -c).
func (s ScriptShell) name0() string {
	if len(s.Args) > 0 && s.Args[0] == ShellCommand {
		return "sh"
	}
	return filepath.Base(s.Path)
}

// TestScriptShellTimeoutKillsTree: a check run by the built-in shell (a
// child process of its own) is ended with everything it started.
func TestScriptShellTimeoutKillsTree(t *testing.T) {
	t.Parallel()
	for _, choice := range []string{"", BuiltinShell} {
		t.Run("shell="+choice, func(t *testing.T) {
			t.Parallel()
			is := is.New(t)
			s, err := ResolveShell(t.Context(), choice)
			is.NoErr(err)
			var out bytes.Buffer
			r := s.Run(t.Context(), `echo $ARCHITECT_RUN_ID; sh -c 'echo $$; exec sleep 100' & wait`,
				Options{Stdout: &out, Timeout: time.Second})
			is.True(r.TimedOut)
			is.Equal(r.ExitCode, -1)
			f := fields(out.String())
			is.Equal(len(f), 2) // run ID and grandchild pid
			id, grandchild := f[0], atoi(t, f[1])
			killLater(t, grandchild)
			is.True(!alive(grandchild))
			is.Equal(len(marked(id)), 0) // nothing of the run is left
		})
	}
}

// TestResolveShellRefuses: a shell that cannot fail a pipeline on its
// first stage is refused, never run without pipefail.
func TestResolveShellRefuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	nopipefail := filepath.Join(dir, "nopipefail")
	// A shell that accepts -o pipefail and ignores it.
	if err := os.WriteFile(nopipefail, []byte("#!/bin/sh\nshift 2\nexec /bin/sh \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ choice, want string }{
		{"architect-no-such-shell", "not installed"},
		{filepath.Join(dir, "missing"), "not an executable file"},
		{nopipefail, "has no pipefail"},
	}
	// dash (Debian's and Ubuntu's sh) had no pipefail before 0.5.13.
	if p, err := exec.LookPath("dash"); err == nil {
		if c := exec.Command(p, "-o", "pipefail", "-c", "false | true || exit 7"); c.Run() != nil && c.ProcessState.ExitCode() != 7 {
			cases = append(cases, struct{ choice, want string }{p, "has no pipefail"})
		}
	}
	for _, tc := range cases {
		t.Run(filepath.Base(tc.choice), func(t *testing.T) {
			is := is.New(t)
			_, err := ResolveShell(t.Context(), tc.choice)
			ue, ok := err.(*usererr.Error)
			is.True(ok) // a user error, with a hint
			is.True(strings.Contains(ue.Msg, tc.want))
			is.Equal(ue.Hint, ShellHint)
		})
	}
}

// TestDefaultShellFallsBack: without bash, and with an sh that has no
// pipefail, the default is the built-in shell; with bash, bash.
func TestDefaultShellFallsBack(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	// An sh that takes -o pipefail and ignores it, as dash refuses it.
	is.NoErr(os.WriteFile(filepath.Join(dir, "sh"), []byte("#!/bin/sh\nshift 2\nexec /bin/sh \"$@\"\n"), 0o755))
	t.Setenv("PATH", dir)
	s, err := ResolveShell(t.Context(), "")
	is.NoErr(err)
	is.Equal(s.Args[0], ShellCommand) // the built-in shell
	is.Equal(s.String(), "architect's built-in shell (mvdan.cc/sh) with pipefail")

	bash, err := exec.LookPath("/bin/bash")
	if err != nil {
		t.Skip("no /bin/bash")
	}
	withBash := t.TempDir() // another PATH: what was found is remembered per PATH
	is.NoErr(os.Symlink(bash, filepath.Join(withBash, "bash")))
	t.Setenv("PATH", withBash+string(os.PathListSeparator)+dir)
	s, err = ResolveShell(t.Context(), "")
	is.NoErr(err)
	is.Equal(s.Args, []string{"--noprofile", "--norc", "-o", "pipefail", "-c"})
	is.Equal(s.String(), "bash -o pipefail ("+filepath.Join(withBash, "bash")+")")
}

// TestInterpretArguments: the built-in shell's own errors.
func TestInterpretArguments(t *testing.T) {
	is := is.New(t)
	var out bytes.Buffer
	is.Equal(Interpret(nil, nil, &out, &out), 2)
	is.Equal(Interpret([]string{"-c", "if then"}, nil, &out, &out), 2) // cannot be parsed
	is.Equal(Interpret([]string{"-c", `exit $(($# + 10))`, "name", "a", "b"}, nil, &out, &out), 12)
}

// BenchmarkScriptShell is the cost of one check of `true | true` by each
// shell, start to end, against sh -c without pipefail.
func BenchmarkScriptShell(b *testing.B) {
	for _, choice := range []string{"sh -c", "", BuiltinShell} {
		b.Run("shell="+choice, func(b *testing.B) {
			s := ScriptShell{}
			if choice != "sh -c" {
				var err error
				if s, err = ResolveShell(b.Context(), choice); err != nil {
					b.Fatal(err)
				}
			}
			for b.Loop() {
				if r := s.Run(b.Context(), "true | true", Options{}); r.ExitCode != 0 {
					b.Fatal(r.ExitCode)
				}
			}
		})
	}
}
