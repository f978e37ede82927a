package gitwt

import (
	"bytes"
	"context"
	"strings"
)

// Uncommitted lists the paths of the working tree that differ from HEAD:
// staged or unstaged changes to tracked files, and untracked files that git
// does not ignore, less excludes (pathspecs relative to the top-level
// folder). Paths are relative to the top-level folder, in git's order. The
// index is not written (optional locks are off).
func (r *Repo) Uncommitted(ctx context.Context, excludes []string) ([]string, error) {
	var out bytes.Buffer
	args := append([]string{"status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--", "."}, ExcludeSpecs(excludes)...)
	if err := run(ctx, r.dir, Command{Stdout: &out}, args...); err != nil {
		return nil, err
	}
	var paths []string
	for _, rec := range strings.Split(out.String(), "\x00") {
		if len(rec) > 3 {
			paths = append(paths, rec[3:]) // "XY path"
		}
	}
	return paths, nil
}

// Untracked lists the untracked files that git does not ignore, less
// excludes, relative to the top-level folder.
func (r *Repo) Untracked(ctx context.Context, excludes []string) ([]string, error) {
	var out bytes.Buffer
	args := append([]string{"ls-files", "--others", "--exclude-standard", "-z", "--full-name", "--", "."}, ExcludeSpecs(excludes)...)
	if err := run(ctx, r.dir, Command{Stdout: &out}, args...); err != nil {
		return nil, err
	}
	var paths []string
	for _, p := range strings.Split(out.String(), "\x00") {
		if p != "" {
			paths = append(paths, p)
		}
	}
	return paths, nil
}

// UntrackedUnder lists the untracked files that git does not ignore at or
// under paths (relative to the top-level folder): what a commit of the
// whole tree would take in.
func (r *Repo) UntrackedUnder(ctx context.Context, paths ...string) ([]string, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	var out bytes.Buffer
	args := append([]string{"ls-files", "--others", "--exclude-standard", "-z", "--full-name", "--"}, LiteralSpecs(paths)...)
	if err := run(ctx, r.dir, Command{Stdout: &out}, args...); err != nil {
		return nil, err
	}
	var found []string
	for _, p := range strings.Split(out.String(), "\x00") {
		if p != "" {
			found = append(found, p)
		}
	}
	return found, nil
}

// Ignored returns those of paths (relative to the top-level folder) that
// git ignores and that exist (`git check-ignore`).
func (r *Repo) Ignored(ctx context.Context, paths ...string) ([]string, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	var out strings.Builder
	err := run(ctx, r.dir, Command{Stdout: &out}, append([]string{"check-ignore", "--"}, paths...)...)
	if ExitCode(err) == 1 {
		return nil, nil // none is
	}
	if err != nil {
		return nil, err
	}
	var ignored []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if line != "" {
			ignored = append(ignored, line)
		}
	}
	return ignored, nil
}
