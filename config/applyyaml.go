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
