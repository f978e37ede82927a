package gitwt

import (
	"context"
	"errors"
	"strings"
)

// Fallback identity for CommitAll where git has none configured (CI
// machines often have none).
const (
	FallbackName  = "architect"
	FallbackEmail = "architect@localhost"
)

// CommitAll stages every change in the working tree (new, modified and
// deleted files, less the paths matching excludes, pathspecs relative to the
// top-level folder) and commits it on the current branch with message. It
// writes this working tree's index, so it is meant for architect's own
// worktree. With nothing to commit it returns HEAD's hash and
// committed=false.
//
// The user's user.name and user.email are used where configured; either one
// that is missing is taken from FallbackName and FallbackEmail (GIT_AUTHOR_*
// and GIT_COMMITTER_* variables still win, as always in git). Hooks run as
// for any commit: a failing pre-commit or commit-msg hook is an error, and
// the changes stay staged.
func (r *Repo) CommitAll(ctx context.Context, message string, excludes []string) (hash string, committed bool, err error) {
	if strings.TrimSpace(message) == "" {
		return "", false, errors.New("commit: empty message")
	}
	if err := r.addAll(ctx, command{}, excludes, "-A"); err != nil {
		return "", false, err
	}
	err = run(ctx, r.dir, command{}, "diff", "--cached", "--quiet", "--no-ext-diff")
	if err == nil {
		head, err := r.Head(ctx)
		return head, false, err
	}
	if exitCode(err) != 1 {
		return "", false, err
	}
	args, err := r.identity(ctx)
	if err != nil {
		return "", false, err
	}
	// --cleanup=whitespace: keep lines starting with "#" (issue numbers)
	// whatever commit.cleanup says.
	args = append(args, "commit", "--quiet", "--cleanup=whitespace", "-m", message)
	if err := run(ctx, r.dir, command{}, args...); err != nil {
		return "", false, err
	}
	hash, err = r.Head(ctx)
	return hash, err == nil, err
}

// identity returns the -c options that supply a fallback for user.name and
// user.email where git has none configured.
func (r *Repo) identity(ctx context.Context) ([]string, error) {
	var args []string
	for _, kv := range [][2]string{{"user.name", FallbackName}, {"user.email", FallbackEmail}} {
		v, err := output(ctx, r.dir, "config", "--get", kv[0])
		if err != nil && exitCode(err) != 1 {
			return nil, err
		}
		if strings.TrimSpace(v) == "" {
			args = append(args, "-c", kv[0]+"="+kv[1])
		}
	}
	return args, nil
}
