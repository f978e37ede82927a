package config

import (
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ApplyYAML sets the loop options of the YAML mapping m (the keys of the
// ralph_loop: section, and prices:) onto c, for files other than ralph.yaml
// that embed loop options, such as a batch file. path names the file in
// errors (with the line); keys are reported as prefix+key ("tasks.a." +
// "max_cost"); where names the mapping in unknown-key messages. A relative
// spec is taken from the file's folder. Every problem is returned at once,
// with the same messages and hints as ralph.yaml gets: the keys are read
// as those of its ralph_loop: section.
func ApplyYAML(path, prefix, where string, m *yaml.Node, c *Config, src Sources) Errors {
	if m == nil {
		return nil
	}
	errs := loadSection(path, filepath.Dir(path), m, c, src)
	for _, e := range errs {
		e.Msg = strings.Replace(e.Msg, "in ralph_loop", "in "+where, 1)
		if e.Key == "ralph_loop" || e.Key == "" {
			e.Key = strings.TrimSuffix(prefix, ".")
		} else {
			e.Key = prefix + e.Key
		}
	}
	return errs
}

// Validate normalises c and reports every problem at once, as LoadSources
// does; src says where each key came from. It returns warnings worth
// printing.
func (c *Config) Validate(src Sources) ([]string, error) { return c.validate(src) }

// MaxWorktreeName is the longest worktree name: far below the 255 bytes a
// file name (and a branch name's last part) may have.
const MaxWorktreeName = 100

// ValidWorktreeName reports whether name can name a worktree folder
// (.architect-worktrees/NAME) and a branch (architect/NAME): letters,
// digits, '.', '_' and '-', starting with a letter or digit, at most
// MaxWorktreeName of them, without ".." or a ".lock" ending (git refuses
// both in a branch name).
func ValidWorktreeName(name string) bool {
	if name == "" || len(name) > MaxWorktreeName || strings.Contains(name, "..") || strings.HasSuffix(name, ".lock") {
		return false
	}
	for i, r := range name {
		alnum := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
		if !alnum && (i == 0 || r != '.' && r != '_' && r != '-') {
			return false
		}
	}
	return true
}
