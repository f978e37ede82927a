package config

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/matryer/is"
)

// fakePreset is a preset layer that records what it was asked for.
type fakePreset struct {
	text      string
	name, dir string
	params    []string
	calls     int
	err       error
}

func (f *fakePreset) layer(name string, params []string, dir string) ([]byte, string, error) {
	f.calls++
	f.name, f.params, f.dir = name, params, dir
	return []byte(f.text), "preset " + name, f.err
}

const presetText = `ralph_loop:
  task: the preset's task
  checks: [preset-check-1, preset-check-2]
  max_iterations: 7
  check_timeout: 30
`

// The preset's keys lie under the file's, the environment's and the
// flags', key by key; what nothing overrides stays the preset's.
func TestPresetLayerUnderEverything(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "ralph.yaml")
	is.NoErr(os.WriteFile(file, []byte("ralph_loop:\n  preset: demo\n  preset_params: [\"target=80\"]\n  max_iterations: 9\n"), 0o644))
	f := &fakePreset{text: presetText}
	env := func(k string) (string, bool) {
		if k == "ARCHITECT_CHECK_TIMEOUT" {
			return "45", true
		}
		return "", false
	}
	fs, fl := parse(t, "--check", "mine", "-C", dir)
	c, src, _, err := LoadWithPreset(f.layer, file, "", env, fs, fl)
	is.NoErr(err)
	is.Equal(f.calls, 1)
	is.Equal(f.name, "demo")
	is.Equal(f.params, []string{"target=80"})
	is.Equal(f.dir, dir)
	is.Equal(c.Task, "the preset's task")    // from the preset
	is.Equal(src["task"], "preset demo:2")   // and said so
	is.Equal(c.MaxIterations, 9)             // the file beats the preset
	is.Equal(c.CheckTimeout.Seconds(), 45.0) // the environment beats the preset
	is.Equal(c.Checks, []string{"mine"})     // a flag replaces the preset's list
	is.Equal(c.Preset, "demo")

	// Without the flag, the preset's checks.
	fs, fl = parse(t, "-C", dir)
	c, _, _, err = LoadWithPreset(f.layer, file, "", noEnv, fs, fl)
	is.NoErr(err)
	is.Equal(c.Checks, []string{"preset-check-1", "preset-check-2"})
}

// A spec or a TASK argument replaces the preset's task.
func TestPresetTaskGivesWay(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	is.NoErr(os.WriteFile(filepath.Join(dir, "SPEC.md"), []byte("# spec\n"), 0o644))
	f := &fakePreset{text: presetText}
	fs, fl := parse(t, "--preset", "demo", "--spec", filepath.Join(dir, "SPEC.md"), "-C", dir)
	c, _, _, err := LoadWithPreset(f.layer, "", "", noEnv, fs, fl)
	is.NoErr(err)
	is.Equal(c.Task, "")
	is.Equal(c.Spec, filepath.Join(dir, "SPEC.md"))

	fs, fl = parse(t, "--preset", "demo", "-C", dir)
	c, _, _, err = LoadWithPreset(f.layer, "", "do this instead", noEnv, fs, fl)
	is.NoErr(err)
	is.Equal(c.Task, "do this instead")
}

// The layer's error is the user's: it comes back as it is, and a loader
// without presets refuses a configuration naming one.
func TestPresetErrors(t *testing.T) {
	is := is.New(t)
	boom := errors.New("preset demo needs the parameter target")
	f := &fakePreset{text: presetText, err: boom}
	fs, fl := parse(t, "--preset", "demo")
	_, _, _, err := LoadWithPreset(f.layer, "", "", noEnv, fs, fl)
	is.True(errors.Is(err, boom))

	fs, fl = parse(t, "--preset", "demo", "--check", "x")
	_, _, _, err = LoadSources("", "task", noEnv, fs, fl)
	var es Errors
	is.True(errors.As(err, &es))
	is.Equal(es[0].Key, "preset")

	// A preset's bad key is named at the preset.
	f = &fakePreset{text: "ralph_loop:\n  max_iterations: lots\n"}
	fs, fl = parse(t, "--preset", "demo", "--check", "x")
	_, _, _, err = LoadWithPreset(f.layer, "", "task", noEnv, fs, fl)
	is.True(errors.As(err, &es))
	is.Equal(es[0].Source, "preset demo:2")
}
