package config

import (
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/agent"
)

func TestFallbackEntries(t *testing.T) {
	is := is.New(t)
	fs, fl := parse(t, "--check", "true", "--agent", "claude", "--agent-bin", "/opt/claude", "--agent-arg", "--max-turns",
		"--fallback", "codex:gpt-5.5", "--fallback", "claude:haiku", "--fallback", "command:./my-agent --fast",
		"--fallback", "opencode:anthropic/claude-sonnet-4-5")
	c, _, _, err := LoadSources("", "fix it", noEnv, fs, fl)
	is.NoErr(err)
	got := c.FallbackAgents()
	is.Equal(len(got), 4)
	is.Equal(got[0], agent.Config{Name: "codex", Model: "gpt-5.5"}) // its usual executable, no extra arguments
	// Another model of the run's own agent keeps its executable and arguments.
	is.Equal(got[1], agent.Config{Name: "claude", Model: "haiku", Bin: "/opt/claude", Args: []string{"--max-turns"}})
	is.Equal(got[2], agent.Config{Name: "command", Cmd: "./my-agent --fast"})
	is.Equal(got[3].Model, "anthropic/claude-sonnet-4-5") // the model may hold a slash
	is.Equal(AgentLabel(got[0]), "codex:gpt-5.5")
	is.Equal(AgentLabel(got[2]), "command")

	// From the file and the environment: one entry per line.
	file := writeFile(t, "ralph.yaml", "ralph_loop:\n  checks: [true]\n  fallback: [gemini:gemini-2.5-pro, codex]\n")
	c, _, _, err = LoadSources(file, "fix it", noEnv, nil, nil)
	is.NoErr(err)
	is.Equal(c.Fallback, []string{"gemini:gemini-2.5-pro", "codex"})
	c, _, _, err = LoadSources("", "fix it", envOf(map[string]string{"ARCHITECT_FALLBACK": "codex\ngemini", "ARCHITECT_CHECKS": "true"}), nil, nil)
	is.NoErr(err)
	is.Equal(c.Fallback, []string{"codex", "gemini"})
	is.Equal(c.OutageRetries, 2)
	is.Equal(c.StallThreshold, 5)
	is.Equal(c.OnStall, StallStop)
}

// Bad fallbacks and stall options are refused, each naming the flag.
func TestFallbackValidation(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--fallback", "nope"}, `--fallback: "nope" names no agent`},
		{[]string{"--fallback", "codex:"}, "no model after it"},
		{[]string{"--fallback", "command"}, "needs its shell command"},
		{[]string{"--fallback", ""}, "an empty entry"},
		{[]string{"--fallback", "claude"}, "the run's own agent"},
		{[]string{"--model", "opus", "--fallback", "claude:opus"}, "the run's own agent"},
		{[]string{"--fallback", "codex", "--fallback", "codex"}, "already in the list"},
		{[]string{"--on-stall", "fallback"}, "--on-stall: fallback needs an agent to fall back on"},
		{[]string{"--on-stall", "shrug"}, `"shrug" is none of stop, fallback, pause`},
		{[]string{"--outage-retries", "-1"}, "--outage-retries: -1 is out of range"},
		{[]string{"--stall-threshold", "5000"}, "--stall-threshold: 5000 is out of range"},
	} {
		fs, fl := parse(t, append([]string{"--check", "true"}, tc.args...)...)
		_, _, _, err := LoadSources("", "fix it", noEnv, fs, fl)
		if err == nil || !strings.Contains(err.(Errors)[0].Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.want)
		}
	}
}
