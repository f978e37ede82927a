package cli

import (
	"fmt"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/starter"
	"github.com/architect-dev/architect/usererr"
	"github.com/spf13/cobra"
)

func newTemplateCmd(e *env) *cobra.Command {
	var mode string
	c := &cobra.Command{
		Use:   "template [--mode plan|build]",
		Short: "print the starter prompt on stdout",
		Long: `Prints the starter prompt on stdout (the one architect init writes). With
--mode, the plan or build prompt.`,
		Example: `  architect template > PROMPT.md
  architect template --mode build > PROMPT_build.md`,
		GroupID: groupSetup,
		Args:    noArgs("redirect the output: architect template > PROMPT.md"),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch mode {
			case "", config.ModePlan, config.ModeBuild:
			default:
				return &usererr.Error{Msg: fmt.Sprintf("--mode: unknown mode %q: it is plan or build", mode), Hint: "use --mode plan or --mode build (or leave it out)"}
			}
			fmt.Fprint(e.stdout, starter.Template(mode))
			return nil
		},
	}
	c.Flags().StringVar(&mode, "mode", "", "`MODE`: plan or build (default: the plain PROMPT.md)")
	_ = c.RegisterFlagCompletionFunc("mode", cobra.FixedCompletions([]string{config.ModePlan, config.ModeBuild}, cobra.ShellCompDirectiveNoFileComp))
	return c
}
