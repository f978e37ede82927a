package hooks

import (
	"context"
	"fmt"
	"strings"

	"github.com/architect-dev/architect/gitwt"
	"github.com/architect-dev/architect/usererr"
)

// pusher pushes the loop's branch whenever its head moved since the last
// successful push: in a worktree run, after each iteration that committed;
// in the user's own checkout, only when a commit was made there (by the
// agent: architect does not commit outside its worktree). A failed push is
// tried again after the next iteration and once more at the end. git push
// runs unconfined (not through Confine's sandbox): the push is
// architect's own, and needs the credential helpers and SSH agent the
// user's git uses.
type pusher struct {
	cfg            Config
	repo           *gitwt.Repo
	remote, branch string
	pushed         string // the head last pushed (or found at the start)
	failing        bool
}

// newPusher returns nil, after a warning, when there is nothing it can push.
func newPusher(ctx context.Context, cfg Config, workspace, branch string) *pusher {
	warn := func(msg string) {
		usererr.Say(cfg.Log, usererr.LevelWarning, "--push: %s; nothing will be pushed", msg)
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	repo, err := gitwt.Open(ctx, workspace)
	if err != nil {
		warn(workspace + " is not in a git repository")
		return nil
	}
	if branch == "" {
		if branch, err = repo.CurrentBranch(ctx); err != nil || branch == "" {
			warn("HEAD is not on a branch")
			return nil
		}
	}
	head, _ := repo.Head(ctx)
	return &pusher{cfg: cfg, repo: repo, remote: repo.PushRemote(ctx, branch), branch: branch, pushed: head}
}

// push pushes the branch if its head moved; last says no retry will follow.
func (p *pusher) push(ctx context.Context, last bool) {
	ctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	defer cancel()
	head, err := p.repo.Head(ctx)
	if err != nil || head == "" || head == p.pushed {
		return
	}
	if err := p.repo.Push(ctx, p.remote, p.branch); err != nil {
		p.failing = true
		retry := " (tried again after the next iteration)"
		if last {
			retry = ""
		}
		usererr.Say(p.cfg.Log, usererr.LevelWarning, "--push: could not push %s to %s%s: %s", p.branch, p.remote, retry, firstLine(err.Error()))
		return
	}
	if p.failing {
		fmt.Fprintf(p.cfg.Log, "architect: pushed %s to %s\n", p.branch, p.remote)
	}
	p.pushed, p.failing = head, false
}

// firstLine keeps a git error on one line: "git push …: fatal: …".
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
