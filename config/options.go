package config

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/sandbox"
)

// option is one configuration key. Its YAML key is key, its flag is key
// with dashes (or flag), its environment variable ARCHITECT_<KEY>.
type option struct {
	key   string
	group string // the help section of its flag (FlagGroups)
	flag  string // flag name when it differs from the dashed key; "-" for none
	short string
	usage string
	field func(*Config) any // pointer to the field: *string, *int, *float64, *bool, *[]string, *time.Duration
	// values, when set, lists the accepted values (for completion and the
	// schema); min and max bound numbers (max 0: none).
	values   func() []string
	min, max float64
	yaml     bool // settable in the config file
	env      bool // settable through the environment
}

func (o option) flagName() string {
	if o.flag != "" {
		return o.flag
	}
	return strings.ReplaceAll(o.key, "_", "-")
}

func (o option) envName() string { return "ARCHITECT_" + strings.ToUpper(o.key) }

// The help sections of the loop's flags, in the order help shows them.
const (
	GroupTask        = "Task and prompt"
	GroupAgent       = "Agent"
	GroupChecks      = "Checks"
	GroupLimits      = "Limits"
	GroupWorkspace   = "Workspace"
	GroupSupervision = "Supervision"
	GroupOutput      = "Output"
)

// FlagGroups lists the help sections in order.
func FlagGroups() []string {
	return []string{GroupTask, GroupAgent, GroupChecks, GroupLimits, GroupWorkspace, GroupSupervision, GroupOutput}
}

// GroupAnnotation is the pflag annotation that holds a flag's help section;
// RegisterFlags sets it on every flag it defines.
const GroupAnnotation = "architect_group"

// options is the table every source is read through. Keep ralph.yaml.example
// in step with it (a test checks that every YAML key is documented there).
var options = []option{
	{key: "task", group: GroupTask, flag: "-", usage: "the task (usually the TASK argument)", field: func(c *Config) any { return &c.Task }, yaml: true, env: true},
	{key: "spec", group: GroupTask, usage: "specification `file`, used instead of TASK and re-read every iteration", field: func(c *Config) any { return &c.Spec }, yaml: true, env: true},
	{key: "mode", group: GroupTask, values: func() []string { return []string{ModePlan, ModeBuild} }, usage: "`mode`: plan (gap analysis into IMPLEMENTATION_PLAN.md) or build (implement it, one commit per iteration); without TASK or --spec, PROMPT_<mode>.md is the spec", field: func(c *Config) any { return &c.Mode }, yaml: true, env: true},
	{key: "preset", group: GroupTask, usage: "a preset by `name` (architect presets lists them): its prompt, checks and limits come under the file's keys, the environment and the flags, which override them key by key", field: func(c *Config) any { return &c.Preset }, yaml: true, env: true},
	{key: "preset_params", group: GroupTask, flag: "preset-param", usage: "a parameter of the preset, as `KEY=VALUE` (repeatable), e.g. target=80 for the coverage preset", field: func(c *Config) any { return &c.PresetParams }, yaml: true, env: true},
	{key: "checks", group: GroupChecks, flag: "check", usage: "shell `command` that must exit 0 (repeatable; all must pass)", field: func(c *Config) any { return &c.Checks }, yaml: true, env: true},
	{key: "no_checks", group: GroupChecks, usage: "run without any check: the agent's completion alone ends the run, reported as agent_declared_complete_without_checks (YAML: checks: [])", field: func(c *Config) any { return &c.NoChecks }, yaml: true, env: true},
	{key: "check_timeout", group: GroupChecks, usage: "time limit per check, in `seconds` or a duration like 2m (more than 0)", field: func(c *Config) any { return &c.CheckTimeout }, yaml: true, env: true},
	{key: "check_shell", group: GroupChecks, usage: "the `shell` that runs checks and hooks, always with pipefail so that a failing stage of a pipeline fails the check: bash, zsh, ksh, sh (if it has pipefail), a path, or builtin (architect's own); default bash, else sh with pipefail, else builtin", field: func(c *Config) any { return &c.CheckShell }, yaml: true, env: true},
	{key: "errorformat", group: GroupChecks, usage: "`FORMAT=COMMAND`: read the output of the check COMMAND with FORMAT for GitHub Actions annotations, instead of the format its command selects (repeatable; FORMAT is go, tsc, eslint, eslint-unix, pytest, mypy, ruff, rust or generic, several joined with commas)", field: func(c *Config) any { return &c.Errorformat }, yaml: true, env: true},
	{key: "tests", group: GroupChecks, values: TestsValues, usage: "`policy` when the agent removes a test that was there at the start (a test file, a test function, a test the checks ran): keep (the iteration fails), warn (recorded and told to the next agent) or off; default keep, or warn when the task speaks of removing, renaming or rewriting tests", field: func(c *Config) any { return &c.Tests }, yaml: true, env: true},
	{key: "max_iterations", group: GroupLimits, min: 1, max: 1000, usage: "maximum iterations before stopping (1-1000)", field: func(c *Config) any { return &c.MaxIterations }, yaml: true, env: true},
	{key: "max_cost", group: GroupLimits, usage: "cost limit in `USD` (0: none)", field: func(c *Config) any { return &c.MaxCost }, yaml: true, env: true},
	{key: "max_time", group: GroupLimits, usage: "total time limit, in `seconds` or a duration like 2h (0: none)", field: func(c *Config) any { return &c.MaxTime }, yaml: true, env: true},
	{key: "completion_tag", group: GroupTask, usage: "`tag` the agent prints as <promise>TAG</promise> when done", field: func(c *Config) any { return &c.CompletionTag }, yaml: true, env: true},
	{key: "agent", group: GroupAgent, values: agent.Names, usage: "the agent to run, by `name`: claude, codex, gemini, opencode, aider, amp, cursor or command", field: func(c *Config) any { return &c.Agent }, yaml: true, env: true},
	{key: "agent_cmd", group: GroupAgent, usage: "shell `command` run as the agent (selects the command agent; prompt on stdin)", field: func(c *Config) any { return &c.AgentCmd }, yaml: true, env: true},
	{key: "agent_args", group: GroupAgent, flag: "agent-arg", usage: "extra `argument` for the agent CLI (repeatable)", field: func(c *Config) any { return &c.AgentArgs }, yaml: true, env: true},
	{key: "agent_bin", group: GroupAgent, usage: "`path` of the agent's executable", field: func(c *Config) any { return &c.AgentBin }, yaml: true, env: true},
	{key: "model", group: GroupAgent, usage: "`model` passed to the agent CLI", field: func(c *Config) any { return &c.Model }, yaml: true, env: true},
	{key: "fallback", group: GroupAgent, usage: "an agent to fall back on, as `AGENT[:MODEL]` (repeatable, tried in order): when the current agent hits its usage limit, fails with an outage past --outage-retries, or stalls (--on-stall fallback); command:CMD runs a shell command", field: func(c *Config) any { return &c.Fallback }, yaml: true, env: true},
	{key: "candidates", group: GroupAgent, min: 1, max: MaxCandidates, usage: "`N` agents started at once each iteration (a round), each in its own worktree, with the same prompt; the checks pick the one kept (1-16; needs checks and a git repository). YAML also takes a list, [{agent: claude, model: sonnet}, {agent: codex}], so that different agents and models compete", field: func(c *Config) any { return &c.Candidates }, yaml: true, env: true},
	{key: "candidates_finish", group: GroupAgent, values: func() []string { return []string{CandidatesFirst, CandidatesAll} }, usage: "`when` a round of --candidates ends: first (a candidate that succeeds stops the others) or all (every candidate runs to its end, the best kept)", field: func(c *Config) any { return &c.CandidatesFinish }, yaml: true, env: true},
	{key: "candidates_lessons", group: GroupAgent, values: func() []string { return []string{LessonsOn, LessonsOff} }, usage: "`mode`: on puts what each losing candidate of a round showed (its diff stat, its failing checks' first lines) into the next round's prompt; off does not", field: func(c *Config) any { return &c.CandidatesLessons }, yaml: true, env: true},
	{key: "parallel", group: GroupLimits, max: 64, usage: "`N` candidates whose checks run at once (0: every candidate's); in `architect batch`, the batch's --parallel bounds the checks of every task and candidate together", field: func(c *Config) any { return &c.Parallel }, yaml: true, env: true},
	{key: "resolve_max_iterations", group: GroupLimits, flag: "-", min: 0, max: 100, usage: "iterations of the merge queue's resolution loop for a task whose branch conflicts with the target, or fails its checks there (architect merge --batch; 0: the default, 3)", field: func(c *Config) any { return &c.ResolveMaxIterations }, yaml: true, env: true},
	{key: "resolve_max_cost", group: GroupLimits, flag: "-", usage: "cost limit in `USD` of the merge queue's resolution loop for a task (0: the task's max_cost)", field: func(c *Config) any { return &c.ResolveMaxCost }, yaml: true, env: true},
	{key: "reviewer", group: GroupChecks, usage: "an agent that reviews each iteration whose checks all pass, as `AGENT[:MODEL]` (command:CMD runs a shell command): its verdict, <verdict>approve</verdict> or <verdict>reject</verdict> and its objections, is one more check, so success needs the checks and its approval", field: func(c *Config) any { return &c.Reviewer }, yaml: true, env: true},
	{key: "agent_reports_cost", group: GroupAgent, usage: "the command agent writes its cost to $ARCHITECT_RESULT_FILE every run ({\"cost_usd\": N}): lets --max-cost be used with --agent-cmd", field: func(c *Config) any { return &c.AgentReportsCost }, yaml: true, env: true},
	{key: "worktree", group: GroupWorkspace, usage: "run in an isolated git worktree on branch architect/ralph-loop", field: func(c *Config) any { return &c.Worktree }, yaml: true, env: true},
	{key: "worktree_name", group: GroupWorkspace, usage: "use worktree .architect-worktrees/`NAME` and branch architect/NAME (implies --worktree)", field: func(c *Config) any { return &c.WorktreeName }, yaml: true, env: true},
	{key: "iteration_timeout", group: GroupLimits, usage: "time limit of one agent run (0: none)", field: func(c *Config) any { return &c.IterationTimeout }, yaml: true, env: true},
	{key: "inactivity_timeout", group: GroupLimits, usage: "stop an agent that prints nothing for this long (0: never)", field: func(c *Config) any { return &c.InactivityTimeout }, yaml: true, env: true},
	{key: "kill_grace", group: GroupSupervision, usage: "time between SIGTERM and SIGKILL when stopping a process (more than 0)", field: func(c *Config) any { return &c.KillGrace }, yaml: true, env: true},
	{key: "backoff_cap", group: GroupSupervision, usage: "longest wait between failing agent runs (0: retry at once)", field: func(c *Config) any { return &c.BackoffCap }, yaml: true, env: true},
	{key: "max_consecutive_errors", group: GroupLimits, usage: "stop after this many failed agent runs in a row (0: never)", field: func(c *Config) any { return &c.MaxConsecutiveErrors }, yaml: true, env: true},
	{key: "on_usage_limit", group: GroupSupervision, values: func() []string { return []string{"wait", "stop"} }, usage: "`action` when the agent hits a usage limit: wait or stop", field: func(c *Config) any { return &c.OnUsageLimit }, yaml: true, env: true},
	{key: "outage_retries", group: GroupSupervision, min: 0, max: 100, usage: "times an agent failing with an outage (5xx, overloaded, unreachable) is tried again, with backoff, before the next --fallback agent takes over", field: func(c *Config) any { return &c.OutageRetries }, yaml: true, env: true},
	{key: "max_usage_wait", group: GroupLimits, usage: "longest total time the run may wait for usage limits to lift, over all its sessions (it counts against --max-time too)", field: func(c *Config) any { return &c.MaxUsageWait }, yaml: true, env: true},
	{key: "done_file", group: GroupSupervision, usage: "`path` whose existence signals completion (default .architect/DONE)", field: func(c *Config) any { return &c.DoneFile }, yaml: true, env: true},
	{key: "done_pattern", group: GroupSupervision, usage: "`regex` on the agent's final message that signals completion (at most 1 KiB)", field: func(c *Config) any { return &c.DonePattern }, yaml: true, env: true},
	{key: "include_uncommitted", group: GroupWorkspace, usage: "with --worktree, copy the main checkout's uncommitted and untracked changes into the worktree's first commit", field: func(c *Config) any { return &c.IncludeUncommitted }, yaml: true, env: true},
	{key: "commit_check_outputs", group: GroupWorkspace, usage: "also commit the new files the checks created (coverage, reports, build output); architect leaves them out of its commits by default", field: func(c *Config) any { return &c.CommitCheckOutputs }, yaml: true, env: true},
	{key: "no_watch", group: GroupWorkspace, usage: "snapshot the working tree after every iteration instead of watching it for changes (for trees changed through mmap or from another machine)", field: func(c *Config) any { return &c.NoWatch }, yaml: true, env: true},
	{key: "idle_threshold", group: GroupLimits, usage: "stop after N iterations in a row with no change (0: never)", field: func(c *Config) any { return &c.IdleThreshold }, yaml: true, env: true},
	{key: "stall_threshold", group: GroupLimits, min: 0, max: 1000, usage: "iterations in a row going round in circles (the same failing checks with the same output, or the changes back to an earlier state) before --on-stall acts (0: never)", field: func(c *Config) any { return &c.StallThreshold }, yaml: true, env: true},
	{key: "on_stall", group: GroupSupervision, values: func() []string { return []string{StallStop, StallFallback, StallPause} }, usage: "`action` when the loop goes round in circles: stop, fallback (the next --fallback agent) or pause (and wait for `architect say` or `architect resume`)", field: func(c *Config) any { return &c.OnStall }, yaml: true, env: true},
	{key: "final_check", group: GroupChecks, values: func() []string { return []string{FinalCheckClean, FinalCheckSame, FinalCheckOff} }, usage: "the last look before a success: `how` the checks run once more: clean (in a fresh checkout of the final tree, without the ignored files the agent left), same (in the agent's tree) or off", field: func(c *Config) any { return &c.FinalCheck }, yaml: true, env: true},
	{key: "protect", group: GroupChecks, usage: "`glob` of files the agent must not change, e.g. 'tests/**' (repeatable); a change is undone and fails the iteration", field: func(c *Config) any { return &c.Protect }, yaml: true, env: true},
	{key: "judge", group: GroupChecks, values: func() []string { return []string{JudgeProtect, JudgeWarn, JudgeOff} }, usage: "`mode` for the files that define each check (the script it runs, package.json's script, the Makefile target, the linter's configuration): protect (an agent's change is undone and fails the iteration), warn (kept and reported) or off", field: func(c *Config) any { return &c.Judge }, yaml: true, env: true},
	{key: "judge_files", group: GroupChecks, flag: "judge-file", usage: "`path` of one more file that defines the checks, relative to the workspace (repeatable); guarded as --judge says", field: func(c *Config) any { return &c.JudgeFiles }, yaml: true, env: true},
	{key: "sandbox", group: GroupSupervision, values: sandbox.Modes, usage: "how the agent and the checks are confined, with the kernel's Landlock (Linux) or sandbox-exec (macOS): workspace (they write only the workspace or worktree, a private temporary folder, the caches and the agent's home folders), strict (and read only the workspace, the system's folders and what is declared), auto (workspace as far as the system allows, said at the start) or off; default auto", field: func(c *Config) any { return &c.Sandbox }, yaml: true, env: true},
	{key: "sandbox_write", group: GroupSupervision, usage: "one more `path` the sandboxed agent and checks may write (repeatable)", field: func(c *Config) any { return &c.SandboxWrite }, yaml: true, env: true},
	{key: "sandbox_read", group: GroupSupervision, usage: "one more `path` the agent and checks may read with --sandbox strict (repeatable)", field: func(c *Config) any { return &c.SandboxRead }, yaml: true, env: true},
	{key: "sandbox_net", group: GroupSupervision, usage: "the `network` the sandboxed agent and checks may reach: all, none, TCP ports (443,8080; Landlock filters by port, not host) or hosts:NAME,... (through architect's allow-list proxy); default all, and none for the checks with --sandbox strict", field: func(c *Config) any { return &c.SandboxNet }, yaml: true, env: true},
	{key: "redact", group: GroupSupervision, usage: "`regex` whose matches are replaced by *** in everything architect writes (repeatable; at most 1 KiB)", field: func(c *Config) any { return &c.Redact }, yaml: true, env: true},
	{key: "redact_known", group: GroupSupervision, values: func() []string { return []string{RedactKnownOn, RedactKnownOff} }, usage: "`mode`: on masks as *** the credentials of a known format (GitHub, GitLab, Anthropic, OpenAI, AWS, Google Cloud, Slack and other tokens, private keys, passwords in URLs; gitleaks' rules) in everything architect writes, though nothing names them; off masks only the secret variables and --redact", field: func(c *Config) any { return &c.RedactKnown }, yaml: true, env: true},
	{key: "broker", group: GroupSupervision, values: func() []string { return []string{BrokerOn, BrokerOff} }, usage: "`mode`: on keeps the model API key with architect, whose credential broker on loopback gives it to the provider; the agent gets a made-up key and the broker's URL (Claude Code, Codex, Gemini CLI), the checks and hooks no model key; off gives the keys to every process as before", field: func(c *Config) any { return &c.Broker }, yaml: true, env: true},
	{key: "check_env", group: GroupSupervision, usage: "a model API key `variable` the checks and hooks still get while the broker holds the keys (repeatable)", field: func(c *Config) any { return &c.CheckEnv }, yaml: true, env: true},
	{key: "questions", group: GroupSupervision, values: func() []string { return []string{QuestionsOn, QuestionsOff} }, usage: "`mode`: on lets the agent ask the person running the loop a question (in .architect/question.md or <question>…</question>): the loop waits for the answer (architect answer, a Telegram reply) and the next prompt carries it; off", field: func(c *Config) any { return &c.Questions }, yaml: true, env: true},
	{key: "question_timeout", group: GroupSupervision, usage: "how long the loop waits for the answer to the agent's question, in `seconds` or a duration like 30m (more than 0)", field: func(c *Config) any { return &c.QuestionTimeout }, yaml: true, env: true},
	{key: "on_question_timeout", group: GroupSupervision, values: func() []string { return []string{QuestionStop, QuestionContinue} }, usage: "`action` when no answer came in time: stop (resumable, stop reason question_unanswered) or continue (the next prompt says no answer came)", field: func(c *Config) any { return &c.OnQuestionTimeout }, yaml: true, env: true},
	{key: "transcript_limit", group: GroupOutput, usage: "the `size`, in bytes, of each stream an iteration keeps in .architect/transcripts/ (the agent's output, each check's); past it the first and last halves are kept (default 8 MiB)", field: func(c *Config) any { return &c.TranscriptLimit }, yaml: true, env: true},
	{key: "events", group: GroupOutput, usage: "also write the event stream (JSON lines, as in .architect/events.jsonl) to `PATH`; - for stdout", field: func(c *Config) any { return &c.Events }, yaml: true, env: true},
	{key: "on_iteration", group: GroupSupervision, usage: "shell `command` run after each iteration, with ARCHITECT_* variables describing it (YAML: hooks.on_iteration)", field: func(c *Config) any { return &c.OnIteration }, env: true},
	{key: "on_finish", group: GroupSupervision, usage: "shell `command` run when the loop ends, with ARCHITECT_* variables describing the result (YAML: hooks.on_finish)", field: func(c *Config) any { return &c.OnFinish }, env: true},
	{key: "notify", group: GroupSupervision, usage: "when the loop ends, show a desktop notification (notify-send), or ring the terminal bell", field: func(c *Config) any { return &c.Notify }, yaml: true, env: true},
	{key: "push", group: GroupSupervision, usage: "push the loop's branch to its remote after each iteration that commits", field: func(c *Config) any { return &c.Push }, yaml: true, env: true},
	{key: "plain", group: GroupOutput, usage: "plain lines, one per event, even on a terminal (no full-screen view)", field: func(c *Config) any { return &c.Plain }, env: true},
	{key: "quiet", group: GroupOutput, usage: "print only the final result", field: func(c *Config) any { return &c.Quiet }, env: true},
	{key: "json", group: GroupOutput, usage: "print the result as JSON on stdout", field: func(c *Config) any { return &c.JSON }},
	{key: "new", group: GroupWorkspace, usage: "start a new run even though the last one in the workspace was interrupted (it is kept in .architect/runs/)", field: func(c *Config) any { return &c.New }},
	{key: "dir", group: GroupWorkspace, flag: "dir", short: "C", usage: "workspace `directory`", field: func(c *Config) any { return &c.Dir }},
}

// FlagValues maps each loop flag with a fixed set of values to the
// function that lists them, for shell completion.
func FlagValues() map[string]func() []string {
	m := map[string]func() []string{}
	for _, o := range options {
		if o.flag != "-" && o.values != nil {
			m[o.flagName()] = o.values
		}
	}
	return m
}

func lookupOption(key string) (option, bool) {
	for _, o := range options {
		if o.key == key {
			return o, true
		}
	}
	return option{}, false
}

// set parses text into o's field of c. Lists get one item per call unless
// whole is set, in which case text holds one item per line.
func (o option) set(c *Config, text string, whole bool) error {
	switch p := o.field(c).(type) {
	case *string:
		*p = text
	case *int:
		n, err := strconv.Atoi(strings.TrimSpace(text))
		if errors.Is(err, strconv.ErrRange) {
			return fmt.Errorf("%q is out of range", text)
		}
		if err != nil {
			return fmt.Errorf("%q is not a whole number", text)
		}
		*p = n
	case *float64:
		f, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("%q is not a number", text)
		}
		*p = f
	case *bool:
		b, err := strconv.ParseBool(strings.TrimSpace(text))
		if err != nil {
			return fmt.Errorf("%q is not true or false", text)
		}
		*p = b
	case *time.Duration:
		d, err := ParseDuration(text)
		if err != nil {
			return err
		}
		*p = d
	case *[]string:
		if !whole {
			*p = append(*p, text)
			return nil
		}
		*p = nil
		for _, line := range strings.Split(text, "\n") {
			if line = strings.TrimSpace(line); line != "" {
				*p = append(*p, line)
			}
		}
	default:
		panic("config: unhandled field type for " + o.key)
	}
	return nil
}

// ParseDuration reads a plain number as seconds ("120", "1.5") and anything
// else as a Go duration ("30m", "1h30m"). A value must mean what it says:
// NaN, a negative value, one too long for a duration (about 292 years) and
// a positive one that would round to zero are refused.
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		d := f * float64(time.Second)
		switch {
		case math.IsNaN(f):
			return 0, fmt.Errorf("%q is not a number of seconds", s)
		case f < 0:
			return 0, fmt.Errorf("%q is negative", s)
		case d >= maxDuration:
			return 0, fmt.Errorf("%q is too long (%s)", s, longest)
		case f > 0 && time.Duration(d) == 0:
			return 0, fmt.Errorf("%q is shorter than a nanosecond", s)
		}
		return time.Duration(d), nil
	}
	d, err := time.ParseDuration(s)
	switch {
	case err != nil && goDuration.MatchString(s) && strings.HasPrefix(s, "-"):
		return 0, fmt.Errorf("%q is negative", s)
	case err != nil && goDuration.MatchString(s):
		return 0, fmt.Errorf("%q is too long (%s)", s, longest)
	case err != nil:
		return 0, fmt.Errorf("%q is not a duration (use seconds, or a value like 90s, 30m, 2h; units are ns, us, ms, s, m and h)", s)
	case d < 0:
		return 0, fmt.Errorf("%q is negative", s)
	case d == 0 && strings.ContainsAny(s, "123456789"):
		return 0, fmt.Errorf("%q is shorter than a nanosecond", s)
	}
	return d, nil
}

// longest says how long a duration can be.
const longest = "at most 2562047h, about 292 years"

// maxDuration is the longest duration, in nanoseconds, as a float: a
// number of seconds whose nanoseconds reach it cannot be a duration.
const maxDuration = float64(math.MaxInt64)

// goDuration matches what Go writes as a duration, in any size: a text
// that matches it and does not parse is too long.
var goDuration = regexp.MustCompile(`^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h))+$`)

// FormatDuration prints d compactly: 2m, 1h30m, 90s, 1.5s.
func FormatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
