package cli

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/architect-dev/architect/mcp"
	"github.com/spf13/cobra"
)

func newMCPCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "serve the Model Context Protocol on stdin and stdout, for another agent to drive loops",
		Long: `Serves the Model Context Protocol (MCP) over stdio, so that an agent
(Claude Code, Codex, any MCP client) can hand a long job to architect and
check on it. Its tools:

  start_loop    start a loop in a new worktree of a repository
                (REPO/.architect-worktrees/NAME, branch architect/NAME):
                task, checks, agent, model, limits, preset
  loop_status   its state (architect status --json) and whether it runs
  loop_report   how it ended: success, stop reason, iterations, cost
  pause_loop    architect pause
  resume_loop   architect resume, or restart a stopped loop from its state
  stop_loop     architect cancel, and wait until the loop has ended

Each loop is this architect's own ` + "`architect loop`" + `, a child of the
server; the task is passed as an argument, never to a shell. When the
client closes stdin (or the server gets SIGINT or SIGTERM), the server
stops every loop it started, gracefully: each saves its state, and
resume_loop or ` + "`architect loop --resume`" + ` goes on with it.`,
		Example: `  claude mcp add architect -- architect mcp
  codex mcp add architect -- architect mcp`,
		GroupID: groupControl,
		Args:    noArgs("the client talks to it on stdin and stdout"),
		RunE: func(cmd *cobra.Command, args []string) error {
			self, err := os.Executable()
			if err != nil {
				return fmt.Errorf("finding architect's own executable: %w", err)
			}
			b := readBuildInfo(debug.ReadBuildInfo())
			return mcp.Serve(cmd.Context(), mcp.Options{Self: self, Version: b.Version},
				io.NopCloser(e.stdin), nopWriteCloser{e.stdout})
		},
	}
}

// nopWriteCloser is a writer whose Close does nothing: the server does not
// close architect's stdout.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
