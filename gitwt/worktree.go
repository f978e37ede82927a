package gitwt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

var (
	// ErrWorktreeExists: AddWorktree found the folder already there (or
	// registered with git); nothing was changed.
	ErrWorktreeExists = errors.New("worktree folder already exists")
	// ErrBranchExists: AddWorktree found the branch already there; nothing
	// was changed.
	ErrBranchExists = errors.New("branch already exists")
	// ErrNoCommits: a worktree needs a commit to start from, and the
	// repository has none yet. The user should make a first commit.
	ErrNoCommits = errors.New("the repository has no commit yet")
)

// Worktree is one working tree of the repository, as `git worktree list`
// tells it.
type Worktree struct {
	Path     string // its top-level folder
	Head     string // the commit checked out; "" on a branch with no commit
	Branch   string // short branch name; "" when detached or bare
	Prunable bool   // its folder is gone; `git worktree prune` would forget it
}

// AddWorktree creates a new branch at base (a commit or any revision) and
// checks it out in a new linked worktree at path (relative paths are taken
// from the top-level folder). It refuses, changing nothing, when the folder
// exists or is registered as a worktree (ErrWorktreeExists), when the branch
// exists (ErrBranchExists) or when the repository has no commit
// (ErrNoCommits). It never deletes or resets anything.
func (r *Repo) AddWorktree(ctx context.Context, path, branch, base string) error {
	path = r.abs(path)
	head, err := r.Head(ctx)
	if err != nil {
		return err
	}
	if head == "" {
		return ErrNoCommits
	}
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("%w: %s", ErrWorktreeExists, path)
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	wts, err := r.Worktrees(ctx)
	if err != nil {
		return err
	}
	for _, wt := range wts {
		if samePath(wt.Path, path) {
			return fmt.Errorf("%w: %s is registered though missing (`git worktree prune` forgets it)", ErrWorktreeExists, path)
		}
	}
	if ok, err := r.BranchExists(ctx, branch); err != nil {
		return err
	} else if ok {
		return fmt.Errorf("%w: %s", ErrBranchExists, branch)
	}
	// -b (never -B) and no --force: git itself refuses to overwrite a
	// branch or a non-empty folder should one appear in between.
	addingWorktree.Lock() // one add at a time: see addingWorktree
	defer addingWorktree.Unlock()
	return run(ctx, r.dir, Command{}, "worktree", "add", "--quiet", "-b", branch, "--", path, base)
}

// addingWorktree makes a process's `git worktree add`s one at a time. git
// 2.39 fails an add, or a list, that reads the entry of another add still
// being made ("failed to read .git/worktrees/NAME/commondir"), which a
// batch creating its tasks' worktrees at once would otherwise meet. The
// tasks' loops still run concurrently; a list meeting another process's
// add looks again (listWorktrees).
var addingWorktree sync.Mutex

// RemoveWorktree removes the linked worktree at path (relative paths are
// taken from the top-level folder). Without force git refuses when the
// worktree has uncommitted changes or untracked files; with force they are
// lost. Its branch is kept (see DeleteBranch).
func (r *Repo) RemoveWorktree(ctx context.Context, path string, force bool) error {
	args := []string{"worktree", "remove"}
	if force {
		args = append(args, "--force")
	}
	return run(ctx, r.dir, Command{}, append(args, "--", r.abs(path))...)
}

// DeleteBranch deletes a local branch. Without force git refuses when the
// branch is not merged into HEAD (or its upstream); with force its commits
// become unreachable. Git refuses in either case while a worktree has the
// branch checked out.
func (r *Repo) DeleteBranch(ctx context.Context, branch string, force bool) error {
	flag := "-d"
	if force {
		flag = "-D"
	}
	return run(ctx, r.dir, Command{}, "branch", flag, "--", branch)
}

// UnmergedCommits counts the commits on branch that into (a branch or any
// revision) does not contain: the work that deleting branch would lose.
func (r *Repo) UnmergedCommits(ctx context.Context, branch, into string) (int, error) {
	out, err := output(ctx, r.dir, "rev-list", "--count", into+".."+branch, "--")
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(out)
}

// WorktreeOf returns the folder of the worktree that has branch checked
// out, or "" with a nil error when none has.
func (r *Repo) WorktreeOf(ctx context.Context, branch string) (string, error) {
	wts, err := r.Worktrees(ctx)
	if err != nil {
		return "", err
	}
	for _, wt := range wts {
		if wt.Branch == branch {
			return wt.Path, nil
		}
	}
	return "", nil
}

// Worktrees lists the repository's working trees, the main one first.
func (r *Repo) Worktrees(ctx context.Context) ([]Worktree, error) {
	out, err := listWorktrees(ctx, r.dir)
	if err != nil {
		return nil, err
	}
	var wts []Worktree
	for _, line := range strings.Split(out, "\n") {
		key, value, _ := strings.Cut(line, " ")
		if key == "worktree" {
			wts = append(wts, Worktree{Path: value})
			continue
		}
		if len(wts) == 0 {
			continue
		}
		wt := &wts[len(wts)-1]
		switch key {
		case "HEAD":
			if strings.Trim(value, "0") != "" {
				wt.Head = value
			}
		case "branch":
			wt.Branch = strings.TrimPrefix(value, "refs/heads/")
		case "prunable":
			wt.Prunable = true
		}
	}
	return wts, nil
}

// abs resolves path against the top-level folder.
func (r *Repo) abs(path string) string {
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	return filepath.Join(r.dir, path)
}

// samePath reports whether a and b name the same folder, comparing with
// symbolic links resolved (in the parent when the folder itself is gone).
func samePath(a, b string) bool {
	return ResolvePath(a) == ResolvePath(b)
}

// ResolvePath is path with symbolic links resolved (in its parent when
// it is gone): one name for a folder that has several.
func ResolvePath(path string) string {
	path = filepath.Clean(path)
	if r, err := filepath.EvalSymlinks(path); err == nil {
		return r
	}
	if r, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
		return filepath.Join(r, filepath.Base(path))
	}
	return path
}

// halfMade is how git 2.39 fails to list the worktrees while another
// process (a batch's other task) is in the middle of `git worktree add`:
// the new entry's files exist but are not written yet.
const halfMade = "failed to read "

// listWorktrees runs `git worktree list`, looking again for up to about
// two seconds while an entry is half made: a batch adds its worktrees
// concurrently, and one task's look must not fail on another's add.
func listWorktrees(ctx context.Context, dir string) (string, error) {
	delay := 10 * time.Millisecond
	for deadline := time.Now().Add(2 * time.Second); ; {
		out, err := output(ctx, dir, "worktree", "list", "--porcelain")
		if err == nil || !strings.Contains(err.Error(), halfMade) || !strings.Contains(err.Error(), "worktrees") || time.Now().After(deadline) {
			return out, err
		}
		select {
		case <-ctx.Done():
			return out, err
		case <-time.After(delay):
		}
		delay = min(2*delay, 200*time.Millisecond)
	}
}
