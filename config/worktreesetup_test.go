package config

import (
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"
)

func TestWorktreeSetupSection(t *testing.T) {
	is := is.New(t)
	path := writeFile(t, "ralph.yaml", "ralph_loop:\n  worktree_setup:\n    copy:\n      - .env\n      - .env.local?\n    link: 'node_modules?'\n    command: npm ci\n    timeout: 90s\n    caches: off\n")
	c, err := loadFileOnly(path)
	is.NoErr(err)
	w := c.WorktreeSetup
	is.Equal(w.Copy, []string{".env", ".env.local?"})
	is.Equal(w.Link, []string{"node_modules?"})
	is.Equal(w.Command, "npm ci")
	is.Equal(w.SetupTimeout(), 90*time.Second)
	is.True(!w.SharedCaches())
	is.Equal(ParseSetupEntry(".env.local?"), SetupEntry{Pattern: ".env.local", Optional: true})

	d := Defaults().WorktreeSetup
	is.True(d.SharedCaches())                       // shared unless turned off
	is.Equal(d.SetupTimeout(), DefaultSetupTimeout) // no timeout given
	is.True(d.Empty())
}

// Entries that would reach outside the repository, or into git's or
// architect's own folders, are refused with the entry named.
func TestWorktreeSetupRefused(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"copy: [/etc/passwd]", "is absolute"},
		{"copy: [../secrets/.env]", "leaves the repository"},
		{"link: [a/../../b]", "leaves the repository"},
		{"copy: [.git/config]", "git's or architect's own"},
		{"copy: [.architect]", "git's or architect's own"},
		{"copy: ['[.env']", "not a valid glob"},
		{"copy: ['.']", "whole repository"},
		{"copy: [.env]\n    link: [.env]", "both copied and linked"},
		{"command: ' '", "is empty"},
		{"timeout: 0", "is 0"},
		{"caches: maybe", "is not on or off"},
		{"copy: {a: b}", "must be a list of paths"},
		{"setup: npm ci", `unknown key "setup" in worktree_setup`},
	} {
		t.Run(tc.want, func(t *testing.T) {
			is := is.New(t)
			path := writeFile(t, "ralph.yaml", "ralph_loop:\n  task: t\n  checks: [true]\n  worktree_setup:\n    "+tc.yaml+"\n")
			_, _, _, err := LoadSources(path, "", nil, nil, nil)
			is.True(err != nil)
			is.True(strings.Contains(err.Error(), tc.want)) // says what is wrong
			is.True(strings.Contains(err.Error(), "worktree_setup"))
		})
	}
}
