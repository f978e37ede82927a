package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/architect-dev/architect/loop"
	"github.com/architect-dev/architect/merge"
	"github.com/architect-dev/architect/report"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/usererr"
	"github.com/spf13/cobra"
)

func newReportCmd(e *env) *cobra.Command {
	var dir, wt, out string
	var all bool
	c := &cobra.Command{
		Use:   "report [-C DIR] [--worktree-name NAME] [--all] [-o FILE]",
		Short: "write a self-contained HTML report of a run, or an overview of several",
		Long: `Writes one self-contained HTML page about the run in the workspace: the
task, the outcome, a timeline and charts of each iteration's time, cost,
checks passing and diff size, and per iteration its prompt, transcript,
diff, the checks' output, cost and tokens, and a round's candidates (the
one kept, why each other lost). It opens without network access
and runs no script. A run's page is written by the run itself when it ends
(.architect/report.html, next to its result); this command writes it again
at any time, also while the loop runs.

Where DIR holds several runs (a batch's worktrees), each run's page is
written, and an overview page with one row per run linking to them
(DIR/.architect/overview.html). --all adds the archived earlier runs
(.architect/runs/). The path of the page to open is printed on stdout.`,
		Example: `  architect report
  architect report --worktree-name fix-auth -o fix-auth.html
  architect report -C repo --all       # every run, and an overview
  xdg-open "$(architect report)"`,
		GroupID: groupControl,
		Args:    noArgs("select the run with -C DIR or --worktree-name NAME, the output with -o FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReport(e, dir, wt, out, all)
		},
	}
	c.Flags().StringVarP(&dir, "dir", "C", ".", "workspace `directory` (or the repository of --worktree runs)")
	c.Flags().StringVar(&wt, "worktree-name", "", "the run's worktree `NAME`")
	c.Flags().BoolVar(&all, "all", false, "every run under DIR, the archived ones included, with an overview page")
	c.Flags().StringVarP(&out, "output", "o", "", "the HTML `file` to write (default: the run's .architect/report.html, or DIR/.architect/overview.html)")
	_ = c.MarkFlagDirname("dir")
	_ = c.RegisterFlagCompletionFunc("worktree-name", completeWorktreeNames)
	_ = c.MarkFlagFilename("output", "html")
	return c
}

func runReport(e *env, dir, wt, out string, all bool) error {
	if out != "" {
		if err := notAFolder(out, out); err != nil {
			return err // before looking for runs: the flag is what is wrong
		}
	}
	if wt != "" && all {
		return &usererr.Error{Msg: "--all and --worktree-name select different runs", Hint: "use one of them"}
	}
	var runs []runDir
	if wt != "" {
		ws, err := merge.FindRun(dir, wt)
		if err != nil {
			return err
		}
		runs = []runDir{{wt, filepath.Join(ws, runlog.StateDir)}}
	} else {
		runs = findRuns(dir, all)
	}
	switch {
	case len(runs) == 0:
		_, err := merge.FindRun(dir, "") // says why, with its hint
		return err
	case len(runs) == 1 && !all:
		r, err := report.LoadDir(runs[0].dir)
		if err != nil {
			return err
		}
		path := out
		if path == "" {
			path = filepath.Join(runs[0].dir, report.File)
		}
		if err := notAFolder(path, out); err != nil {
			return err
		}
		if err := report.WriteFile(path, r, time.Now()); err != nil {
			return fmt.Errorf("writing the report: %w", err)
		}
		fmt.Fprintln(e.stdout, path)
		return nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	path := out
	if path == "" {
		path = filepath.Join(abs, runlog.StateDir, "overview.html")
	}
	if err := notAFolder(path, out); err != nil {
		return err
	}
	if err := writeOverview(e, path, "architect runs in "+filepath.Base(abs), runs); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, path)
	return nil
}

// notAFolder refuses a report path that is a folder: out is what -o gave.
func notAFolder(path, out string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		msg := path + " is a folder, not a file"
		if out != "" {
			msg = "--output " + msg
		}
		return &usererr.Error{Msg: msg, Hint: "give -o the path of an HTML file"}
	}
	return nil
}

// writeOverview writes each run's page into its own folder, then the
// overview page at path.
func writeOverview(e *env, path, title string, runs []runDir) error {
	now := time.Now()
	var entries []report.Entry
	for _, rd := range runs {
		r, err := report.LoadDir(rd.dir)
		if err != nil {
			usererr.Say(e.stderr, usererr.LevelWarning, "skipping the run in %s: %v", rd.dir, unwrapPath(err))
			continue
		}
		page := filepath.Join(rd.dir, report.File)
		if err := report.WriteFile(page, r, now); err != nil {
			return fmt.Errorf("writing the report of %s: %w", rd.name, err)
		}
		entries = append(entries, report.Entry{Name: rd.name, Run: r, Page: page})
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := report.WriteOverview(path, title, entries, now); err != nil {
		return fmt.Errorf("writing the overview: %w", err)
	}
	return nil
}

// runDir is a run's records: a workspace's .architect, or an archived run.
type runDir struct {
	name, dir string
}

// findRuns lists the runs under dir: its own, the default worktree's and
// the named worktrees'; with archived, also the earlier runs each of them
// archived in .architect/runs/ (and those merged runs left there).
func findRuns(dir string, archived bool) []runDir {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil
	}
	has := func(d string) bool {
		_, err := os.Stat(filepath.Join(d, runlog.StateFile))
		return err == nil
	}
	var out []runDir
	add := func(name, ws string) {
		d := filepath.Join(ws, runlog.StateDir)
		if has(d) {
			out = append(out, runDir{name, d})
		}
		if !archived {
			return
		}
		old, _ := filepath.Glob(filepath.Join(d, "runs", "*"))
		sort.Strings(old)
		for _, o := range old {
			if has(o) {
				out = append(out, runDir{name + " (" + filepath.Base(o) + ")", o})
			}
		}
	}
	add(filepath.Base(abs), abs)
	add(loop.DefaultWorktree, filepath.Join(abs, loop.DefaultWorktree))
	named, _ := filepath.Glob(filepath.Join(abs, loop.NamedWorktreesDir, "*"))
	sort.Strings(named)
	for _, ws := range named {
		add(filepath.Base(ws), ws)
	}
	return out
}
