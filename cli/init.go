package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/loop"
	"github.com/architect-dev/architect/starter"
	"github.com/spf13/pflag"
)

const initUsage = `Usage: architect init [--force] [--plan-build] [-C DIR]

Writes a starter PROMPT.md (the task, for the loop's --spec) and a ralph.yaml
whose checks are detected from the project (go.mod, package.json,
pyproject.toml or pytest.ini, Cargo.toml). With --plan-build it writes
PROMPT_plan.md and PROMPT_build.md instead of PROMPT.md, for --mode plan and
--mode build. Existing files are kept unless --force is given.

Then: edit the files, and run ` + "`architect loop -c ralph.yaml`" + `.

Flags:
`

func runInit(_ context.Context, e *env, args []string) error {
	fs := newFlagSet("init", e.stderr)
	force := fs.Bool("force", false, "overwrite existing files")
	planBuild := fs.Bool("plan-build", false, "write PROMPT_plan.md and PROMPT_build.md (plan and build modes) instead of PROMPT.md")
	dir := fs.StringP("dir", "C", ".", "project `directory`")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			fmt.Fprint(e.stderr, initUsage+fs.FlagUsages())
			return pflag.ErrHelp
		}
		return flagError("init", err)
	}
	if fs.NArg() > 0 {
		return &loop.UsageError{Msg: "init takes no arguments", Hint: "choose the project with -C DIR"}
	}
	p := starter.Detect(*dir)
	files := []struct{ name, text string }{{starter.PromptFile, starter.Template("")}}
	if *planBuild {
		files = []struct{ name, text string }{
			{config.ModePromptFile(config.ModePlan), starter.Template(config.ModePlan)},
			{config.ModePromptFile(config.ModeBuild), starter.Template(config.ModeBuild)},
		}
	}
	files = append(files, struct{ name, text string }{starter.ConfigFile, starter.RalphYAML(p, *planBuild)})

	var existing []string
	for _, f := range files {
		if _, err := os.Stat(filepath.Join(*dir, f.name)); err == nil {
			existing = append(existing, f.name)
		} else if !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	if len(existing) > 0 && !*force {
		// Nothing is written unless everything can be.
		for _, name := range existing[:len(existing)-1] {
			fmt.Fprintf(e.stderr, "architect: error: %s already exists (use --force to overwrite)\n", name)
		}
		return fmt.Errorf("%s already exists (use --force to overwrite)", existing[len(existing)-1])
	}
	for _, f := range files {
		path := filepath.Join(*dir, f.name)
		_, statErr := os.Stat(path)
		if err := os.WriteFile(path, []byte(f.text), 0o644); err != nil {
			return err
		}
		if statErr == nil {
			fmt.Fprintf(e.stdout, "created %s (overwritten)\n", f.name)
		} else {
			fmt.Fprintf(e.stdout, "created %s\n", f.name)
		}
	}
	if len(p.Checks) == 0 {
		fmt.Fprintln(e.stderr, "architect: warning: no checks detected: add the commands that must pass under checks: in ralph.yaml")
	} else {
		fmt.Fprintf(e.stderr, "architect: checks detected: %s\n", strings.Join(p.Checks, "; "))
	}
	if *planBuild {
		fmt.Fprintln(e.stderr, "architect: next: edit the prompts, plan with `architect loop -c ralph.yaml`, then build with `architect loop -c ralph.yaml --mode build`")
	} else {
		fmt.Fprintln(e.stderr, "architect: next: edit PROMPT.md, then run `architect loop -c ralph.yaml`")
	}
	return nil
}

const templateUsage = `Usage: architect template [--mode plan|build]

Prints the starter prompt on stdout (the one architect init writes), e.g.
architect template > BUILD_PROMPT.md. With --mode, the plan or build prompt.

Flags:
`

func runTemplate(_ context.Context, e *env, args []string) error {
	fs := newFlagSet("template", e.stderr)
	mode := fs.String("mode", "", "print the `plan` or `build` prompt")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			fmt.Fprint(e.stderr, templateUsage+fs.FlagUsages())
			return pflag.ErrHelp
		}
		return flagError("template", err)
	}
	if fs.NArg() > 0 {
		return &loop.UsageError{Msg: "template takes no arguments", Hint: "redirect the output: architect template > PROMPT.md"}
	}
	switch *mode {
	case "", config.ModePlan, config.ModeBuild:
	default:
		return &loop.UsageError{Msg: fmt.Sprintf("unknown mode %q", *mode), Hint: "use --mode plan or --mode build (or leave it out)"}
	}
	fmt.Fprint(e.stdout, starter.Template(*mode))
	return nil
}
