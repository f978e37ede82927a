package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/architect-dev/architect/loop"
	"github.com/architect-dev/architect/report"
	"github.com/spf13/pflag"
)

const reportUsage = `Usage: architect report [-C DIR] [-o report.html]

Writes one self-contained HTML page about the run in the workspace (its
outcome, each iteration's time, cost and checks, the prompts, the agent's
final messages, the failing checks' output and the diff stats), viewable
without network access. The default output is .architect/report.html in the
run's workspace; the path written is printed on stdout.

Flags:
`

func runReport(_ context.Context, e *env, args []string) error {
	fs := newFlagSet("report", e.stderr)
	dir := fs.StringP("dir", "C", ".", "workspace `directory` (or the repository of a --worktree run)")
	wt := fs.String("worktree-name", "", "the run's worktree `NAME`")
	out := fs.StringP("output", "o", "", "the HTML `file` to write (default WORKSPACE/.architect/report.html)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			fmt.Fprint(e.stderr, reportUsage+fs.FlagUsages())
			return pflag.ErrHelp
		}
		return flagError("report", err)
	}
	if fs.NArg() > 0 {
		return &loop.UsageError{Msg: "report takes no arguments", Hint: "select the run with -C DIR or --worktree-name NAME, the output with -o FILE"}
	}
	ws, err := findRun(*dir, *wt)
	if err != nil {
		return err
	}
	r, err := report.Load(ws)
	if err != nil {
		return err
	}
	path := *out
	if path == "" {
		path = filepath.Join(ws, loop.StateDir, "report.html")
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return &loop.UsageError{Msg: path + " is a directory", Hint: "give -o the path of an HTML file"}
	}
	if err := report.WriteFile(path, r, time.Now()); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	fmt.Fprintln(e.stdout, path)
	return nil
}
