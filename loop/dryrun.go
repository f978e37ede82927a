package loop

import (
	"context"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/runlog"
)

// FirstPrompt returns the prompt a new run of cfg would give the agent in
// its first iteration, for `architect loop --dry-run`. Nothing is created
// or changed: no .architect/, no worktree, no commit. In a --worktree run
// the worktree would start from HEAD (or from the uncommitted changes,
// with IncludeUncommitted), and a run in place from the checkout as it is
// (setupWorkspace), so their first prompt shows no changes yet; a
// build-mode run in place measures from HEAD.
// redact, when set, masks secrets as the run would.
func FirstPrompt(ctx context.Context, cfg config.Config, redact func(string) string) (string, error) {
	p, repo, err := planWorkspace(ctx, cfg, false)
	if err != nil {
		return "", err
	}
	r := newRunner(cfg, Deps{Redact: redact})
	r.ws = &workspace{dir: p.Dir, initialRef: p.InitialRef}
	if repo != nil && !cfg.Worktree && cfg.Mode == config.ModeBuild {
		r.ws.repo = repo
		r.ws.excludes = []string{runlog.StateDir}
		if relDir(p.Repo, p.Dir) == "." {
			r.ws.excludes = append(r.ws.excludes, DefaultWorktree, NamedWorktreesDir)
		}
	}
	defer r.ws.close()
	// The judge as the run would find it, for the prompt's note only:
	// nothing is recorded.
	r.judge = r.findGuard()
	text, err := r.buildPrompt(ctx, &iteration{n: 1}, carried{})
	if err != nil {
		return "", err
	}
	return r.deps.Redact(text), nil
}
