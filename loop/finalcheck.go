package loop

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/architect-dev/architect/checks"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/envdirs"
	"github.com/architect-dev/architect/gitwt"
	"github.com/architect-dev/architect/runlog"
)

// The last look (final_check): before a success is declared, the checks
// run once more, under the same timeouts, in a fresh worktree of the final
// tree, where nothing the agent left that git ignores or does not see
// (build output, caches, a planted file) can make them pass. The final
// tree is the working tree as it is, tracked files and untracked ones git
// does not ignore (less architect's own folders): what a build-mode or
// worktree run commits next, and, for a run in place that commits nothing,
// the tree its user would commit. It is committed with no ref holding it
// and checked out in a temporary folder, then removed; the user's branch,
// index and files are never touched. The environment the checks need but
// git ignores (node_modules, a virtualenv, vendor, .env files) comes in
// as it was when the run began (envAtStart), linked from the workspace,
// and only if the agent did not change it.

// envAtStart takes the fingerprints of the ignored environment entries at
// the top of the workspace, for the clean last look; nil when there is
// none, or no clean look to make.
func envAtStart(ctx context.Context, cfg config.Config, ws *workspace) map[string]string {
	if ws.repo == nil || cfg.FinalCheck != config.FinalCheckClean || len(cfg.Checks) == 0 {
		return nil
	}
	ignored, err := ignoredEnv(ctx, ws.repo, ws.dir)
	if err != nil || len(ignored) == 0 {
		return nil
	}
	return envdirs.TakeAll(ws.dir, ignored)
}

// ignoredEnv lists the environment entries at the top of the workspace
// that git ignores (relative to the workspace).
func ignoredEnv(ctx context.Context, repo *gitwt.Repo, dir string) ([]string, error) {
	cands := envdirs.Candidates(dir)
	if len(cands) == 0 {
		return nil, nil
	}
	rel := relDir(repo.Dir(), dir)
	paths := make([]string, len(cands))
	for i, c := range cands {
		paths[i] = filepath.ToSlash(filepath.Join(rel, c))
	}
	ignored, err := repo.Ignored(ctx, paths...)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(ignored))
	for _, p := range ignored {
		r, err := filepath.Rel(rel, filepath.FromSlash(p))
		if err == nil {
			out = append(out, r)
		}
	}
	return out, nil
}

// finalLook makes the last look for an iteration that would end the run
// with success, puts it on the record, and reports whether the success
// stands. With final_check off, or no checks, there is none to make.
func (r *runner) finalLook(ctx context.Context, x *iteration) bool {
	mode := r.cfg.FinalCheck
	if mode == "" || mode == config.FinalCheckOff || len(r.cfg.Checks) == 0 {
		return true
	}
	fc := r.look(ctx, x.rec.Iteration.Iteration, mode)
	x.rec.FinalCheck = fc
	return !fc.Failed()
}

// look runs the checks once more for iteration i, in a clean checkout of
// the final tree (mode clean) or in the workspace (same).
func (r *runner) look(ctx context.Context, i int, mode string) *runlog.FinalCheck {
	began := r.deps.Now()
	fc := &runlog.FinalCheck{Mode: mode}
	defer func() { fc.Duration = r.deps.Now().Sub(began).Seconds() }()
	if mode == config.FinalCheckClean && r.ws.repo == nil {
		fc.Mode = config.FinalCheckSame
		fc.Reason = "not a git repository: no clean tree to check out, so the checks ran again in the workspace"
	}
	dir := r.ws.dir
	if fc.Mode == config.FinalCheckClean {
		r.logf("iteration %d/%d: the last look: the checks once more, in a clean checkout of the final tree", i, r.cfg.MaxIterations)
		t, err := r.cleanTree(ctx)
		if err != nil {
			fc.CheckoutDuration = r.deps.Now().Sub(began).Seconds()
			fc.Status, fc.Reason = runlog.FinalError, "the clean checkout of the final tree could not be made: "+r.cleanText(err.Error())
			if ctx.Err() != nil {
				fc.Status, fc.Reason = runlog.FinalInterrupted, "the run was stopped during the last look"
			}
			return fc
		}
		var setup time.Duration
		defer func() {
			removing := r.deps.Now()
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), wrapUp)
			defer cancel()
			if err := t.Remove(rctx); err != nil {
				r.warn("removing the clean worktree: " + r.cleanText(err.Error()))
			}
			fc.CheckoutDuration = (setup + r.deps.Now().Sub(removing)).Seconds()
		}()
		fc.CheckedOut = t.Commit
		dir = filepath.Join(t.Dir, relDir(r.ws.repo.Dir(), r.ws.dir))
		// A workspace folder with nothing git sees in it is not in the
		// tree: the checks still run there.
		if err := os.MkdirAll(dir, 0o755); err != nil {
			r.warn("making the workspace folder in the clean tree: " + err.Error())
		}
		brought, err := envdirs.BringIn(r.ws.dir, dir, r.st.EnvAtStart)
		for _, b := range brought {
			if b.Changed {
				fc.EnvironmentChanged = append(fc.EnvironmentChanged, b.Path)
			} else {
				fc.Environment = append(fc.Environment, b.Path)
			}
		}
		if err != nil {
			r.warn("bringing the environment into the clean tree: " + r.cleanText(err.Error()))
		}
		setup = r.deps.Now().Sub(began)
	} else {
		r.logf("iteration %d/%d: the last look: the checks once more, in the workspace", i, r.cfg.MaxIterations)
	}
	checksBegan := r.deps.Now()
	results := checks.Run(ctx, r.cfg.Checks, checks.Options{Dir: dir, Timeout: r.cfg.CheckTimeout, Grace: r.cfg.KillGrace, Shell: r.cfg.CheckShell, Env: r.deps.Env, Wrap: r.sb.CheckWrapIn(dir)})
	fc.ChecksDuration = r.deps.Now().Sub(checksBegan).Seconds()
	fc.CheckResults = make([]runlog.CheckResult, len(results))
	var failing []string
	for idx, c := range results {
		fc.CheckResults[idx] = r.sanitizeCheck(idx, c)
		if !c.Passed {
			failing = append(failing, fmt.Sprintf("%s (%s)", fc.CheckResults[idx].Name, fc.CheckResults[idx].Status()))
		}
	}
	switch {
	case ctx.Err() != nil:
		fc.Status, fc.Reason = runlog.FinalInterrupted, "the run was stopped during the last look"
	case len(failing) == 0:
		fc.Status = runlog.FinalPassed
		r.logf("iteration %d/%d: the last look passed (%s)", i, r.cfg.MaxIterations, fc.Mode)
	default:
		fc.Status, fc.Reason = runlog.FinalFailed, finalReason(fc, failing)
		r.logf("iteration %d/%d: the last look failed: %s", i, r.cfg.MaxIterations, fc.Reason)
	}
	return fc
}

// cleanTree checks the final tree out clean.
func (r *runner) cleanTree(ctx context.Context) (*gitwt.CleanTree, error) {
	rel := relDir(r.ws.repo.Dir(), r.ws.dir)
	excludes := []string{filepath.Join(rel, runlog.StateDir)}
	if rel == "." {
		excludes = append(excludes, DefaultWorktree, NamedWorktreesDir)
	}
	return r.ws.repo.CheckoutClean(ctx, excludes)
}

// finalReason says why the success does not stand after a failed look.
func finalReason(fc *runlog.FinalCheck, failing []string) string {
	if fc.Mode != config.FinalCheckClean {
		return "run once more in the workspace, " + strings.Join(failing, ", ") + " failed: the checks do not pass reliably"
	}
	s := "in a clean checkout of the final tree, " + strings.Join(failing, ", ") + " failed: the success held only in the agent's tree, " +
		"thanks to files git ignores or does not see (build output, caches, files the agent left)"
	if len(fc.EnvironmentChanged) > 0 {
		s += "; " + strings.Join(fc.EnvironmentChanged, ", ") + " changed during the run, so the clean tree did not get it"
	}
	return s
}

// finalNote tells the next agent why the success it declared did not
// stand.
func finalNote(it runlog.Iteration) string {
	fc := it.FinalCheck
	if fc == nil || fc.Status != runlog.FinalFailed {
		return ""
	}
	if fc.Mode != config.FinalCheckClean {
		return fmt.Sprintf("Iteration %d declared completion and its checks passed, but the last look failed: %s. "+
			"The failing checks below are from that second run.", it.Iteration, fc.Reason)
	}
	return fmt.Sprintf("Iteration %d declared completion and its checks passed in the workspace, but the last look failed: %s. "+
		"The failing checks below are from that clean run. Make them pass from the files git tracks or would commit: "+
		"what git ignores is not in the clean tree (only the environment folders, as they were when the run began).", it.Iteration, fc.Reason)
}
