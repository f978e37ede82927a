package config

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"
	"github.com/spf13/pflag"
)

func noEnv(string) (string, bool) { return "", false }

func envOf(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// loadFileOnly reads a ralph.yaml on top of the defaults, as LoadSources
// does before the environment, the flags and the validation: what the
// file alone sets, and the problems it alone has.
func loadFileOnly(path string) (Config, error) {
	c := Defaults()
	if errs := loadFile(path, &c, Sources{}); len(errs) > 0 {
		return c, errs
	}
	return c, nil
}

func parse(t *testing.T, args ...string) (*pflag.FlagSet, *Config) {
	t.Helper()
	fs := pflag.NewFlagSet("loop", pflag.ContinueOnError)
	var c Config
	RegisterFlags(fs, &c)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return fs, &c
}

func TestDefaultsMatchTheSeed(t *testing.T) {
	is := is.New(t)
	fs, fl := parse(t, "--check", "true")
	c, _, warnings, err := LoadSources("", "fix it", noEnv, fs, fl)
	is.NoErr(err)
	is.Equal(c.MaxIterations, 25)
	is.Equal(c.CompletionTag, "COMPLETE")
	is.Equal(c.CheckTimeout, 120*time.Second)
	is.Equal(c.MaxCost, 0.0)
	is.Equal(c.MaxTime, time.Duration(0))
	is.Equal(c.Agent, "claude")
	is.Equal(c.Worktree, false)
	is.Equal(c.MaxUsageWait, 6*time.Hour)
	is.Equal(len(warnings), 0)
}

// No check, no success by checks: a run without checks is refused unless
// the user says so, with --no-checks or checks: [] written in the file;
// plan mode needs no check.
func TestNoChecksNeedsOptIn(t *testing.T) {
	is := is.New(t)
	fs, fl := parse(t)
	_, _, _, err := LoadSources("", "fix it", noEnv, fs, fl)
	es, ok := err.(Errors)
	is.True(ok)
	is.Equal(len(es), 1)
	is.Equal(es[0].Key, "checks")
	is.True(strings.Contains(es[0].Hint, "--no-checks"))

	fs, fl = parse(t, "--no-checks")
	c, _, _, err := LoadSources("", "fix it", noEnv, fs, fl)
	is.NoErr(err)
	is.True(c.NoChecks)

	file := writeFile(t, "ralph.yaml", "ralph_loop:\n  checks: []\n")
	fs, fl = parse(t)
	c, _, _, err = LoadSources(file, "fix it", noEnv, fs, fl)
	is.NoErr(err)
	is.True(c.NoChecks) // written out: on purpose
	fs, fl = parse(t, "--check", "go test ./...")
	c, _, _, err = LoadSources(file, "fix it", noEnv, fs, fl)
	is.NoErr(err)
	is.True(!c.NoChecks) // the checks given win over the file's []

	file = writeFile(t, "ralph.yaml", "ralph_loop:\n  checks:\n")
	fs, fl = parse(t)
	_, _, _, err = LoadSources(file, "fix it", noEnv, fs, fl)
	is.True(err != nil) // an empty value is no opt-in

	fs, fl = parse(t, "--no-checks", "--check", "true")
	_, _, _, err = LoadSources("", "fix it", noEnv, fs, fl)
	is.True(err != nil) // contradictory

	fs, fl = parse(t, "--mode", "plan")
	_, _, _, err = LoadSources("", "fix it", noEnv, fs, fl)
	is.NoErr(err)
}

// --max-cost needs to know the cost: a command agent must say that it
// reports it.
func TestMaxCostCommandAgent(t *testing.T) {
	is := is.New(t)
	fs, fl := parse(t, "--check", "true", "--agent-cmd", "./agent.sh", "--max-cost", "5")
	_, _, _, err := LoadSources("", "fix it", noEnv, fs, fl)
	es, ok := err.(Errors)
	is.True(ok)
	is.Equal(es[0].Key, "max_cost")
	is.True(strings.Contains(es[0].Hint, "ARCHITECT_RESULT_FILE"))
	is.True(strings.Contains(es[0].Hint, "--agent-reports-cost"))
	fs, fl = parse(t, "--check", "true", "--agent-cmd", "./agent.sh", "--max-cost", "5", "--agent-reports-cost")
	_, _, _, err = LoadSources("", "fix it", noEnv, fs, fl)
	is.NoErr(err)
}

func TestPrecedence(t *testing.T) {
	is := is.New(t)
	file := writeFile(t, "ralph.yaml", "ralph_loop:\n  max_iterations: 7\n  max_cost: 2.5\n  checks: [a, b]\n  agent_cmd: ./agent.sh\n  agent_reports_cost: true\n  check_timeout: 30\n")
	env := envOf(map[string]string{"ARCHITECT_MAX_ITERATIONS": "9", "ARCHITECT_MAX_TIME": "1h", "ARCHITECT_UNRELATED": "x"})

	fs, fl := parse(t)
	c, _, _, err := LoadSources(file, "t", env, fs, fl)
	is.NoErr(err)
	is.Equal(c.MaxIterations, 9)           // env beats file
	is.Equal(c.MaxCost, 2.5)               // file beats default
	is.Equal(c.MaxTime, time.Hour)         // env
	is.Equal(c.Checks, []string{"a", "b"}) // file
	is.Equal(c.CheckTimeout, 30*time.Second)
	is.Equal(c.Agent, "command") // agent_cmd selects the command agent

	fs, fl = parse(t, "--max-iterations", "3", "--check", "go test ./... -run 'A,B'", "--max-time", "90")
	c, _, _, err = LoadSources(file, "t", env, fs, fl)
	is.NoErr(err)
	is.Equal(c.MaxIterations, 3)                             // flag beats env
	is.Equal(c.Checks, []string{"go test ./... -run 'A,B'"}) // flags replace the file's list; commas are not split
	is.Equal(c.MaxTime, 90*time.Second)
}

func TestErrorsNameKeyAndLine(t *testing.T) {
	is := is.New(t)
	file := writeFile(t, "ralph.yaml", "ralph_loop:\n  max_iteration: 3\n  max_cost: lots\n  checks: {a: b}\nextra: 1\n")
	fs, fl := parse(t)
	_, _, _, err := LoadSources(file, "t", noEnv, fs, fl)
	is.True(err != nil)
	es := err.(Errors)
	is.Equal(len(es), 4) // every problem at once
	is.True(strings.HasSuffix(es[0].Source, "ralph.yaml:2"))
	is.True(strings.Contains(es[0].Error(), `unknown key "max_iteration"`))
	is.True(strings.Contains(es[0].Hint, `"max_iterations"`))
	is.True(strings.HasSuffix(es[1].Source, "ralph.yaml:3"))
	is.Equal(es[1].Key, "max_cost")
	is.Equal(es[2].Key, "checks")
	is.True(strings.Contains(es[3].Error(), `unknown key "extra"`))
}

func TestValidation(t *testing.T) {
	for _, tc := range []struct {
		args []string
		task string
		want string // substring of the first error
	}{
		{nil, "", "no task given"},
		{[]string{"--max-iterations", "1001"}, "t", "out of range"},
		{[]string{"--completion-tag", "two words"}, "t", "not a usable tag"},
		{[]string{"--agent", "nope"}, "t", `unknown agent "nope"`},
		{[]string{"--agent", "command"}, "t", "needs a command"},
		{[]string{"--agent", "codex", "--agent-cmd", "x"}, "t", "but the agent is"},
		{[]string{"--on-usage-limit", "retry"}, "t", "neither wait nor stop"},
		{[]string{"--done-pattern", "("}, "t", "not a valid regular expression"},
		{[]string{"--spec", "/no/such/spec.md"}, "", "specification file not found"},
		{[]string{"--worktree-name", "../up"}, "t", "not a usable worktree name"},
		{[]string{"--check", " "}, "t", "check 1 is empty"},
		{[]string{"--check", "x", "--judge", "strict"}, "t", `"strict" is none of protect, warn, off`},
		{[]string{"--check", "x", "--judge-file", "../outside.sh"}, "t", "not a path inside the workspace"},
		{[]string{"--check", "x", "--judge-file", "/etc/passwd"}, "t", "not a path inside the workspace"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			is := is.New(t)
			fs, fl := parse(t, tc.args...)
			_, _, _, err := LoadSources("", tc.task, noEnv, fs, fl)
			is.True(err != nil)
			is.True(strings.Contains(err.(Errors)[0].Error(), tc.want))
			is.True(err.(Errors)[0].Hint != "")
		})
	}
}

func TestHighIterationWarning(t *testing.T) {
	is := is.New(t)
	fs, fl := parse(t, "--max-iterations", "51", "--check", "true")
	_, _, warnings, err := LoadSources("", "t", noEnv, fs, fl)
	is.NoErr(err)
	is.Equal(warnings, []string{"high iteration count (>50) may consume significant resources"})
}

func TestSpecRelativeToConfigFile(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	is.NoErr(os.WriteFile(filepath.Join(dir, "spec.md"), []byte("spec"), 0o644))
	is.NoErr(os.WriteFile(filepath.Join(dir, "ralph.yaml"), []byte("ralph_loop:\n  spec: spec.md\n  checks: [true]\n"), 0o644))
	fs, fl := parse(t)
	c, _, _, err := LoadSources(filepath.Join(dir, "ralph.yaml"), "", noEnv, fs, fl)
	is.NoErr(err)
	is.Equal(c.Spec, filepath.Join(dir, "spec.md"))

	// named from the folder it is in (the project's ralph.yaml): the spec
	// is still a whole path, for a run resumed from elsewhere
	t.Chdir(dir)
	c, _, _, err = LoadSources("ralph.yaml", "", noEnv, fs, fl)
	is.NoErr(err)
	is.Equal(c.Spec, filepath.Join(dir, "spec.md"))
}

func TestPrices(t *testing.T) {
	is := is.New(t)
	file := writeFile(t, "ralph.yaml", "ralph_loop:\n  task: t\nprices:\n  my-model: {input: 3, cached_input: 0.3, output: 15}\n")
	c, err := loadFileOnly(file)
	is.NoErr(err)
	is.Equal(c.Prices["my-model"].Output, 15.0)
	bad := writeFile(t, "bad.yaml", "prices:\n  m: {input: -1, outptu: 2}\n")
	_, err = loadFileOnly(bad)
	is.Equal(len(err.(Errors)), 2)
}

// TestExampleDocumentsEveryKey keeps ralph.yaml.example in step with the
// option table, and checks that it loads.
func TestExampleDocumentsEveryKey(t *testing.T) {
	is := is.New(t)
	data, err := os.ReadFile("../ralph.yaml.example")
	is.NoErr(err)
	for _, k := range yamlKeys() {
		is.True(regexp.MustCompile(`(?m)^\s*#?\s*` + k + `:`).Match(data)) // every key is documented
	}
	_, err = loadFileOnly("../ralph.yaml.example")
	is.NoErr(err)
}

func TestParseDuration(t *testing.T) {
	is := is.New(t)
	for in, want := range map[string]time.Duration{"120": 120 * time.Second, "1.5": 1500 * time.Millisecond, "30m": 30 * time.Minute, "1h30m": 90 * time.Minute} {
		got, err := ParseDuration(in)
		is.NoErr(err)
		is.Equal(got, want)
	}
	_, err := ParseDuration("-1")
	is.True(err != nil)
	_, err = ParseDuration("soon")
	is.True(err != nil)
	is.Equal(FormatDuration(30*time.Minute), "30m")
	is.Equal(FormatDuration(90*time.Minute), "1h30m")
}

func TestHooksSection(t *testing.T) {
	is := is.New(t)
	path := writeFile(t, "hooks.yaml", "ralph_loop:\n  task: t\n  push: true\n  events: '-'\n  hooks:\n    on_iteration: echo it\n    on_finish: echo done\n")
	c, err := loadFileOnly(path)
	is.NoErr(err)
	is.Equal(c.OnIteration, "echo it")
	is.Equal(c.OnFinish, "echo done")
	is.True(c.Push)
	is.Equal(c.Events, "-")
	bad := writeFile(t, "badhooks.yaml", "ralph_loop:\n  hooks:\n    on_finsh: x\n")
	_, err = loadFileOnly(bad)
	is.True(err != nil)
	is.True(strings.Contains(err.Error(), `unknown key "on_finsh" in hooks`)) // names the typo
}

// Every problem is reported at once, in one order: the order the sections
// of validate run in (the first is the one a short message shows).
func TestValidationOrder(t *testing.T) {
	is := is.New(t)
	fs, fl := parse(t, "--agent", "codex", "--agent-cmd", "x", "--worktree-name", "../up",
		"--max-iterations", "0", "--completion-tag", "two words", "--on-usage-limit", "retry",
		"--kill-grace", "0s", "--check", " ")
	_, _, _, err := LoadSources("", "", noEnv, fs, fl)
	is.True(err != nil)
	var keys []string
	for _, e := range err.(Errors) {
		keys = append(keys, e.Key)
	}
	is.Equal(keys, []string{"agent_cmd", "worktree_name", "task", "max_iterations", "completion_tag",
		"on_usage_limit", "kill_grace", "checks"})
}

// A YAML syntax error names the line where the text goes wrong, not the
// line where the mapping around it began (go-yaml's context line).
func TestYAMLErrorOnItsLine(t *testing.T) {
	is := is.New(t)
	for _, tc := range []struct {
		text string
		line int
		msg  string
	}{
		{"ralph_loop:\n  task: x\n  checks:\n    - true\n   max_iterations: 3\n", 5, "did not find expected key"},
		{"ralph_loop:\n  task: x\n  checks:\n  - a\n - b\n", 5, "did not find expected key"},
		{"ralph_loop:\n  task: x\n    checks: [a]\n", 3, "mapping values are not allowed in this context"},
		{"ralph_loop:\n\ttask: x\n", 2, "found character that cannot start any token"},
		// a flow list over several lines before the mistake: its lines
		// are not blamed
		{"ralph_loop:\n  task: \"a\n    b\"\n  checks:\n    - true\n   max_iterations: 3\n", 6, "did not find expected key"},
		{"ralph_loop:\n  checks: [\n    a,\n    b]\n  task: x\n   max_cost: 1\n", 6, "mapping values are not allowed in this context"},
	} {
		file := writeFile(t, "ralph.yaml", tc.text)
		fs, fl := parse(t)
		_, _, _, err := LoadSources(file, "", noEnv, fs, fl)
		es, ok := err.(Errors)
		is.True(ok)                                                 // Errors
		is.Equal(len(es), 1)                                        // one syntax error
		is.Equal(es[0].Source, fmt.Sprintf("%s:%d", file, tc.line)) // its real line
		is.Equal(es[0].Msg, "not valid YAML: "+tc.msg)              // without go-yaml's line
		is.True(strings.Contains(es[0].Hint, "indent with spaces")) // the hint kept
	}
}
