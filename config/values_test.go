package config

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/agent"
)

// What the door refuses, through the environment (read as a YAML scalar
// is), with the message that names the variable.
func TestDoorRefuses(t *testing.T) {
	long := strings.Repeat("a", maxName+1)
	for _, tc := range []struct{ env, value, want string }{
		{"ARCHITECT_MAX_COST", "NaN", `ARCHITECT_MAX_COST: "NaN" is not a number`},
		{"ARCHITECT_MAX_COST", "-Inf", `ARCHITECT_MAX_COST: "-Inf" is not a number`},
		{"ARCHITECT_MAX_TIME", "Inf", `ARCHITECT_MAX_TIME: "Inf" is too long (at most 2562047h, about 292 years)`},
		{"ARCHITECT_MAX_TIME", "1e-12", `ARCHITECT_MAX_TIME: "1e-12" is shorter than a nanosecond`},
		{"ARCHITECT_CHECK_TIMEOUT", "99999999999999h", `ARCHITECT_CHECK_TIMEOUT: "99999999999999h" is too long`},
		{"ARCHITECT_KILL_GRACE", "NaN", `ARCHITECT_KILL_GRACE: "NaN" is not a number of seconds`},
		{"ARCHITECT_IDLE_THRESHOLD", "9223372036854775808", `ARCHITECT_IDLE_THRESHOLD: "9223372036854775808" is out of range`},
		{"ARCHITECT_MODEL", "a\xffb", "ARCHITECT_MODEL: is not valid UTF-8 text"},
		{"ARCHITECT_MODEL", "\x1b[31mred", "ARCHITECT_MODEL: contains the control character U+001B"},
		{"ARCHITECT_SPEC", "new\nline.md", "ARCHITECT_SPEC: contains the control character U+000A"},
		{"ARCHITECT_AGENT_BIN", long, "ARCHITECT_AGENT_BIN: is 4097 bytes long (at most 4096)"},
		{"ARCHITECT_CHECKS", strings.Repeat("c", maxArg+1), "ARCHITECT_CHECKS: item 1 is 131072 bytes long (at most 131071: it is passed to a process as one argument)"},
		{"ARCHITECT_TASK", "a\x00b", "ARCHITECT_TASK: contains a NUL byte"},
		{"ARCHITECT_REDACT", strings.Repeat("x", maxPattern+1), "ARCHITECT_REDACT: a pattern of 1025 bytes is too long (at most 1024)"},
		{"ARCHITECT_WORKTREE_NAME", strings.Repeat("w", MaxWorktreeName+1), "is not a usable worktree name"},
	} {
		t.Run(tc.env, func(t *testing.T) {
			task := "the task" // the TASK argument, which ARCHITECT_TASK would not override
			if tc.env == "ARCHITECT_TASK" {
				task = ""
			}
			_, _, _, err := LoadSources("", task, envOf(map[string]string{tc.env: tc.value, "ARCHITECT_AGENT_CMD": "true"}), nil, nil)
			if err == nil || !strings.Contains(err.(Errors)[0].Error(), tc.want) {
				t.Fatalf("%s=%.40q: got %v, want %q", tc.env, tc.value, err, tc.want)
			}
		})
	}
}

// What the door lets through: the task is prose (tabs, line breaks,
// escapes, which the prompt cleans), commands and arguments hold line
// breaks, and the limits are inclusive.
func TestDoorAccepts(t *testing.T) {
	is := is.New(t)
	c, _, _, err := LoadSources("", "line one\n\tline two \x1b[31m", envOf(map[string]string{
		"ARCHITECT_AGENT_CMD": "printf '%s\\n' done\nexit 0",
		"ARCHITECT_CHECKS":    strings.Repeat("c", maxArg),
		"ARCHITECT_MODEL":     "héllo-✓",
		"ARCHITECT_MAX_TIME":  "2562047h",
		"ARCHITECT_MAX_COST":  "-0",
	}), nil, nil)
	is.NoErr(err)
	is.Equal(c.MaxTime, 2562047*time.Hour)
	is.Equal(c.MaxCost, 0.0)
}

// A text that JSON would change, in an option the checks above do not
// know, is still refused: unrecorded compares each option through JSON.
func TestUnrecordedBackstop(t *testing.T) {
	is := is.New(t)
	c := Defaults()
	is.Equal(c.unrecorded(), []string(nil))
	c.Model = "a\xffb"
	is.Equal(c.unrecorded(), []string{"model"})
}

// A price that is not a number, in a configuration not read from a file
// (a saved run, a caller's own), is refused by Validate: spending it could
// never reach a budget.
func TestPriceNotANumberRefused(t *testing.T) {
	is := is.New(t)
	c := Defaults()
	c.Task, c.NoChecks = "t", true
	c.Prices = agent.Prices{"m": {Input: 1, Output: math.NaN()}}
	_, err := c.Validate(Sources{})
	is.True(err != nil)
	es := err.(Errors)
	is.Equal(es[0].Key, "prices")
	is.True(strings.Contains(es[0].Msg, `the price of "m" is not a number`))
}
