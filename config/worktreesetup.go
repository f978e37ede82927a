package config

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// WorktreeSetup is worktree_setup: in ralph.yaml: what makes a new
// worktree ready to work in (a --worktree run's, every batch task's).
// Copy and Link name files and folders of the main checkout, relative to
// the repository's top-level folder, that git ignores and a worktree
// therefore lacks (.env, node_modules): Copy copies them, Link makes a
// symbolic link to them. A trailing "?" marks an entry optional (missing:
// skipped); a missing entry without it refuses the run before anything is
// created. Entries may be globs (path.Match syntax); a glob that matches
// nothing counts as missing. Command runs once in each new worktree,
// before the first iteration, as a check runs (Timeout, the sandbox, the
// process tree killed); Caches ("on", the default, or "off") points the
// package managers' caches of the command, the agent and the checks at
// one folder under the user's cache folder, shared by every worktree.
type WorktreeSetup struct {
	Copy    []string      `json:"copy,omitempty"`
	Link    []string      `json:"link,omitempty"`
	Command string        `json:"command,omitempty"`
	Timeout time.Duration `json:"timeout,omitempty"`
	Caches  string        `json:"caches,omitempty"`
}

// DefaultSetupTimeout bounds the setup command when worktree_setup sets
// no timeout: installs take longer than a check.
const DefaultSetupTimeout = 10 * time.Minute

// Whether the package managers' caches are shared between worktrees.
const (
	CachesOn  = "on"
	CachesOff = "off"
)

// SharedCaches reports whether the caches are shared ("" is on).
func (w WorktreeSetup) SharedCaches() bool { return w.Caches != CachesOff }

// SetupTimeout is the setup command's timeout.
func (w WorktreeSetup) SetupTimeout() time.Duration {
	if w.Timeout > 0 {
		return w.Timeout
	}
	return DefaultSetupTimeout
}

// Empty reports whether nothing is asked of a new worktree beyond the
// shared caches.
func (w WorktreeSetup) Empty() bool {
	return len(w.Copy) == 0 && len(w.Link) == 0 && strings.TrimSpace(w.Command) == ""
}

// SetupEntry is one entry of copy: or link: read: its pattern (relative,
// slash-separated) and whether it may be missing.
type SetupEntry struct {
	Pattern  string
	Optional bool
}

// ParseSetupEntry splits the "?" of an optional entry off e.
func ParseSetupEntry(e string) SetupEntry {
	e = strings.TrimSpace(e)
	if p, ok := strings.CutSuffix(e, "?"); ok {
		return SetupEntry{Pattern: p, Optional: true}
	}
	return SetupEntry{Pattern: e}
}

// SetupPathProblem says why pattern (an entry of copy: or link:, its "?"
// cut) cannot be used, or "" when it can: it must be a relative path
// inside the repository, not architect's nor git's own folder, and a
// valid glob.
func SetupPathProblem(pattern string) string {
	p := filepath.ToSlash(pattern)
	switch {
	case strings.TrimSpace(p) == "":
		return "is empty"
	case filepath.IsAbs(pattern) || strings.HasPrefix(p, "/") || filepath.VolumeName(pattern) != "":
		return fmt.Sprintf("%q is absolute: entries are relative to the repository's top-level folder", pattern)
	}
	for _, part := range strings.Split(p, "/") {
		switch part {
		case "..":
			return fmt.Sprintf("%q leaves the repository", pattern)
		case ".git", ".architect", ".architect-worktrees", ".architect-ralph-worktree":
			return fmt.Sprintf("%q names %s, which is git's or architect's own", pattern, part)
		}
	}
	if path.Clean(p) == "." {
		return fmt.Sprintf("%q is the whole repository", pattern)
	}
	if _, err := path.Match(p, ""); err != nil {
		return fmt.Sprintf("%q is not a valid glob: %v", pattern, err)
	}
	return ""
}

var worktreeSetupKeys = []string{"copy", "link", "command", "timeout", "caches"}

const worktreeSetupHint = "worktree_setup: {copy: [.env, '.env.local?'], link: ['node_modules?'], command: npm ci, timeout: 10m, caches: on} (see docs/worktree-setup.md)"

// loadWorktreeSetup reads worktree_setup: {copy, link, command, timeout,
// caches}.
func loadWorktreeSetup(path string, m *yaml.Node, c *Config, src Sources) Errors {
	if m.Kind == yaml.ScalarNode && m.Tag == "!!null" {
		return nil
	}
	if m.Kind != yaml.MappingNode {
		return Errors{{Source: at(path, m), Key: "worktree_setup", Msg: "must be a mapping of copy, link, command, timeout, caches", Hint: worktreeSetupHint}}
	}
	var errs Errors
	w := c.WorktreeSetup
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		key := "worktree_setup." + k.Value
		if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
			continue
		}
		switch k.Value {
		case "copy", "link":
			list, err := stringList(v)
			if err != nil {
				errs = append(errs, &Error{Source: at(path, v), Key: key, Msg: err.Error(), Hint: worktreeSetupHint})
				continue
			}
			if k.Value == "copy" {
				w.Copy = list
			} else {
				w.Link = list
			}
		case "command", "timeout", "caches":
			if err := scalarValue(path, "worktree_setup", k, v, worktreeSetupHint); err != nil {
				errs = append(errs, err)
				continue
			}
			switch k.Value {
			case "command":
				w.Command = v.Value
			case "timeout":
				d, err := ParseDuration(v.Value)
				if err != nil {
					errs = append(errs, errorOf(at(path, v), key, err, "give the setup command's timeout, e.g. 10m or 600"))
					continue
				}
				w.Timeout = d
			case "caches":
				// YAML 1.1 words for on and off are read as true and false.
				switch strings.ToLower(v.Value) {
				case "on", "true", "yes":
					w.Caches = CachesOn
				case "off", "false", "no":
					w.Caches = CachesOff
				default:
					errs = append(errs, &Error{Source: at(path, v), Key: key, Msg: fmt.Sprintf("%q is not on or off", v.Value), Hint: "caches: on shares the package managers' caches between worktrees; off leaves them as the tools set them"})
					continue
				}
			}
		default:
			errs = append(errs, unknownKey(path, k, worktreeSetupKeys, "worktree_setup"))
			continue
		}
		src[key] = at(path, k)
	}
	c.WorktreeSetup = w
	src["worktree_setup"] = at(path, m)
	return errs
}

// stringList reads one string, or a list of strings.
func stringList(v *yaml.Node) ([]string, error) {
	switch v.Kind {
	case yaml.ScalarNode:
		return []string{v.Value}, nil
	case yaml.SequenceNode:
		var list []string
		for _, item := range v.Content {
			if item.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("line %d: each item must be a path", item.Line)
			}
			list = append(list, item.Value)
		}
		return list, nil
	}
	return nil, fmt.Errorf("must be a list of paths")
}

// validateWorktreeSetup refuses entries of copy: and link: that could
// reach outside the repository or into git's or architect's own folders,
// and an entry both copied and linked.
func (c *Config) validateWorktreeSetup(ps *problems) {
	w := c.WorktreeSetup
	seen := map[string]string{}
	for _, list := range []struct {
		key     string
		entries []string
	}{{"worktree_setup.copy", w.Copy}, {"worktree_setup.link", w.Link}} {
		for i, e := range list.entries {
			key := fmt.Sprintf("%s[%d]", list.key, i)
			p := ParseSetupEntry(e)
			if msg := SetupPathProblem(p.Pattern); msg != "" {
				ps.errs = append(ps.errs, &Error{Source: ps.src[list.key], Key: key, Msg: msg, Hint: "name files and folders relative to the repository's top-level folder, e.g. .env or config/.dev.vars (a trailing ? marks one optional)"})
				continue
			}
			clean := path.Clean(filepath.ToSlash(p.Pattern))
			if prev, ok := seen[clean]; ok && prev != list.key {
				ps.errs = append(ps.errs, &Error{Source: ps.src[list.key], Key: key, Msg: fmt.Sprintf("%q is both copied and linked", p.Pattern), Hint: "keep it in copy: (the worktree gets its own) or in link: (the worktree shares the main checkout's)"})
			}
			seen[clean] = list.key
		}
	}
	if src := ps.src["worktree_setup.command"]; src != "" && strings.TrimSpace(w.Command) == "" {
		ps.errs = append(ps.errs, &Error{Source: src, Key: "worktree_setup.command", Msg: "is empty", Hint: "give the shell command that prepares a new worktree (npm ci, uv sync), or leave command out"})
	}
	if src := ps.src["worktree_setup.timeout"]; src != "" && w.Timeout == 0 {
		ps.errs = append(ps.errs, &Error{Source: src, Key: "worktree_setup.timeout", Msg: "is 0", Hint: "give the setup command time to run, e.g. 10m (the default)"})
	}
}

// worktreeSetupSchema is the JSON Schema of worktree_setup:.
func worktreeSetupSchema() map[string]any {
	paths := func(d string) map[string]any {
		return nullable(map[string]any{"description": d, "$ref": "#/$defs/stringList"})
	}
	return map[string]any{
		"description":          "what makes each new worktree (--worktree, every batch task) ready to work in: ignored files copied or linked from the main checkout, a setup command run once, shared package caches (docs/worktree-setup.md)",
		"type":                 []string{"object", "null"},
		"additionalProperties": false,
		"properties": map[string]any{
			"copy":    paths("files and folders (relative to the repository's top-level folder; globs) copied from the main checkout into each new worktree, never over a file already there; a trailing ? marks one optional"),
			"link":    paths("files and folders linked (a symbolic link) from each new worktree to the main checkout's, such as node_modules; a trailing ? marks one optional"),
			"command": nullable(map[string]any{"type": "string", "description": "shell command run once in each new worktree before the first iteration (npm ci, uv sync, go mod download), supervised as a check; its failure stops the run as a setup error before any agent starts"}),
			"timeout": nullable(map[string]any{"$ref": "#/$defs/duration", "description": "how long the setup command may run before its process tree is killed (default 10m)"}),
			"caches":  map[string]any{"description": "on (default): the package managers' caches (npm, yarn, pnpm, uv, pip, bun) are one folder under the user's cache folder, shared by every worktree; off: left as the tools set them", "enum": []any{"on", "off", true, false, nil}},
		},
	}
}
