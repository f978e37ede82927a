package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"
)

func TestModePromptFileIsTheSpec(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	is.NoErr(os.WriteFile(filepath.Join(dir, "PROMPT_plan.md"), []byte("plan it"), 0o644))
	fs, fl := parse(t, "--mode", "plan", "-C", dir)
	c, _, warnings, err := LoadSources("", "", noEnv, fs, fl)
	is.NoErr(err)
	is.Equal(c.Spec, filepath.Join(dir, "PROMPT_plan.md"))
	is.Equal(len(warnings), 0) // checks are optional in plan mode
}

func TestModeWithTaskKeepsTheTask(t *testing.T) {
	is := is.New(t)
	fs, fl := parse(t, "--mode", "build", "--check", "true")
	c, _, _, err := LoadSources("", "do it", noEnv, fs, fl)
	is.NoErr(err)
	is.Equal(c.Spec, "")
	is.Equal(c.Mode, "build")
}

func TestModeErrors(t *testing.T) {
	for _, tc := range []struct{ mode, want, hint string }{
		{"build", "PROMPT_build.md, which was not found", "architect init --plan-build"},
		{"draft", `unknown mode "draft"`, "--mode plan"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			is := is.New(t)
			fs, fl := parse(t, "--mode", tc.mode, "-C", t.TempDir(), "--check", "true")
			_, _, _, err := LoadSources("", "", noEnv, fs, fl)
			es, ok := err.(Errors)
			is.True(ok)
			is.True(len(es) >= 1)
			is.True(strings.Contains(es[0].Error(), tc.want))
			is.True(strings.Contains(es[0].Hint, tc.hint))
			if tc.mode == "build" {
				is.Equal(len(es), 1) // not also "no task" or "spec not found"
			}
		})
	}
}

func TestModeFromEnvAndFile(t *testing.T) {
	is := is.New(t)
	file := writeFile(t, "ralph.yaml", "ralph_loop:\n  mode: plan\n  task: analyse\n")
	c, _, _, err := LoadSources(file, "", noEnv, nil, nil)
	is.NoErr(err)
	is.Equal(c.Mode, "plan")
	c, _, _, err = LoadSources("", "x", envOf(map[string]string{"ARCHITECT_MODE": "build", "ARCHITECT_CHECKS": "true"}), nil, nil)
	is.NoErr(err)
	is.Equal(c.Mode, "build")
}

func TestValidWorktreeName(t *testing.T) {
	for name, want := range map[string]bool{
		"fix-auth": true, "v1.2_rc": true, "A9": true, "9lives": true,
		"": false, "-x": false, ".x": false, "_x": false, "a..b": false, "x.lock": false,
		"a/b": false, "a b": false, "é": false, "a~": false, "a:b": false,
	} {
		if got := ValidWorktreeName(name); got != want {
			t.Errorf("ValidWorktreeName(%q) = %v, want %v", name, got, want)
		}
	}
}
