package proc

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/architect-dev/architect/usererr"
)

// The user's shell commands (checks, hooks) run so that a failing stage of
// a pipeline fails the command: `go test ./... 2>&1 | tail -5` fails when
// go test does, as a GitHub Actions `shell: bash` step does (bash -o
// pipefail). A plain `sh -c` (dash on Debian and Ubuntu) has no pipefail,
// and the status of such a check would be tail's.

// ShellCommand is the hidden command with which architect starts itself as
// its built-in shell, mvdan.cc/sh's interpreter with pipefail on (see
// Interpret). It runs as a child process, like any shell, so that a
// timeout ends it and everything it started with its process group.
const ShellCommand = "__sh"

// BuiltinShell is the ScriptShell choice that names the built-in shell.
const BuiltinShell = "builtin"

// ShellHint says what to do about a shell that cannot be used.
const ShellHint = "leave --check-shell (check_shell:) unset to use bash, else an sh with pipefail, else architect's built-in shell; or give `builtin`, bash, zsh, ksh or the path of a shell with pipefail"

// ScriptShell is how a shell command is run: Path with Args then the
// script. Zero is `sh -c`, as Shell runs.
type ScriptShell struct {
	Path string   // the program started
	Args []string // its arguments before the script (ending in -c)
	// Arg0 is the program's argv[0] when it is not Path: a shell's name
	// (its $0); the built-in shell keeps this program's own, so that a
	// program which dispatches on its name (a test binary serving several
	// commands) stays itself.
	Arg0 string
	// Name says in a few words what runs the command, for the pre-flight:
	// "bash -o pipefail", "architect's built-in shell ...".
	Name string
}

// String is Name with the program's path: "bash -o pipefail
// (/usr/bin/bash)".
func (s ScriptShell) String() string {
	switch {
	case s.Path == "":
		return "sh -c"
	case len(s.Args) > 0 && s.Args[0] == ShellCommand:
		return s.Name
	}
	return s.Name + " (" + s.Path + ")"
}

// Run runs script with s. See Options.
func (s ScriptShell) Run(ctx context.Context, script string, opt Options) Result {
	if s.Path == "" {
		return Shell(ctx, script, opt)
	}
	if s.Arg0 != "" && opt.Arg0 == "" {
		opt.Arg0 = s.Arg0
	}
	return run(ctx, s.Path, append(append([]string(nil), s.Args...), script), opt)
}

var shells struct {
	sync.Mutex
	found map[string]ScriptShell
}

// ResolveShell finds the shell that choice names, one with pipefail:
//
//   - "" (the default): bash (--noprofile --norc -o pipefail) when it is on
//     PATH, else sh -o pipefail if that sh has it, else the built-in shell;
//   - "builtin": architect's own shell (Interpret), re-executed;
//   - a name on PATH or a path: that shell with -o pipefail (bash also with
//     --noprofile --norc).
//
// A shell is used only once it has shown that `false | true` fails in it:
// one that cannot (dash, fish) is refused with a *usererr.Error rather than
// run without pipefail, where a failing test piped into tail would pass.
// Results are remembered per choice and PATH: a batch asks once.
func ResolveShell(ctx context.Context, choice string) (ScriptShell, error) {
	key := choice + "\x00" + os.Getenv("PATH")
	shells.Lock()
	defer shells.Unlock()
	if s, ok := shells.found[key]; ok {
		return s, nil
	}
	s, err := resolveShell(ctx, choice)
	if err != nil {
		return s, err
	}
	if shells.found == nil {
		shells.found = map[string]ScriptShell{}
	}
	shells.found[key] = s
	return s, nil
}

func resolveShell(ctx context.Context, choice string) (ScriptShell, error) {
	switch choice {
	case BuiltinShell:
		return builtinShell()
	case "":
		if s, err := pathShell(ctx, "bash"); err == nil {
			return s, nil
		}
		if s, err := pathShell(ctx, "sh"); err == nil {
			return s, nil
		}
		return builtinShell()
	}
	return pathShell(ctx, choice)
}

// self is the path that starts this program again: /proc/self/exe where
// there is one (the program itself, even if its file was replaced), else
// os.Executable.
func self() (string, error) {
	if _, err := os.Stat("/proc/self/exe"); err == nil {
		return "/proc/self/exe", nil
	}
	return os.Executable()
}

// builtinShell is this program started again with ShellCommand.
func builtinShell() (ScriptShell, error) {
	exe, err := self()
	if err != nil {
		return ScriptShell{}, &usererr.Error{Msg: fmt.Sprintf("the built-in shell cannot be started: %v", err), Hint: ShellHint, Err: err}
	}
	return ScriptShell{Path: exe, Args: []string{ShellCommand, "-c"}, Arg0: os.Args[0],
		Name: "architect's built-in shell (mvdan.cc/sh) with pipefail"}, nil
}

// pathShell is the shell name (on PATH, or a path) with pipefail, once it
// has shown it has pipefail.
func pathShell(ctx context.Context, name string) (ScriptShell, error) {
	path := name
	if !strings.Contains(name, "/") {
		p, err := exec.LookPath(name)
		if err != nil {
			return ScriptShell{}, &usererr.Error{Msg: fmt.Sprintf("the check shell %s is not installed (not found on PATH)", name), Hint: ShellHint}
		}
		path = p
	} else if fi, err := os.Stat(name); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
		return ScriptShell{}, &usererr.Error{Msg: fmt.Sprintf("the check shell %s is not an executable file", name), Hint: ShellHint}
	}
	base := filepath.Base(path)
	args := []string{"-o", "pipefail", "-c"}
	if base == "bash" {
		// As GitHub Actions runs bash steps: no profile or rc file.
		args = append([]string{"--noprofile", "--norc"}, args...)
	}
	// $0 is the shell's name, as under `sh -c` it is "sh".
	s := ScriptShell{Path: path, Args: args, Arg0: base, Name: base + " -o pipefail"}
	if !hasPipefail(ctx, s) {
		return ScriptShell{}, &usererr.Error{
			Msg:  fmt.Sprintf("the check shell %s has no pipefail: `false | true` passes in it, so a failing check piped into tail or tee would pass", path),
			Hint: ShellHint,
		}
	}
	return s, nil
}

// hasPipefail runs a pipeline whose first stage fails, then exit 7 if the
// pipeline failed: a shell with pipefail exits 7; one without exits 0, one
// that refuses -o pipefail with its own status.
func hasPipefail(ctx context.Context, s ScriptShell) bool {
	// Not cut short by the caller's end: a probe cut short would say "no".
	res := s.Run(context.WithoutCancel(ctx), "false | true || exit 7; exit 0", Options{Timeout: 10 * time.Second, Grace: time.Second})
	return res.StartErr == nil && res.ExitCode == 7
}
