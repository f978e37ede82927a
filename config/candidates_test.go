package config

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/agent"
)

// Candidates come as a number from a flag, a variable or the file, or as
// a list in the file; a number given later replaces the file's list.
func TestCandidatesSources(t *testing.T) {
	list := "ralph_loop:\n  checks: [true]\n  agent_bin: /opt/claude\n  agent_args: [--verbose]\n" +
		"  candidates:\n    - {agent: claude, model: sonnet}\n    - agent: codex\n    - {agent: command, agent_cmd: ./my-agent.sh}\n"
	for _, tc := range []struct {
		name   string
		file   string
		env    map[string]string
		args   []string
		n      int
		list   []CandidateAgent
		source string
	}{
		{name: "default", args: []string{"--check", "true"}, n: 1, source: ""},
		{name: "flag", args: []string{"--check", "true", "--candidates", "3"}, n: 3, source: "--candidates"},
		{name: "variable", env: map[string]string{"ARCHITECT_CANDIDATES": "2", "ARCHITECT_CHECKS": "true"}, n: 2, source: "ARCHITECT_CANDIDATES"},
		{name: "file number", file: "ralph_loop:\n  checks: [true]\n  candidates: 4\n", n: 4, source: ":3"},
		{name: "file list", file: list, n: 3, source: ":5",
			list: []CandidateAgent{{Agent: "claude", Model: "sonnet"}, {Agent: "codex"}, {Agent: "command", AgentCmd: "./my-agent.sh"}}},
		{name: "flag replaces the list", file: list, args: []string{"--candidates", "2"}, n: 2, source: "--candidates"},
		{name: "variable replaces the list", file: list, env: map[string]string{"ARCHITECT_CANDIDATES": "5"}, n: 5, source: "ARCHITECT_CANDIDATES"},
		{name: "null keeps the default", file: "ralph_loop:\n  checks: [true]\n  candidates: null\n", n: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			path := ""
			if tc.file != "" {
				path = writeFile(t, "ralph.yaml", tc.file)
			}
			fs, fl := parse(t, tc.args...)
			c, src, _, err := LoadSources(path, "fix it", envOf(tc.env), fs, fl)
			is.NoErr(err)
			is.Equal(c.Candidates, tc.n)
			is.Equal(c.CandidateCount(), tc.n)
			is.Equal(c.CandidateAgents, tc.list)
			is.True(strings.HasSuffix(src["candidates"], tc.source)) // where it came from, for --dry-run
			is.Equal(c.CandidatesFinish, CandidatesFirst)
			is.Equal(c.CandidatesLessons, LessonsOff)
			is.Equal(len(c.CandidateConfigs()), tc.n)
		})
	}
}

// Each candidate's agent: the list's entries (another model of the run's
// own agent keeps its executable and arguments, as a fallback does), or
// copies of the run's agent.
func TestCandidateConfigs(t *testing.T) {
	is := is.New(t)
	file := writeFile(t, "ralph.yaml", "ralph_loop:\n  checks: [true]\n  agent_bin: /opt/claude\n  agent_args: [--verbose]\n"+
		"  candidates: [{agent: claude, model: sonnet}, {agent: codex}, {agent: command, agent_cmd: ./my-agent.sh}]\n")
	c, _, _, err := LoadSources(file, "fix it", noEnv, nil, nil)
	is.NoErr(err)
	got := c.CandidateConfigs()
	is.Equal(got, []agent.Config{
		{Name: "claude", Model: "sonnet", Bin: "/opt/claude", Args: []string{"--verbose"}},
		{Name: "codex"},
		{Name: "command", Cmd: "./my-agent.sh"},
	})
	is.Equal(Describe(c, Sources{})[indexOf(t, "candidates")].Text(), `["claude:sonnet","codex","command:./my-agent.sh"]`)

	fs, fl := parse(t, "--check", "true", "--agent", "codex", "--model", "gpt-5.5", "--candidates", "2")
	c, _, _, err = LoadSources("", "fix it", noEnv, fs, fl)
	is.NoErr(err)
	got = c.CandidateConfigs()
	is.Equal(got, []agent.Config{{Name: "codex", Model: "gpt-5.5"}, {Name: "codex", Model: "gpt-5.5"}})
	is.Equal(Describe(c, Sources{})[indexOf(t, "candidates")].Text(), "2")
}

func indexOf(t *testing.T, key string) int {
	t.Helper()
	for i, s := range Describe(Defaults(), Sources{}) {
		if s.Key == key {
			return i
		}
	}
	t.Fatalf("no option %s", key)
	return -1
}

// A saved run from before candidates existed holds none of the three: it
// runs one agent, first and lessons off (the defaults).
func TestCandidatesOfAnOlderRun(t *testing.T) {
	is := is.New(t)
	var c Config
	is.NoErr(json.Unmarshal([]byte(`{"agent":"claude","checks":["true"]}`), &c))
	is.Equal(c.CandidateCount(), 1)
	is.Equal(len(c.CandidateConfigs()), 1)
	is.True(c.CandidatesFinishFirst())
	is.True(!c.CandidatesLessonsOn())
	c.CandidatesFinish, c.CandidatesLessons = CandidatesAll, LessonsOn
	is.True(!c.CandidatesFinishFirst())
	is.True(c.CandidatesLessonsOn())
}

// Every refusal names the option where it was set, says what is wrong and
// how to fix it.
func TestCandidatesRefused(t *testing.T) {
	seventeen := strings.Repeat("{agent: codex}, ", 16) + "{agent: codex}"
	for _, tc := range []struct {
		name   string
		file   string // the candidates: value in ralph.yaml
		env    map[string]string
		args   []string
		source string // the problem's source: a flag, a variable, or the file's line
		msg    string
		hint   string
	}{
		{name: "zero", args: []string{"--candidates", "0"}, source: "--candidates",
			msg: "--candidates: 0 is out of range (1 to 16): each candidate is an agent process, with its checks, and a worktree of its own", hint: "give a number from 1 to 16"},
		{name: "seventeen", args: []string{"--candidates", "17"}, source: "--candidates",
			msg: "17 is out of range (1 to 16)", hint: "candidates: [{agent: claude"},
		{name: "negative variable", env: map[string]string{"ARCHITECT_CANDIDATES": "-2"}, source: "ARCHITECT_CANDIDATES",
			msg: "ARCHITECT_CANDIDATES: -2 is out of range", hint: "give a number from 1 to 16"},
		{name: "not a number", env: map[string]string{"ARCHITECT_CANDIDATES": "three"}, source: "ARCHITECT_CANDIDATES",
			msg: `ARCHITECT_CANDIDATES: "three" is not a whole number`, hint: "fix or unset ARCHITECT_CANDIDATES"},
		{name: "file zero", file: "0", source: ":3", msg: "candidates: 0 is out of range", hint: "give a number from 1 to 16"},
		{name: "empty list", file: "[]", source: ":3", msg: "an empty list names no candidate", hint: "give a number from 1 to 16"},
		{name: "list too long", file: "[" + seventeen + "]", source: ":3", msg: "a list of 17 is too long (at most 16)", hint: "give a number"},
		{name: "unknown agent", file: "[{agent: codex}, {agent: nope}]", source: ":3",
			msg: `candidate 2: "nope" names no agent architect knows (aider, amp, claude,`, hint: "give each candidate's agent as one of: aider"},
		{name: "no agent", file: "[{model: opus}]", source: ":3", msg: "candidate 1 names no agent", hint: "{agent: claude, model: sonnet}"},
		{name: "command without its command", file: "[{agent: codex}, {agent: command}]", source: ":3",
			msg: "candidate 2: the command agent needs its shell command", hint: "{agent: command, agent_cmd: ./my-agent.sh}"},
		{name: "agent_cmd for another agent", file: "[{agent: codex, agent_cmd: ./x}]", source: ":3",
			msg: `candidate 1: agent_cmd is the command agent's, but the agent is "codex"`, hint: "drop agent_cmd"},
		{name: "unknown key", file: "\n    - agent: codex\n    - agent: claude\n      modle: opus", source: ":6",
			msg: `unknown key "modle" in candidate 2`, hint: `did you mean "model"?`},
		{name: "a mapping, not a list", file: "{agent: codex}", source: ":3", msg: "candidates: must be a number or a list of candidates, not a mapping", hint: "candidates: [{agent: claude"},
		{name: "not a mapping", file: "[codex]", source: ":3", msg: "candidate 1 must be a mapping with agent (and model or agent_cmd), not a value", hint: "{agent: codex}"},
		{name: "a list as a value", file: "[{agent: [codex]}]", source: ":3", msg: "candidate 1: agent must be a single value", hint: "{agent: codex}"},
		{name: "a control character", file: `[{agent: codex, model: "gpt\e[31m"}]`, source: ":3", msg: "candidate 1: model contains the control character U+001B", hint: "remove it"},
		{name: "no checks to judge by", args: []string{"--no-checks", "--candidates", "3"}, source: "--candidates",
			msg: "--candidates: 3 candidates need checks to judge them, and the run has none", hint: "candidates are judged by the checks"},
		{name: "a list and no checks", file: "[{agent: codex}, {agent: claude}]\n  checks: []", source: ":3",
			msg: "2 candidates need checks to judge them", hint: "candidates are judged by the checks"},
		{name: "finish", args: []string{"--candidates-finish", "best"}, source: "--candidates-finish",
			msg: `--candidates-finish: "best" is neither first nor all`, hint: "use --candidates-finish first"},
		{name: "lessons", env: map[string]string{"ARCHITECT_CANDIDATES_LESSONS": "maybe"}, source: "ARCHITECT_CANDIDATES_LESSONS",
			msg: `ARCHITECT_CANDIDATES_LESSONS: "maybe" is neither on nor off`, hint: "use --candidates-lessons on or off"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			path := ""
			if tc.file != "" {
				path = writeFile(t, "ralph.yaml", "ralph_loop:\n  task: t\n  candidates: "+tc.file+"\n")
			}
			args := tc.args
			if !strings.Contains(tc.file, "checks:") && !strings.Contains(strings.Join(args, " "), "--no-checks") {
				args = append([]string{"--check", "true"}, args...)
			}
			fs, fl := parse(t, args...)
			_, _, _, err := LoadSources(path, "fix it", envOf(tc.env), fs, fl)
			es, ok := err.(Errors)
			is.True(ok) // refused, as a list of problems
			is.Equal(len(es), 1)
			e := es[0]
			is.True(strings.HasSuffix(e.Source, tc.source)) // where it was set
			is.True(strings.HasPrefix(e.Key, "candidates"))
			if !strings.Contains(e.Error(), tc.msg) {
				t.Fatalf("message %q, want it to say %q", e.Error(), tc.msg)
			}
			if !strings.Contains(e.Hint, tc.hint) {
				t.Fatalf("hint %q, want it to say %q", e.Hint, tc.hint)
			}
		})
	}
}

// A resumed run gets back the candidates it was started with: the
// configuration, list included, survives the run's state (JSON).
func TestCandidatesSurviveTheState(t *testing.T) {
	is := is.New(t)
	file := writeFile(t, "ralph.yaml", "ralph_loop:\n  checks: [true]\n  candidates_finish: all\n  candidates_lessons: off\n"+
		"  candidates: [{agent: claude, model: opus}, {agent: command, agent_cmd: \"./a.sh --x 'y z'\"}]\n")
	c, _, _, err := LoadSources(file, "fix it", noEnv, nil, nil)
	is.NoErr(err)
	data, err := json.Marshal(c)
	is.NoErr(err)
	var back Config
	is.NoErr(json.Unmarshal(data, &back))
	is.Equal(back.CandidateAgents, c.CandidateAgents)
	is.Equal(back.Candidates, 2)
	is.Equal(back.CandidatesFinish, CandidatesAll)
	is.Equal(back.CandidatesLessons, LessonsOff)
	roundTrip(t, c)
	// A resumed run's --candidates replaces the saved list.
	fs, fl := parse(t, "--candidates", "3")
	Override(fs, fl, &back)
	is.Equal(back.CandidateCount(), 3)
	is.Equal(len(back.CandidateAgents), 0)
}
