package cli

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/starter"
	"github.com/architect-dev/architect/usererr"
	"github.com/spf13/cobra"
)

func newPresetsCmd(e *env) *cobra.Command {
	var dir string
	var params []string
	c := &cobra.Command{
		Use:   "presets [NAME] [--preset-param KEY=VALUE]... [-C DIR]",
		Short: "list the presets, or show what one would run in this project",
		Long: `Lists the presets: ready jobs (a prompt, checks and limits) that
` + "`architect init --preset NAME`" + ` and ` + "`preset: NAME`" + ` in ralph.yaml use. The built-in
ones are fix-tests, coverage, lint, upgrade-dependency, implement-spec and
review-fix; a project adds its own in ` + starter.PresetDir + `/NAME.yaml (and
NAME.md, the prompt), a user in ~/.config/architect/presets/; a preset there
replaces the built-in of the same name.

With NAME, shows the preset: its parameters, and with them the task,
checks and limits it gives the project in -C DIR (its checks are detected
from the project's files, as architect init detects them).`,
		Example: `  architect presets
  architect presets coverage --preset-param target=80`,
		GroupID: groupSetup,
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dirs := presetDirs(e, dir)
			if len(args) == 0 {
				all, err := starter.Presets(dirs...)
				if err != nil {
					return err
				}
				tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
				for _, p := range all {
					var names []string
					for _, prm := range p.Params {
						n := prm.Name
						if !prm.Required {
							n = "[" + n + "]"
						}
						names = append(names, n)
					}
					src := ""
					if p.Source != "built-in" {
						src = "  (" + p.Source + ")"
					}
					fmt.Fprintf(tw, "%s\t%s\t%s%s\n", p.Name, strings.Join(names, " "), p.Description, src)
				}
				return tw.Flush()
			}
			p, err := starter.FindPreset(args[0], dirs...)
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "%s: %s\nsource: %s\n", p.Name, p.Description, p.Source)
			if len(p.Params) > 0 {
				fmt.Fprintln(e.stdout, "parameters (--preset-param KEY=VALUE, or preset_params: in ralph.yaml):")
				for _, prm := range p.Params {
					req := "required"
					if !prm.Required {
						req = fmt.Sprintf("default %q", prm.Default)
					}
					fmt.Fprintf(e.stdout, "  %s: %s (%s)\n", prm.Name, prm.Description, req)
				}
			}
			r, err := p.Render(params, dir)
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "in %s, as the layer under ralph.yaml's keys:\n%s\n", dir, strings.TrimRight(string(r.YAML), "\n"))
			return nil
		},
	}
	c.Flags().StringArrayVar(&params, "preset-param", nil, "a parameter of the preset, as `KEY=VALUE` (repeatable)")
	c.Flags().StringVarP(&dir, "dir", "C", ".", "project `directory`")
	_ = c.MarkFlagDirname("dir")
	return c
}

// presetDirs are the folders presets are read from, the first winning: the
// project's (in dir), then the user's.
func presetDirs(e *env, dir string) []string {
	return []string{filepath.Join(dir, starter.PresetDir), starter.UserPresetDir(e.lookup)}
}

// presetLayer reads the preset a configuration names, for
// config.LoadWithPreset.
func presetLayer(e *env) config.PresetLayer {
	return func(name string, params []string, dir string) ([]byte, string, error) {
		p, err := starter.FindPreset(name, presetDirs(e, dir)...)
		if err != nil {
			return nil, "", err
		}
		r, err := p.Render(params, dir)
		if err != nil {
			return nil, "", err
		}
		return r.YAML, "preset " + name, nil
	}
}

// presetRalphYAML is the ralph.yaml `architect init --preset` writes: the
// preset, its parameters, and what it gives this project, in comments.
func presetRalphYAML(p starter.Preset, r starter.Rendered, params []string, proj starter.Project) string {
	var b strings.Builder
	b.WriteString(config.SchemaComment + "\n")
	b.WriteString("# ralph.yaml, written by `architect init --preset " + p.Name + "`. `architect loop`\n")
	b.WriteString("# in this folder reads it; flags given to it beat its values.\n")
	b.WriteString("#   architect loop --dry-run      # what would run\n")
	b.WriteString("#   architect loop\n")
	b.WriteString("# Every key is described in architect's ralph.yaml.example.\n\nralph_loop:\n")
	fmt.Fprintf(&b, "  # The preset %s (%s):\n", p.Name, p.Description)
	b.WriteString("  # its prompt is the task, and its checks and limits come first; a key\n")
	b.WriteString("  # written here overrides the preset's (`architect presets " + p.Name + "` shows them).\n")
	fmt.Fprintf(&b, "  preset: %s\n", p.Name)
	if len(params) > 0 {
		quoted := make([]string, len(params))
		for i, kv := range params {
			quoted[i] = fmt.Sprintf("%q", kv)
		}
		fmt.Fprintf(&b, "  preset_params: [%s]\n", strings.Join(quoted, ", "))
	}
	if len(r.Checks) > 0 {
		b.WriteString("\n  # The preset's checks in this project, today:\n")
		for _, c := range r.Checks {
			line, _, cut := strings.Cut(c, "\n")
			if cut || len(line) > 100 {
				line = strings.TrimSpace(line[:min(len(line), 100)]) + " …"
			}
			fmt.Fprintf(&b, "  #   - %s\n", line)
		}
	}
	b.WriteString("\n")
	switch {
	case proj.Agent == "":
		b.WriteString("  # No agent CLI was found on PATH when this file was written: install\n")
		b.WriteString("  # one, or set agent_cmd to any command that reads the prompt on stdin.\n")
		b.WriteString("  agent: claude\n")
	case len(proj.AgentsFound) > 1:
		fmt.Fprintf(&b, "  agent: %s   # installed: %s\n", proj.Agent, strings.Join(proj.AgentsFound, ", "))
	default:
		fmt.Fprintf(&b, "  agent: %s\n", proj.Agent)
	}
	b.WriteString("  # max_cost: 5        # USD\n")
	b.WriteString("  # worktree: true     # work on branch architect/ralph-loop in .architect-ralph-worktree\n")
	return b.String()
}

// presetInit renders the preset for init, its errors the user's.
func presetInit(e *env, dir, name string, params []string) (starter.Preset, starter.Rendered, error) {
	p, err := starter.FindPreset(name, presetDirs(e, dir)...)
	var ue *usererr.Error
	if errors.As(err, &ue) {
		ue.Msg = "--preset: " + ue.Msg
	}
	if err != nil {
		return p, starter.Rendered{}, err
	}
	r, err := p.Render(params, dir)
	if err != nil {
		if errors.As(err, &ue) {
			ue.Hint += "; nothing was written"
		}
		return p, r, err
	}
	return p, r, nil
}
