package proc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/architect-dev/architect/usererr"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// Interpret is the built-in shell, run as ShellCommand: args are `-c
// SCRIPT [NAME [ARG...]]`, as for sh. The script runs in mvdan.cc/sh's
// interpreter (bash syntax, which takes in POSIX sh) with pipefail on, in
// the current folder and environment; $0 is "sh" (or NAME), as under sh
// -c. It returns the script's exit status, 2 for a script that cannot be
// parsed or bad arguments. Programs the script starts are children of this
// process, in its process group, so ending the group ends them.
func Interpret(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) < 2 || args[0] != "-c" {
		usererr.Say(stderr, usererr.LevelError, "the built-in shell takes -c SCRIPT")
		return 2
	}
	script, name, params := args[1], "sh", args[2:]
	if len(params) > 0 {
		name, params = params[0], params[1:]
	}
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(script), name)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 2
	}
	opts := []interp.RunnerOption{
		interp.StdIO(stdin, stdout, stderr),
		interp.Env(expand.ListEnviron(os.Environ()...)),
		interp.Params(append([]string{"-o", "pipefail", "--"}, params...)...),
	}
	if wd, err := os.Getwd(); err == nil {
		opts = append(opts, interp.Dir(wd))
	}
	r, err := interp.New(opts...)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 2
	}
	err = r.Run(context.Background(), file)
	if st, ok := errors.AsType[interp.ExitStatus](err); ok {
		return int(st)
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 1
	}
	return 0
}
