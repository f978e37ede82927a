// Package gitwt is architect's small git client: it opens the repository the
// loop works on, keeps architect's own folders out of git's sight through
// info/exclude, manages the worktree and branch that --worktree mode
// commits each iteration to, snapshots the working tree as a commit no ref
// holds (a new worktree's start, the clean last look), compares commits,
// checks and makes merges, and pushes.
//
// Every operation runs the git executable as `git -C dir …` with a fixed,
// English, non-interactive environment, in the manner of cli/cli's
// git/client.go. Nothing here deletes a worktree or a branch unless asked
// to, and nothing here writes the user's index. What changed since the
// last look, staged and committed in the size of the change, is package
// changes, which runs git through Repo.Git.
package gitwt

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/architect-dev/architect/proc"
)

// GitError is a git command that ran and failed.
type GitError struct {
	Args     []string // the arguments given to git, starting with "-C", dir and "-c" options
	ExitCode int      // git's exit status; -1 when it was ended by a signal
	Stderr   string   // the tail of what git printed on standard error
}

// Error names the subcommand and gives git's own message, which usually says
// what is wrong ("fatal: …").
func (e *GitError) Error() string {
	args := e.Args
	for len(args) >= 2 && (args[0] == "-C" || args[0] == "-c") {
		args = args[2:]
	}
	shown := make([]string, len(args))
	for i, a := range args {
		if len(a) > 60 {
			a = a[:57] + "..."
		}
		shown[i] = a
	}
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = fmt.Sprintf("exit status %d", e.ExitCode)
	}
	return fmt.Sprintf("git %s: %s", strings.Join(shown, " "), msg)
}

// stderrTail is how much of git's standard error a GitError keeps.
const stderrTail = 8 << 10

// waitDelay is how long a canceled git gets to clean up its lock files
// after SIGTERM, and how long what a hook left running gets after SIGTERM,
// before SIGKILL.
const waitDelay = 2 * time.Second

// repoEnv are the variables that would point git at another repository or
// index than the one named with -C (they leak in from hooks, for example).
var repoEnv = []string{
	"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
	"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_PREFIX",
	"GIT_IMPLICIT_WORK_TREE", "GIT_NAMESPACE",
}

// gitEnv is the environment every git command runs with: the process's own,
// without repoEnv, never prompting, in the C locale (so messages can be
// matched), without optional locks on the index, plus extra.
func gitEnv(extra []string) []string {
	env := make([]string, 0, len(os.Environ())+4+len(extra))
outer:
	for _, kv := range os.Environ() {
		for _, name := range repoEnv {
			if strings.HasPrefix(kv, name+"=") {
				continue outer
			}
		}
		env = append(env, kv)
	}
	env = append(env, "GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "GIT_OPTIONAL_LOCKS=0")
	return append(env, extra...)
}

// TreesOnly is the environment of a git command that compares trees
// (diff-tree): an index file that does not exist. git 2.39's diff-tree
// reads the index (for attributes in a bare repository) although it
// compares only trees, a whole read of 9 MB on a repository of 100,000
// files; with no index file there is nothing to read. Attributes come from
// the working tree's own .gitattributes files, as they do for git's diff
// wherever those exist. The folder named never exists: nothing makes it.
func (r *Repo) TreesOnly() []string {
	return []string{"GIT_INDEX_FILE=" + filepath.Join(r.gitDir, "architect-no-index.d", "index")}
}

// Command describes one git run beyond its arguments.
type Command struct {
	Env    []string  // added to gitEnv
	Stdin  io.Reader // nil: /dev/null
	Stdout io.Writer // nil: discarded
}

// Git runs `git args…` in the working tree, as every git command here
// runs (see run), with c.Env added to the environment.
func (r *Repo) Git(ctx context.Context, c Command, args ...string) error {
	return run(ctx, r.dir, c, args...)
}

// Output runs `git args…` in the working tree and returns its standard
// output without the final newline.
func (r *Repo) Output(ctx context.Context, args ...string) (string, error) {
	return output(ctx, r.dir, args...)
}

// run runs `git -C dir args…` through proc, like every process architect
// starts: in a process group (and cgroup) of its own, so that it falls
// under the run's supervision, its deadline and its containment. A
// canceled git gets SIGTERM first, so that it removes its *.lock files
// (a canceled commit does not leave index.lock behind), then waitDelay,
// then SIGKILL; what a hook left running is ended with it. A failure is a
// *GitError, or the context's error (errors.Is-able) when ctx ended first.
func run(ctx context.Context, dir string, c Command, args ...string) error {
	// gc.autoDetach=false: a detached `git gc --auto` daemon would be ended
	// with the git command that started it.
	full := append([]string{"-C", dir, "-c", "gc.autoDetach=false"}, args...)
	stderr := proc.NewTail(stderrTail)
	res := proc.Run(ctx, "git", full, proc.Options{
		Env:    gitEnv(c.Env),
		Stdin:  c.Stdin,
		Stdout: c.Stdout,
		Stderr: stderr,
		Grace:  waitDelay,
	})
	switch {
	case res.ExitCode == 0:
		return nil
	case res.Canceled || ctx.Err() != nil:
		return fmt.Errorf("git %s: %w", subcommand(args), cmp.Or(ctx.Err(), context.Canceled))
	case res.StartErr != nil:
		return fmt.Errorf("git %s: %w", subcommand(args), res.StartErr)
	}
	return &GitError{Args: full, ExitCode: res.ExitCode, Stderr: string(stderr.Bytes())}
}

// output runs git and returns its standard output without the final newline.
func output(ctx context.Context, dir string, args ...string) (string, error) {
	var out bytes.Buffer
	err := run(ctx, dir, Command{Stdout: &out}, args...)
	return strings.TrimSuffix(out.String(), "\n"), err
}

// ExitCode reports the exit status of a failed git command, or -1 when err
// is not a *GitError (nil included).
func ExitCode(err error) int {
	var ge *GitError
	if errors.As(err, &ge) {
		return ge.ExitCode
	}
	return -1
}

// subcommand names a git run for messages: its first non-option argument.
func subcommand(args []string) string {
	for i := 0; i < len(args); i++ {
		if args[i] == "-c" {
			i++
			continue
		}
		if !strings.HasPrefix(args[i], "-") {
			return args[i]
		}
	}
	return strings.Join(args, " ")
}
