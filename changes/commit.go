package changes

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/architect-dev/architect/gitwt"
)

// commitConfig is what a commit needs from git's configuration, read once
// for a run.
type commitConfig struct {
	identity []string // -c options supplying a missing user.name or user.email
	sign     bool     // commit.gpgSign
	hooks    string   // the hooks folder (core.hooksPath or the git folder's)
	// foldNames: core.ignorecase or core.precomposeUnicode is on, so that
	// git matches a path with others than the one of the same bytes: the
	// stage in place, which matches bytes, leaves staging to git.
	foldNames bool
}

// commitHooks are the hooks `git commit` runs (post-index-change runs when
// an index is written).
var commitHooks = []string{"pre-commit", "prepare-commit-msg", "commit-msg", "post-commit", "post-index-change"}

// readCommitConfig reads user.name, user.email and commit.gpgSign in one
// git run, and where the hooks are in another.
func readCommitConfig(ctx context.Context, r *gitwt.Repo) (*commitConfig, error) {
	var out strings.Builder
	err := r.Git(ctx, gitwt.Command{Stdout: &out}, "config", "-z", "--get-regexp", `^(user\.name|user\.email|commit\.gpgsign|core\.ignorecase|core\.precomposeunicode)$`)
	if err != nil && gitwt.ExitCode(err) != 1 { // 1: none is set
		return nil, err
	}
	values := map[string]string{}
	for _, entry := range strings.Split(out.String(), "\x00") {
		key, value, _ := strings.Cut(entry, "\n")
		values[key] = value
	}
	cfg := &commitConfig{}
	for _, kv := range [][2]string{{"user.name", gitwt.FallbackName}, {"user.email", gitwt.FallbackEmail}} {
		if strings.TrimSpace(values[kv[0]]) == "" {
			cfg.identity = append(cfg.identity, "-c", kv[0]+"="+kv[1])
		}
	}
	if v, ok := values["commit.gpgsign"]; ok {
		cfg.sign = boolValue(v)
	}
	for _, key := range []string{"core.ignorecase", "core.precomposeunicode"} {
		if v, ok := values[key]; ok && boolValue(v) {
			cfg.foldNames = true
		}
	}
	hooks, err := r.Output(ctx, "rev-parse", "--git-path", "hooks")
	if err != nil {
		return nil, err
	}
	if !filepath.IsAbs(hooks) {
		hooks = filepath.Join(r.Dir(), hooks)
	}
	cfg.hooks = hooks
	return cfg, nil
}

// boolValue is a git boolean's value as git reads it (a key with no value
// is true); a number other than 0 is true too.
func boolValue(v string) bool {
	switch v = strings.ToLower(strings.TrimSpace(v)); v {
	case "", "true", "yes", "on":
		return true
	case "false", "no", "off":
		return false
	}
	n, err := strconv.Atoi(v)
	return err == nil && n != 0
}

// porcelain reports whether a commit must go through `git commit`: it is
// signed, or a hook would run (looked at every time: an agent may install
// one).
func (cfg *commitConfig) porcelain() bool {
	if cfg.sign {
		return true
	}
	for _, h := range commitHooks {
		if fi, err := os.Stat(filepath.Join(cfg.hooks, h)); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return true
		}
	}
	return false
}

// Commit commits the working tree (new, modified and deleted files, less
// the excludes) on the current branch, and leaves the working tree's
// index as `git add -A && git commit` would. It costs what the last Diff did not already
// pay: when the tree is watched and nothing changed since, no git runs;
// otherwise the tree the diff staged is committed as it is (`git
// commit-tree`, `git update-ref`) and the private index becomes the working
// tree's own. Where a commit hook would run or commits are signed, the
// commit goes through `git commit` instead, so that it runs them; a
// failing hook is an error and the changes stay staged.
//
// Leave lists untracked files (relative to the top-level folder) kept out
// of this commit though not out of the diff: the files the checks created.
// Where the staged tree holds one, the commit takes that tree less them,
// and they stay untracked in the working tree's index, as `git add -A -- .
// ':!PATH'` would leave them. A file of leave that the working tree's index
// tracks is committed as any other.
//
// The user's configuration (identity, signing, hooks folder) is read once.
// A user.name or user.email that is not configured is taken from
// gitwt.FallbackName and gitwt.FallbackEmail (GIT_AUTHOR_* and
// GIT_COMMITTER_* variables still win, as always in git).
// With nothing to commit it returns HEAD's hash ("" when the tree is
// watched and nothing changed) and committed=false.
func (c *Changes) Commit(ctx context.Context, message string, leave []string) (hash string, committed bool, err error) {
	msg := cleanMessage(message)
	if msg == "" {
		return "", false, errors.New("commit: empty message")
	}
	if !c.stage {
		c.stage, c.valid = true, false // from now on each diff stages
	}
	for try := 0; ; try++ {
		hash, committed, err = c.commit(ctx, message, msg, leave)
		if !errors.Is(err, errIndexMoved) || try == 1 {
			return hash, committed, err
		}
		c.valid = false // look at everything again, from the index as it now is
	}
}

func (c *Changes) commit(ctx context.Context, message, msg string, leave []string) (string, bool, error) {
	if _, err := c.Diff(ctx); err != nil {
		return "", false, err
	}
	leaveKey := strings.Join(slices.Sorted(slices.Values(leave)), "\x00")
	// A merge (or the end of a cherry-pick or revert) waiting for its
	// commit: git commit makes it, with every parent, even when the tree
	// is HEAD's.
	merging := c.repo.CommitHeads()
	if c.w != nil && c.tree == c.committed && leaveKey == c.committedLeave && !merging {
		return "", false, nil
	}
	if c.cfg == nil {
		cfg, err := readCommitConfig(ctx, c.repo)
		if err != nil {
			return "", false, err
		}
		c.cfg = cfg
	}
	tree, index, err := c.leaveOut(ctx, leave)
	if err != nil {
		return "", false, err
	}
	head, headTree, err := headAndTree(ctx, c.repo)
	if err != nil {
		return "", false, err
	}
	if tree == headTree && !merging {
		c.committed, c.committedLeave = c.tree, leaveKey
		return head, false, nil
	}
	if c.cfg.porcelain() || merging {
		return c.commitPorcelain(ctx, message, index)
	}
	args := append(append([]string{}, c.cfg.identity...), "commit-tree", tree)
	if head != "" {
		args = append(args, "-p", head)
	}
	var out strings.Builder
	if err := c.repo.Git(ctx, gitwt.Command{Stdin: strings.NewReader(msg), Stdout: &out}, args...); err != nil {
		return "", false, err
	}
	commit := strings.TrimSpace(out.String())
	if err := c.index.install(index); err != nil {
		return "", false, err
	}
	c.removed, c.realTree = pathSet{}, tree
	c.settle()
	subject, _, _ := strings.Cut(msg, "\n")
	reflog, old := "commit: "+subject, head
	if head == "" {
		reflog, old = "commit (initial): "+subject, ""
	}
	if err := c.repo.Git(ctx, gitwt.Command{}, "update-ref", "-m", reflog, "HEAD", commit, old); err != nil {
		return "", false, err
	}
	c.committed, c.committedLeave = c.tree, leaveKey
	return commit, true, nil
}

// leaveOut returns the tree to commit and the index that becomes the
// working tree's own: the staged tree and the private index, or, where the
// private index holds files of leave, a copy of it without them and its
// tree. The private index keeps them (the diff still shows them).
func (c *Changes) leaveOut(ctx context.Context, leave []string) (tree, index string, err error) {
	if len(leave) == 0 {
		return c.tree, c.index.path, nil
	}
	specs := gitwt.LiteralSpecs(leave)
	if specBytes(leave) > maxPathBytes {
		return "", "", errors.New("commit: too many files to leave out")
	}
	var held strings.Builder
	args := append([]string{"-c", "core.preloadIndex=false", "ls-files", "-z", "--cached", "--"}, specs...)
	if err := c.repo.Git(ctx, gitwt.Command{Env: c.index.env(), Stdout: &held}, args...); err != nil {
		return "", "", err
	}
	var drop []string
	if held.Len() > 0 {
		// Only those the working tree's index does not track.
		var tracked strings.Builder
		heldPaths := strings.Split(strings.TrimSuffix(held.String(), "\x00"), "\x00")
		args := append([]string{"-c", "core.preloadIndex=false", "ls-files", "-z", "--cached", "--"}, gitwt.LiteralSpecs(heldPaths)...)
		if err := c.repo.Git(ctx, gitwt.Command{Stdout: &tracked}, args...); err != nil {
			return "", "", err
		}
		known := newPathSet(strings.Split(tracked.String(), "\x00"))
		for _, p := range heldPaths {
			if !known[p] {
				drop = append(drop, p)
			}
		}
	}
	if len(drop) == 0 {
		return c.tree, c.index.path, nil
	}
	index = filepath.Join(c.index.dir, "commit-index")
	_ = os.Remove(index)
	if err := gitwt.CopyIndex(c.index.path, index); err != nil {
		return "", "", err
	}
	env := gitwt.Command{Env: []string{"GIT_INDEX_FILE=" + index}}
	args = append([]string{"-c", "core.preloadIndex=false", "rm", "--cached", "-f", "-q", "--ignore-unmatch", "--"}, gitwt.LiteralSpecs(drop)...)
	if err := c.repo.Git(ctx, env, args...); err != nil {
		return "", "", err
	}
	var out strings.Builder
	env.Stdout = &out
	if err := c.repo.Git(ctx, env, "write-tree"); err != nil {
		return "", "", err
	}
	return strings.TrimSpace(out.String()), index, nil
}

// commitPorcelain commits the staged tree with `git commit`, which runs the
// hooks and signs.
func (c *Changes) commitPorcelain(ctx context.Context, message, index string) (string, bool, error) {
	if err := c.index.install(index); err != nil {
		return "", false, err
	}
	args := append(append([]string{}, c.cfg.identity...), "commit", "--quiet", "--cleanup=whitespace", "-m", message)
	err := c.repo.Git(ctx, gitwt.Command{}, args...)
	c.settle()
	// Its hooks ran git in the tree: the index may hold what they staged.
	c.touchedLost = true
	// A hook may have staged, or left the index as it was: look at
	// everything from the index as it is now.
	c.valid = false
	if err != nil {
		return "", false, err
	}
	hash, err := c.repo.Head(ctx)
	return hash, err == nil, err
}

// settle tells the watcher that the index it sees written is the commit's.
func (c *Changes) settle() {
	if c.w != nil {
		c.w.Settle(true)
	}
}

// headAndTree returns HEAD's commit and tree, or "" for both on a branch
// with no commit yet.
func headAndTree(ctx context.Context, r *gitwt.Repo) (head, tree string, err error) {
	out, err := r.Output(ctx, "rev-parse", "--revs-only", "HEAD", "HEAD^{tree}")
	if err != nil {
		return "", "", err
	}
	if out == "" {
		return "", "", nil
	}
	head, tree, _ = strings.Cut(out, "\n")
	return head, tree, nil
}

// cleanMessage is the message as `git commit --cleanup=whitespace` keeps
// it: trailing spaces and leading and trailing blank lines removed, runs of
// blank lines made one, a final newline; "" when nothing is left.
func cleanMessage(message string) string {
	var b strings.Builder
	blank := false
	for _, line := range strings.Split(message, "\n") {
		line = strings.TrimRight(line, " \t\r\v\f")
		if line == "" {
			blank = b.Len() > 0
			continue
		}
		if blank {
			b.WriteString("\n")
			blank = false
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// Tree writes the working tree (less the excludes and leave) as a git
// tree object and returns its name and HEAD's, touching no ref and not
// the working tree's index: what a commit would hold, without the commit.
// A round of candidates starts from it.
func (c *Changes) Tree(ctx context.Context, leave []string) (tree, head string, err error) {
	if !c.stage {
		c.stage, c.valid = true, false // from now on each diff stages
	}
	if _, err := c.Diff(ctx); err != nil {
		return "", "", err
	}
	if tree, _, err = c.leaveOut(ctx, leave); err != nil {
		return "", "", err
	}
	head, _, err = headAndTree(ctx, c.repo)
	return tree, head, err
}
