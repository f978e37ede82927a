package merge

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/loop"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/usererr"
)

// Finding a run: the workspace whose .architect/ holds its records. The
// commands that act on a run (status, show, say, pause, merge, clean) find
// it here; merge and clean sit below the command line and need it too.

// FindRun locates the workspace of a run from dir: dir itself, its default
// worktree, or a named worktree (--worktree-name, or the only one there is).
func FindRun(dir, name string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	where := abs
	if dir != "." {
		where = dir // as given with -C
	}
	if name != "" && !config.ValidWorktreeName(name) {
		return "", &usererr.Error{Msg: fmt.Sprintf("--worktree-name %q: not a worktree name", name), Hint: "give the NAME of .architect-worktrees/NAME (`git worktree list` lists them)"}
	}
	has := HasRun
	if name != "" {
		wtDir, _ := loop.WorktreeFor(name)
		if ws := filepath.Join(abs, wtDir); has(ws) {
			return ws, nil
		}
		return "", &usererr.Error{Msg: fmt.Sprintf("no run of --worktree-name %s under %s", name, where), Hint: "check --worktree-name, or pass the repository with -C DIR"}
	}
	if has(abs) {
		return abs, nil
	}
	found := RunsUnder(abs)
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", &usererr.Error{Msg: "no architect run in " + where, Hint: "pass the workspace of a run with -C DIR (a run keeps its state in DIR/.architect/state.json)"}
	}
	return "", &usererr.Error{Msg: "several runs under " + abs + ": " + strings.Join(found, ", "), Hint: "choose one with --worktree-name NAME or -C DIR"}
}

// HasRun reports whether ws holds a run's state.
func HasRun(ws string) bool {
	_, err := os.Stat(filepath.Join(ws, runlog.StateDir, runlog.StateFile))
	return err == nil
}

// RunsUnder lists the runs in the worktrees of the repository at abs: the
// default worktree's, then the named ones' (a batch's tasks).
func RunsUnder(abs string) []string {
	var found []string
	if ws := filepath.Join(abs, loop.DefaultWorktree); HasRun(ws) {
		found = append(found, ws)
	}
	named, _ := filepath.Glob(filepath.Join(abs, loop.NamedWorktreesDir, "*"))
	for _, ws := range named {
		if HasRun(ws) {
			found = append(found, ws)
		}
	}
	return found
}

// runOf finds the run recorded in the worktree wtDir of the repository at
// top: its workspace and state ("" and nil when there is none).
func runOf(top, wtDir string) (string, *runlog.State) {
	ws, err := FindRun(filepath.Join(top, wtDir), "")
	if err != nil {
		return "", nil
	}
	st, err := runlog.ReadState(ws)
	if err != nil {
		return ws, nil
	}
	return ws, st
}
