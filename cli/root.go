package cli

import (
	"fmt"
	"os"
	"strings"

	"github.com/architect-dev/architect/usererr"
	"github.com/spf13/cobra"
)

// Command groups of `architect help`, in order.
const (
	groupRun     = "run"
	groupControl = "control"
	groupFinish  = "finish"
	groupSetup   = "setup"
	groupOther   = "other"
)

// Command returns architect's command tree, writing to the process's
// standard streams: for tools generated from it (man pages) and tests.
func Command() *cobra.Command {
	return newRoot(&env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, lookup: os.LookupEnv})
}

func newRoot(e *env) *cobra.Command {
	var showVersion, versionJSON bool
	root := &cobra.Command{
		Use:   "architect",
		Short: "Run AI coding agents in a check-driven loop",
		Long: `architect runs AI coding agents (Claude Code, Codex, Gemini CLI, opencode,
aider, Amp, Cursor, or any command) in a check-driven loop: each iteration
starts a fresh agent with a fresh prompt, then runs your checks; the loop
ends when every check passes and the agent declared completion, or at a
limit.`,
		Example: `  # Start a project: PROMPT.md and a ralph.yaml with the checks found
  architect init
  architect loop -c ralph.yaml --dry-run     # what would run, without running it
  architect loop -c ralph.yaml --worktree    # the real thing, on its own branch
  architect merge                            # bring the work in

  # A one-off task with its checks and limits
  architect loop "make the failing auth tests pass" --check "go test ./..." --max-cost 5`,
		SilenceErrors:     true,
		SilenceUsage:      true,
		DisableAutoGenTag: true,
		Args:              unknownCommand,
		RunE: func(cmd *cobra.Command, args []string) error {
			if showVersion {
				return printVersion(cmd.OutOrStdout(), versionJSON)
			}
			if versionJSON {
				return &usererr.Error{Msg: "--json goes with --version here", Hint: "architect --version --json, or a command's own --json"}
			}
			cmd.SetOut(cmd.ErrOrStderr())
			_ = cmd.Help()
			return errShown
		},
	}
	root.SuggestionsMinimumDistance = 2
	root.SetIn(e.stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	root.Flags().BoolVarP(&showVersion, "version", "V", false, "print the version, commit and build date")
	root.Flags().BoolVar(&versionJSON, "json", false, "with --version: print it as JSON")
	root.AddGroup(
		&cobra.Group{ID: groupRun, Title: "Run a loop:"},
		&cobra.Group{ID: groupControl, Title: "Watch and control a run:"},
		&cobra.Group{ID: groupFinish, Title: "Bring the work in:"},
		&cobra.Group{ID: groupSetup, Title: "Set up a project:"},
		&cobra.Group{ID: groupOther, Title: "Other commands:"},
	)
	root.SetHelpCommandGroupID(groupOther)
	root.SetCompletionCommandGroupID(groupOther)
	root.SetFlagErrorFunc(flagError)
	root.PersistentPreRunE = checkDir
	root.SetUsageFunc(usage)
	root.SetHelpCommand(helpCommand())
	root.AddCommand(
		newLoopCmd(e), newBatchCmd(e), newDemoCmd(e), newGitHubCmd(e),
		newStatusCmd(e), newSayCmd(e), newPauseCmd(e), newResumeCmd(e), newCancelCmd(e), newReportCmd(e), newShowCmd(e),
		newMergeCmd(e), newCleanCmd(e),
		newInitCmd(e), newTemplateCmd(e),
		newVersionCmd(e),
		newDemoAgentCmd(e),
	)
	for _, c := range root.Commands() {
		// A usage line that names its flags needs no "[flags]" added.
		c.DisableFlagsInUseLine = strings.Contains(c.Use, " [-") || strings.Contains(c.Use, " [flags]")
	}
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.Short = "print a shell completion script: bash, zsh, fish or powershell"
			for _, sh := range c.Commands() {
				sh.Short = "print the completion script for " + sh.Name()
			}
			c.Example = `  # bash (needs the bash-completion package), for this shell and for new ones
  source <(architect completion bash)
  architect completion bash > /etc/bash_completion.d/architect

  # zsh: into a folder of your $fpath, then start a new shell
  architect completion zsh > "${fpath[1]}/_architect"`
		}
	}
	return root
}

// unknownCommand refuses a command architect does not have, suggesting the
// closest one.
func unknownCommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	hint := "run `architect help` to list the commands"
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		hint = fmt.Sprintf("did you mean `architect %s`? (%s)", s[0], hint)
	}
	return &usererr.Error{Msg: fmt.Sprintf("unknown command %q", args[0]), Hint: hint}
}

// helpCommand is `architect help [COMMAND]`: the same text as `COMMAND
// --help`, and an unknown command refused as everywhere else.
func helpCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "show the help of architect or of a command",
		Long:  "Shows the help of architect, or of COMMAND: the same text as `architect COMMAND --help`.",
		Example: `  architect help loop
  architect help completion bash`,
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			var names []string
			cmd, _, err := c.Root().Find(args)
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			for _, sub := range cmd.Commands() {
				if sub.IsAvailableCommand() && strings.HasPrefix(sub.Name(), toComplete) {
					names = append(names, sub.Name()+"\t"+sub.Short)
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := c.Root().Find(args)
			if err != nil || len(rest) > 0 && cmd == c.Root() {
				name := strings.Join(args, " ")
				return unknownCommand(c.Root(), []string{name})
			}
			if len(rest) > 0 {
				return &usererr.Error{Msg: fmt.Sprintf("%q has no command %q", cmd.CommandPath(), rest[0]), Hint: "run `" + cmd.CommandPath() + " --help`"}
			}
			cmd.InitDefaultHelpFlag()
			return cmd.Help()
		},
	}
}

// noArgs refuses arguments to a command that takes none, with a hint.
func noArgs(hint string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return &usererr.Error{Msg: fmt.Sprintf("%s takes no arguments, got %q", cmd.Name(), args), Hint: hint}
		}
		return nil
	}
}

// atMostOneArg refuses more than one argument, with msg and hint.
func atMostOneArg(msg, hint string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > 1 {
			return &usererr.Error{Msg: fmt.Sprintf("%s, got %d: %q", msg, len(args), args), Hint: hint}
		}
		return nil
	}
}
