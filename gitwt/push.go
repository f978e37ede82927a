package gitwt

import "context"

// PushRemote returns the remote branch is configured to push to
// (branch.NAME.pushRemote, then remote.pushDefault, then branch.NAME.remote),
// or "origin".
func (r *Repo) PushRemote(ctx context.Context, branch string) string {
	for _, key := range []string{"branch." + branch + ".pushRemote", "remote.pushDefault", "branch." + branch + ".remote"} {
		if out, err := output(ctx, r.dir, "config", "--get", key); err == nil && out != "" {
			return out
		}
	}
	return "origin"
}

// Push pushes the local branch to the branch of the same name on remote.
// It never forces: a remote that moved on is an error to report.
func (r *Repo) Push(ctx context.Context, remote, branch string) error {
	return run(ctx, r.dir, Command{}, "push", "--quiet", remote, "refs/heads/"+branch+":refs/heads/"+branch)
}
