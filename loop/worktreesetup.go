package loop

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/architect-dev/architect/checks"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/wtsetup"
)

// The setup step: before the first iteration of a run in a new worktree,
// the setup command (worktree_setup.command: npm ci, uv sync) runs once
// in it, supervised as a check is (the check shell, a timeout that kills
// its whole process tree, the checks' sandbox, a bounded tail of its
// output), with its output kept in .architect/setup.log. The run's state
// records how it went: a resumed run whose setup passed does not run it
// again; one whose setup failed, or was cut short, runs it again. A setup
// that fails ends the run as a setup error before any agent starts: its
// output is shown to the person, never fed to an agent.

// setupLines is how many of the setup's last lines a failure shows.
const setupLines = 20

// shareCaches points the package managers' caches of the run's agents,
// checks and setup at the folder every worktree shares
// (worktree_setup.caches on, the default): a run in a worktree only.
// The folder is also writable in the sandbox (sandboxSettings).
func (r *runner) shareCaches() {
	if r.ws.worktree == "" || !r.cfg.WorktreeSetup.SharedCaches() {
		return
	}
	root, err := wtsetup.CacheRoot()
	if err == nil {
		var env []string
		if env, err = wtsetup.CacheEnv(r.deps.Env, root); err == nil {
			r.deps.Env, r.cacheRoot = env, root
			return
		}
	}
	r.warn("the package caches are not shared between worktrees: " + err.Error())
}

// setupDue reports whether the run's setup command is to run: a run in
// a worktree with one, which has not passed yet.
func (r *runner) setupDue() bool {
	if r.ws.worktree == "" || strings.TrimSpace(r.cfg.WorktreeSetup.Command) == "" {
		return false
	}
	if s := r.st.Setup; s != nil && s.Passed {
		r.logf("setup: %q ran when the worktree was made (%s): not run again", r.shown.WorktreeSetup.Command, s.At)
		return false
	}
	return true
}

// runSetup runs the setup command and returns how it went and, when it
// did not pass, why the run stops (a setup error, or the run cancelled or
// out of time meanwhile).
func (r *runner) runSetup(ctx, runCtx context.Context) (runlog.Setup, *stop) {
	w := r.cfg.WorktreeSetup
	shown := r.shown.WorktreeSetup.Command
	r.logf("setup: running %q in %s (timeout %s)", shown, r.ws.dir, config.FormatDuration(w.SetupTimeout()))
	began := r.deps.Now()
	var out io.Writer
	if f, err := runlog.OpenSetupLog(r.ws.state(), r.transcriptLimit(), r.streamClean()); err != nil {
		r.warn("could not keep the setup's output: " + err.Error())
	} else {
		out = f
	}
	res := checks.Run(runCtx, []string{w.Command}, checks.Options{
		Dir: r.ws.dir, Timeout: w.SetupTimeout(), Grace: r.cfg.KillGrace, Shell: r.cfg.CheckShell,
		Env: r.deps.Env, Wrap: r.sb.CheckWrap(),
		Output: func(int) io.Writer { return out }, // closed by checks.Run as the command ends
	})[0]
	rec := runlog.Setup{Command: shown, Passed: res.Passed, ExitCode: res.ExitCode, TimedOut: res.TimedOut,
		Said: res.Said, Duration: res.Duration, At: stamp(began)}
	if res.Passed {
		r.logf("setup: done in %.1fs", res.Duration)
		return rec, nil
	}
	if s := r.stopped(ctx, runCtx); s != nil {
		return rec, s
	}
	log := runlog.Path(r.ws.dir, runlog.SetupLogFile)
	if tail := lastLines(r.deps.Redact(res.Output), setupLines); tail != "" {
		r.logf("setup: the last lines of its output (all of it is in %s):", log)
		for _, l := range strings.Split(tail, "\n") {
			r.logf("setup: | %s", l)
		}
	}
	return rec, &stop{
		reason: runlog.StopSetup,
		detail: fmt.Sprintf("the worktree's setup command %q failed (%s) after %.1fs; no agent was started", shown, res.Said, res.Duration),
		hint:   fmt.Sprintf("its output is in %s; fix worktree_setup.command (or what it needs), then continue with `architect loop --resume -C %s`, which runs it again", log, r.ws.dir),
	}
}

// lastLines is the last n lines of s, without a final newline.
func lastLines(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// sayBrought says what worktree_setup brought into the new worktree.
func (r *runner) sayBrought(b wtsetup.Brought) {
	for _, l := range []struct {
		what  string
		paths []string
	}{
		{"copied from the main checkout", b.Copied},
		{"linked to the main checkout's", b.Linked},
		{"already in the worktree, kept as they are", b.Kept},
		{"optional, not in the main checkout", b.Missing},
	} {
		if len(l.paths) > 0 {
			r.logf("worktree setup: %s: %s", l.what, strings.Join(l.paths, ", "))
		}
	}
}
