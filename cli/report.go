package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/architect-dev/architect/loop"
	"github.com/architect-dev/architect/report"
	"github.com/spf13/cobra"
)

func newReportCmd(e *env) *cobra.Command {
	var dir, wt, out string
	c := &cobra.Command{
		Use:   "report [-C DIR] [--worktree-name NAME] [-o FILE]",
		Short: "write a self-contained HTML report of a run",
		Long: `Writes one self-contained HTML page about the run in the workspace (its
outcome, each iteration's time, cost and checks, the prompts, the agent's
final messages, the failing checks' output and the diff stats), viewable
without network access. The default output is .architect/report.html in the
run's workspace; the path written is printed on stdout.`,
		Example: `  architect report
  architect report --worktree-name fix-auth -o fix-auth.html
  xdg-open "$(architect report)"`,
		GroupID: groupControl,
		Args:    noArgs("select the run with -C DIR or --worktree-name NAME, the output with -o FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReport(e, dir, wt, out)
		},
	}
	c.Flags().StringVarP(&dir, "dir", "C", ".", "workspace `directory` (or the repository of a --worktree run)")
	c.Flags().StringVar(&wt, "worktree-name", "", "the run's worktree `NAME`")
	c.Flags().StringVarP(&out, "output", "o", "", "the HTML `file` to write (default WORKSPACE/.architect/report.html)")
	_ = c.MarkFlagDirname("dir")
	_ = c.RegisterFlagCompletionFunc("worktree-name", completeWorktreeNames)
	_ = c.MarkFlagFilename("output", "html")
	return c
}

func runReport(e *env, dir, wt, out string) error {
	ws, err := findRun(dir, wt)
	if err != nil {
		return err
	}
	r, err := report.Load(ws)
	if err != nil {
		return err
	}
	path := out
	if path == "" {
		path = filepath.Join(ws, loop.StateDir, "report.html")
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		msg := path + " is a folder, not a file"
		if out != "" {
			msg = "--output " + msg
		}
		return &loop.UsageError{Msg: msg, Hint: "give -o the path of an HTML file"}
	}
	if err := report.WriteFile(path, r, time.Now()); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	fmt.Fprintln(e.stdout, path)
	return nil
}
