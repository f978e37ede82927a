package gitwt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gofrs/flock"

	"github.com/architect-dev/architect/runlog"
)

// ErrNotRepo is returned by Open for a folder that is not inside a git
// working tree, so the caller can tell the user to run `git init`.
var ErrNotRepo = errors.New("not a git repository")

// Repo is one working tree of a git repository: the main checkout or a
// linked worktree. It holds no state beyond where things are; every method
// asks git afresh.
type Repo struct {
	dir       string // top-level folder of the working tree
	gitDir    string // this working tree's git dir (holds its index)
	commonDir string // the git dir shared by all worktrees (objects, refs, info/)
}

// Open finds the repository that dir belongs to. dir may be any folder
// inside the working tree; a linked worktree opens as itself, sharing the
// main repository's common git dir.
func Open(ctx context.Context, dir string) (*Repo, error) {
	out, err := output(ctx, dir, "rev-parse", "--show-toplevel", "--absolute-git-dir", "--git-common-dir")
	if err != nil {
		var ge *GitError
		if errors.As(err, &ge) && strings.Contains(ge.Stderr, "not a git repository") {
			return nil, fmt.Errorf("%w: %s", ErrNotRepo, dir)
		}
		return nil, err
	}
	lines := strings.Split(out, "\n")
	if len(lines) != 3 || lines[0] == "" {
		return nil, fmt.Errorf("git rev-parse: unexpected output %q", out)
	}
	r := &Repo{dir: lines[0], gitDir: lines[1], commonDir: lines[2]}
	if !filepath.IsAbs(r.commonDir) {
		// Relative to the folder git ran in.
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, err
		}
		r.commonDir = filepath.Join(abs, r.commonDir)
	}
	return r, nil
}

// Dir returns the top-level folder of the working tree, as git reports it
// (symbolic links resolved).
func (r *Repo) Dir() string { return r.dir }

// GitDir returns this working tree's git folder, which holds its index
// and HEAD.
func (r *Repo) GitDir() string { return r.gitDir }

// CommonDir returns the git folder all the repository's worktrees share
// (objects, refs, info/).
func (r *Repo) CommonDir() string { return r.commonDir }

// Head returns the full hash of the commit HEAD points at, or "" with a nil
// error when the repository has no commit yet.
func (r *Repo) Head(ctx context.Context) (string, error) {
	out, err := output(ctx, r.dir, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if ExitCode(err) == 1 && out == "" {
		return "", nil // unborn branch
	}
	return out, err
}

// CurrentBranch returns the short name of the checked-out branch (also on a
// branch with no commit yet), or "" with a nil error when HEAD is detached.
func (r *Repo) CurrentBranch(ctx context.Context) (string, error) {
	out, err := output(ctx, r.dir, "symbolic-ref", "--quiet", "--short", "HEAD")
	if ExitCode(err) == 1 {
		return "", nil
	}
	return out, err
}

// BranchExists reports whether the local branch name exists.
func (r *Repo) BranchExists(ctx context.Context, name string) (bool, error) {
	err := run(ctx, r.dir, Command{}, "show-ref", "--verify", "--quiet", "refs/heads/"+name)
	if ExitCode(err) == 1 {
		return false, nil
	}
	return err == nil, err
}

// Exclude makes sure each pattern is a line of the repository's
// info/exclude file (shared by all worktrees), so git ignores architect's
// own folders without the user's .gitignore being edited. The file and its
// folder are created if missing; lines already there are kept as they are
// and only missing patterns are appended.
func (r *Repo) Exclude(ctx context.Context, patterns ...string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, p := range patterns {
		if p == "" || strings.ContainsAny(p, "\r\n") {
			return fmt.Errorf("exclude pattern %q: must be one non-empty line", p)
		}
	}
	path := filepath.Join(r.commonDir, "info", "exclude")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	// Loops that start together (a batch) all make sure of the same
	// lines: one at a time, so that none is written twice. (git takes no
	// lock on this file; the lock is architect's own, on the file.)
	lock := flock.New(path, flock.SetPermissions(0o644))
	if err := lock.Lock(); err != nil {
		return err
	}
	defer func() { _ = lock.Unlock() }() // the lock ends with the file descriptor anyway
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	have := make(map[string]bool)
	for _, line := range strings.Split(string(old), "\n") {
		have[strings.TrimRight(line, " \t\r")] = true
	}
	var add strings.Builder
	for _, p := range patterns {
		p = strings.TrimRight(p, " \t")
		if have[p] {
			continue
		}
		have[p] = true
		if add.Len() == 0 && len(old) > 0 && old[len(old)-1] != '\n' {
			add.WriteByte('\n') // the user's last line had no newline
		}
		add.WriteString(p + "\n")
	}
	if add.Len() == 0 {
		return nil
	}
	return runlog.AppendFileMode(path, add.String(), 0o644)
}

// Rev returns the full hash of the commit rev names (a branch, a tag, a
// hash).
func (r *Repo) Rev(ctx context.Context, rev string) (string, error) {
	return output(ctx, r.dir, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
}
