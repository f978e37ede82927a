package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/starter"
	"github.com/architect-dev/architect/usererr"
	"github.com/spf13/cobra"
)

func newInitCmd(e *env) *cobra.Command {
	var force, planBuild bool
	var dir, preset string
	var params []string
	c := &cobra.Command{
		Use:   "init [--force] [--plan-build | --preset NAME] [-C DIR]",
		Short: "write a starter PROMPT.md and a ralph.yaml with detected checks",
		Long: `Writes a starter PROMPT.md (the task, for the loop's --spec) and a ralph.yaml
whose checks are the ones the project's maintainers would run, detected from
its files: Go (go test, go vet, staticcheck or golangci-lint when
configured), JavaScript and TypeScript (with the package manager its lock
file names: test, lint, typecheck or tsc --noEmit), Python (pytest, ruff,
mypy or pyright when configured, through uv or poetry when used), Rust
(cargo test, clippy, fmt --check), and Makefile or justfile targets named
test, lint and check. The agent is the first installed of claude, codex,
gemini, opencode, cursor-agent, amp and aider.

With --plan-build it writes PROMPT_plan.md and PROMPT_build.md instead of
PROMPT.md, for --mode plan and --mode build. With --preset NAME it writes
only a ralph.yaml naming the preset (a ready job: its prompt is the task,
its checks are filled from the project; architect presets lists them) and
its parameters (--preset-param KEY=VALUE). Existing files are kept unless
--force is given.`,
		Example: `  architect init
  architect loop --dry-run     # reads the ralph.yaml init wrote

  # Plan, then build, in another folder
  architect init --plan-build -C ~/src/api

  # A preset: raise the coverage to 80 %
  architect init --preset coverage --preset-param target=80`,
		GroupID: groupSetup,
		Args:    noArgs("choose the project with -C DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if preset != "" {
				if planBuild {
					return &usererr.Error{Msg: "--preset and --plan-build both given", Hint: "a preset brings its own prompt: give one of them"}
				}
				return runInitPreset(e, dir, force, preset, params)
			}
			if len(params) > 0 {
				return &usererr.Error{Msg: "--preset-param without --preset", Hint: "name the preset with --preset NAME (architect presets lists them)"}
			}
			return runInit(e, dir, force, planBuild)
		},
	}
	c.Flags().BoolVar(&force, "force", false, "overwrite existing files")
	c.Flags().BoolVar(&planBuild, "plan-build", false, "write PROMPT_plan.md and PROMPT_build.md (plan and build modes) instead of PROMPT.md")
	c.Flags().StringVar(&preset, "preset", "", "write a ralph.yaml for the preset `NAME` (architect presets lists them) instead of a PROMPT.md")
	c.Flags().StringArrayVar(&params, "preset-param", nil, "a parameter of the preset, as `KEY=VALUE` (repeatable)")
	c.Flags().StringVarP(&dir, "dir", "C", ".", "project `directory`")
	_ = c.MarkFlagDirname("dir")
	return c
}

func runInit(e *env, dir string, force, planBuild bool) error {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return &usererr.Error{Msg: dir + " is not a directory", Hint: "pass the project's folder with -C DIR"}
	}
	p := starter.Detect(dir)
	p.Agent, p.AgentsFound = starter.PickAgent(exec.LookPath)
	files := []initFile{{starter.PromptFile, starter.Template("")}}
	if planBuild {
		files = []initFile{
			{config.ModePromptFile(config.ModePlan), starter.Template(config.ModePlan)},
			{config.ModePromptFile(config.ModeBuild), starter.Template(config.ModeBuild)},
		}
	}
	files = append(files, initFile{starter.ConfigFile, starter.RalphYAML(p, planBuild)})
	if err := writeInitFiles(e, dir, force, files); err != nil {
		return err
	}

	if len(p.Checks) == 0 {
		usererr.Say(e.stderr, usererr.LevelWarning, "no checks detected: add the commands that must pass under checks: in ralph.yaml")
	} else {
		fmt.Fprintf(e.stderr, "architect: checks detected (%s): %s\n", strings.Join(p.Sources, ", "), strings.Join(p.Checks, "; "))
	}
	switch {
	case p.Agent == "":
		usererr.Say(e.stderr, usererr.LevelWarning, "no agent CLI found on PATH, so ralph.yaml names claude: %s, or set agent_cmd", starter.InstallHint())
	case len(p.AgentsFound) > 1:
		fmt.Fprintf(e.stderr, "architect: agent: %s (installed: %s; change agent: in ralph.yaml to use another)\n", p.Agent, strings.Join(p.AgentsFound, ", "))
	default:
		fmt.Fprintf(e.stderr, "architect: agent: %s (found on PATH)\n", p.Agent)
	}
	if planBuild {
		fmt.Fprintf(e.stderr, "architect: next: edit the prompts, plan with `architect loop%s`, then build with `architect loop%s --mode build` (loop reads ralph.yaml)\n", dirArg(dir), dirArg(dir))
	} else {
		fmt.Fprintf(e.stderr, "architect: next: write the task in PROMPT.md (its first line, %s, is the title), check with `architect loop%s --dry-run`, then run `architect loop%s` (loop reads ralph.yaml)\n", starter.Placeholder, dirArg(dir), dirArg(dir))
	}
	return nil
}

// dirArg is the -C argument that names dir in a command to run next, ""
// for the current folder.
func dirArg(dir string) string {
	if filepath.Clean(dir) == "." {
		return ""
	}
	return " -C " + shellArg(dir)
}

// initFile is a file init writes.
type initFile struct{ name, text string }

// writeInitFiles writes files into dir: all or, when one exists and force
// is not given, none.
func writeInitFiles(e *env, dir string, force bool, files []initFile) error {
	var existing []string
	for _, f := range files {
		if _, err := os.Stat(filepath.Join(dir, f.name)); err == nil {
			existing = append(existing, f.name)
		} else if !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	if len(existing) > 0 && !force {
		// Nothing is written unless everything can be.
		for _, name := range existing[:len(existing)-1] {
			usererr.Say(e.stderr, usererr.LevelError, "%s already exists (use --force to overwrite)", name)
		}
		return &failure{
			msg:  fmt.Sprintf("%s already exists (use --force to overwrite)", existing[len(existing)-1]),
			hint: "nothing was written; edit the existing files, or pass --force to replace them",
			code: ExitNoSuccess,
		}
	}
	for _, f := range files {
		path := filepath.Join(dir, f.name)
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
	return nil
}

// runInitPreset writes the ralph.yaml that names preset, once the preset
// renders for the project with params.
func runInitPreset(e *env, dir string, force bool, name string, params []string) error {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return &usererr.Error{Msg: dir + " is not a directory", Hint: "pass the project's folder with -C DIR"}
	}
	p, r, err := presetInit(e, dir, name, params)
	if err != nil {
		return err
	}
	proj := starter.Detect(dir)
	proj.Agent, proj.AgentsFound = starter.PickAgent(exec.LookPath)
	if err := writeInitFiles(e, dir, force, []initFile{{starter.ConfigFile, presetRalphYAML(p, r, params, proj)}}); err != nil {
		return err
	}
	if len(r.Checks) == 0 {
		usererr.Say(e.stderr, usererr.LevelWarning, "the preset found no checks for this project: add the commands that must pass under checks: in ralph.yaml")
	} else {
		fmt.Fprintf(e.stderr, "architect: the preset's checks: %d (architect presets %s%s shows them)\n", len(r.Checks), name, dirArg(dir))
	}
	if proj.Agent == "" {
		usererr.Say(e.stderr, usererr.LevelWarning, "no agent CLI found on PATH, so ralph.yaml names claude: %s, or set agent_cmd", starter.InstallHint())
	}
	fmt.Fprintf(e.stderr, "architect: next: check with `architect loop%s --dry-run`, then run `architect loop%s` (loop reads ralph.yaml)\n", dirArg(dir), dirArg(dir))
	return nil
}
