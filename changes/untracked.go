package changes

import (
	"context"
	"slices"
	"strings"

	"github.com/architect-dev/architect/gitwt"
)

// Untracked lists the files that git does not ignore and the working
// tree's index does not track, less the excludes, relative to the
// top-level folder: what gitwt.Repo.Untracked lists. The loop asks before and
// after the checks, to find the files the checks created.
//
// Where the tree is watched and each diff stages, it costs what changed
// since the last diff rather than a walk of the whole tree: the staged
// tree is the tree `git add -A` would give, so the files it holds and the
// index's tree does not are the untracked ones (`git diff-tree
// --diff-filter=A`, which skips the folders whose trees are the same).
// Elsewhere, or when the index's tree is not known (it has unmerged
// entries), it is gitwt.Repo.Untracked.
func (c *Changes) Untracked(ctx context.Context) ([]string, error) {
	if c.w == nil || !c.stage {
		return c.repo.Untracked(ctx, c.excludes)
	}
	if _, err := c.Diff(ctx); err != nil {
		return nil, err
	}
	if c.realTree == "" {
		return c.repo.Untracked(ctx, c.excludes)
	}
	if k := [2]string{c.realTree, c.tree}; k == c.untracked.trees {
		return slices.Clone(c.untracked.paths), nil // nothing changed since (the checks created nothing)
	}
	var out strings.Builder
	if err := c.repo.Git(ctx, gitwt.Command{Env: c.repo.TreesOnly(), Stdout: &out}, "diff-tree", "-r", "-z", "--name-only", "--no-renames", "--diff-filter=A", c.realTree, c.tree); err != nil {
		return nil, err
	}
	var paths []string
	for _, p := range strings.Split(out.String(), "\x00") {
		if p != "" {
			paths = append(paths, p)
		}
	}
	c.untracked.trees, c.untracked.paths = [2]string{c.realTree, c.tree}, paths
	return slices.Clone(paths), nil
}

// indexTree is the tree of the private index as it is ("" when git cannot
// write one: unmerged entries).
func (c *Changes) indexTree(ctx context.Context) string {
	var out strings.Builder
	if err := c.repo.Git(ctx, gitwt.Command{Env: c.index.env(), Stdout: &out}, "write-tree"); err != nil {
		return ""
	}
	return strings.TrimSpace(out.String())
}
