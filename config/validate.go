package config

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/ghactions"
	"github.com/architect-dev/architect/proc"
	"github.com/architect-dev/architect/protect"
	"github.com/architect-dev/architect/redact"
	"github.com/architect-dev/architect/sandbox"
	"github.com/architect-dev/architect/usererr"
)

// Modes (--mode): the two halves of the Ralph workflow. Plan writes
// IMPLEMENTATION_PLAN.md and needs no check; build works through the plan,
// one commit per iteration.
const (
	ModePlan  = "plan"
	ModeBuild = "build"
)

// ModePromptFile is the prompt file of mode, used as the specification when
// no TASK or --spec is given: PROMPT_plan.md or PROMPT_build.md.
func ModePromptFile(mode string) string { return "PROMPT_" + mode + ".md" }

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

// validate normalises c and reports every problem at once. src tells where
// each key came from, so errors can point at the right place. The checks
// run section by section, in the order the problems are listed.
func (c *Config) validate(src Sources) ([]string, error) {
	if errs := c.checkValues(src); len(errs) > 0 {
		return nil, errs // the checks below would repeat the values, or read files they name
	}
	ps := &problems{src: src}
	c.validateAgentCmd(src, ps)
	c.validateWorktree(ps)
	c.validateTask(ps)
	warnings := c.validateLimits(ps)
	c.validateAgent(src, ps)
	c.validateSupervision(ps)
	c.validateChecks(src, ps)
	c.validateTests(ps)
	c.validateCandidates(ps)
	c.validateRoles(ps)
	c.validateWorktreeSetup(ps)
	return warnings, ps.errs.orNil()
}

// validateAgentCmd reports an empty agent_cmd and settles which of agent
// and agent_cmd wins: agent_cmd selects the command agent, unless a
// stronger source (a flag over a variable over the file) named another
// agent, which then wins.
func (c *Config) validateAgentCmd(src Sources, ps *problems) {
	if src["agent_cmd"] != "" && strings.TrimSpace(c.AgentCmd) == "" {
		ps.add("agent_cmd", "is empty", "give the shell command that runs the agent, or leave agent_cmd out to use --agent")
	}
	if c.AgentCmd == "" || c.Agent == "command" {
		return
	}
	switch ra, rc := rank(src["agent"]), rank(src["agent_cmd"]); {
	case rc > ra:
		c.Agent = "command"
	case ra > rc:
		c.AgentCmd = ""
	default:
		ps.add("agent_cmd", fmt.Sprintf("a shell command run as the agent needs the command agent, but the agent is %q", c.Agent), "drop agent_cmd (--agent-cmd), or set the agent to command (or leave it out)")
	}
}

// validateWorktree: a worktree name implies --worktree.
func (c *Config) validateWorktree(ps *problems) {
	if c.WorktreeName == "" {
		return
	}
	c.Worktree = true
	if !ValidWorktreeName(c.WorktreeName) {
		ps.add("worktree_name", fmt.Sprintf("%q is not a usable worktree name", c.WorktreeName), "use letters, digits, '.', '_' and '-', starting with a letter or digit, at most 100 of them")
	}
}

// validateTask reports a run without a task: the mode, the task and the
// specification file (a mode's prompt file is the specification when
// neither a task nor --spec is given).
func (c *Config) validateTask(ps *problems) {
	switch c.Mode {
	case "", ModePlan, ModeBuild:
	default:
		ps.add("mode", fmt.Sprintf("unknown mode %q: it is plan or build", c.Mode), "use --mode plan or --mode build (or leave it out)")
	}
	modeSpecMissing := false
	if (c.Mode == ModePlan || c.Mode == ModeBuild) && strings.TrimSpace(c.Task) == "" && c.Spec == "" {
		// The mode's prompt file is the specification.
		c.Spec = filepath.Join(c.Dir, ModePromptFile(c.Mode))
		if _, err := os.Stat(c.Spec); err != nil {
			modeSpecMissing = true
			ps.add("mode", fmt.Sprintf("%s mode needs its prompt file %s, which was not found", c.Mode, c.Spec), "create it with `architect init --plan-build`, or give a TASK or --spec PATH")
		}
	}
	if strings.TrimSpace(c.Task) == "" && c.Spec == "" {
		ps.add("task", "no task given", `give the task as an argument, architect loop "fix the failing test" --check "go test ./...", or a specification file with --spec PATH, or write a ralph.yaml with the task and checks (architect init writes one; architect loop reads it)`)
	}
	if c.Spec == "" || modeSpecMissing {
		return
	}
	switch p := FileProblem(c.Spec); p {
	case "":
	case "not found":
		ps.add("spec", "specification file not found: "+c.Spec, "check the --spec path (it is not replaced by TASK when missing)")
	default:
		ps.add("spec", "specification "+c.Spec+": "+p, "give the path of a Markdown file")
	}
}

// validateLimits reports the limits of a run (iterations, time, money,
// transcript size) that are out of range, and warns of a high iteration
// count.
func (c *Config) validateLimits(ps *problems) (warnings []string) {
	switch {
	case c.MaxIterations < 1 || c.MaxIterations > 1000:
		ps.add("max_iterations", fmt.Sprintf("%d is out of range", c.MaxIterations), "use a number from 1 to 1000")
	case c.MaxIterations > 50:
		warnings = append(warnings, "high iteration count (>50) may consume significant resources")
	}
	if c.CheckTimeout <= 0 {
		ps.add("check_timeout", "must be more than 0", "give seconds, e.g. --check-timeout 300")
	}
	if c.MaxCost < 0 {
		ps.add("max_cost", "must not be negative", "give USD, e.g. --max-cost 5 (0 means no limit)")
	}
	if c.ResolveMaxCost < 0 {
		ps.add("resolve_max_cost", "must not be negative", "give USD, e.g. resolve_max_cost: 2 (0 means the task's max_cost)")
	}
	if c.MaxCost > 0 && c.Agent == "command" && !c.AgentReportsCost {
		ps.add("max_cost", "a budget needs the cost of every agent run, and a command agent reports none unless it writes it to $ARCHITECT_RESULT_FILE",
			`have the agent write {"cost_usd": N} to "$ARCHITECT_RESULT_FILE" and say so with --agent-reports-cost (YAML agent_reports_cost: true), or drop --max-cost`)
	}
	if c.TranscriptLimit < 0 || c.TranscriptLimit > 0 && c.TranscriptLimit < 1024 {
		ps.add("transcript_limit", fmt.Sprintf("%d bytes is too little to keep", c.TranscriptLimit), "give at least 1024 bytes, e.g. --transcript-limit 8388608 (8 MiB, the default)")
	}
	if c.MaxUsageWait <= 0 {
		ps.add("max_usage_wait", "must be more than 0", "give the longest total wait for usage limits, e.g. --max-usage-wait 6h (--on-usage-limit stop never waits)")
	}
	return warnings
}

// validateAgent reports the problems of the agent, its fallbacks, what it
// does at a usage limit and how it says it is done.
func (c *Config) validateAgent(src Sources, ps *problems) {
	if t := strings.TrimSpace(c.CompletionTag); t == "" || strings.ContainsAny(t, "<> \t\n") {
		ps.add("completion_tag", fmt.Sprintf("%q is not a usable tag", c.CompletionTag), "use one word without spaces or angle brackets, e.g. COMPLETE")
	}
	if !agent.Known(c.Agent) {
		ps.add("agent", fmt.Sprintf("unknown agent %q", c.Agent), "use one of: "+strings.Join(agent.Names(), ", "))
	}
	if c.Agent == "command" && strings.TrimSpace(c.AgentCmd) == "" && src["agent_cmd"] == "" {
		ps.add("agent", "the command agent needs a command", `give it with --agent-cmd 'CMD' (the prompt arrives on stdin)`)
	}
	c.validateFallback(ps)
	c.validateReviewer(ps)
	if c.OnUsageLimit != "wait" && c.OnUsageLimit != "stop" {
		ps.add("on_usage_limit", fmt.Sprintf("%q is neither wait nor stop", c.OnUsageLimit), "use --on-usage-limit wait or --on-usage-limit stop")
	}
	if c.DonePattern != "" {
		if _, err := regexp.Compile(c.DonePattern); err != nil {
			ps.add("done_pattern", "not a valid regular expression: "+RegexpProblem(err), "use Go (RE2) syntax, e.g. 'All tasks complete'")
		}
	}
}

// validateSupervision reports the supervision settings out of range.
func (c *Config) validateSupervision(ps *problems) {
	for key, v := range map[string]int{"max_consecutive_errors": c.MaxConsecutiveErrors, "idle_threshold": c.IdleThreshold} {
		if v < 0 {
			ps.add(key, "must not be negative", "use 0 to turn it off")
		}
	}
	if c.KillGrace <= 0 {
		ps.add("kill_grace", "must be more than 0", "e.g. --kill-grace 5s")
	}
	if c.Questions != "" && c.Questions != QuestionsOn && c.Questions != QuestionsOff {
		ps.add("questions", fmt.Sprintf("%q is neither on nor off", c.Questions), "use --questions on or off (the default)")
	}
	if c.OnQuestionTimeout != "" && c.OnQuestionTimeout != QuestionStop && c.OnQuestionTimeout != QuestionContinue {
		ps.add("on_question_timeout", fmt.Sprintf("%q is neither stop nor continue", c.OnQuestionTimeout), "use --on-question-timeout stop (the default) or continue")
	}
	if c.Questions == QuestionsOn && c.QuestionTimeout <= 0 {
		ps.add("question_timeout", "must be more than 0", "e.g. --question-timeout 30m")
	}
	c.validateSandbox(ps)
}

// validateSandbox reports an unknown --sandbox mode and a --sandbox-net
// that is not one.
func (c *Config) validateSandbox(ps *problems) {
	if c.Sandbox != "" && !slices.Contains(sandbox.Modes(), c.Sandbox) {
		ps.add("sandbox", fmt.Sprintf("%q is not a sandbox mode", c.Sandbox), "give one of "+strings.Join(sandbox.Modes(), ", "))
	}
	if _, err := sandbox.ParseNet(c.SandboxNet); err != nil {
		ps.addErr("sandbox_net", err, "give all, none, a list of ports like 443,8080, or hosts:api.anthropic.com,github.com")
	}
}

// validateChecks reports the problems of what judges the agent's work: the
// checks (or --no-checks), the protected paths and the redaction patterns.
func (c *Config) validateChecks(src Sources, ps *problems) {
	for i, chk := range c.Checks {
		if strings.TrimSpace(chk) == "" {
			ps.add("checks", fmt.Sprintf("check %d is empty", i+1), "give each --check a shell command")
		}
	}
	for _, p := range c.Protect {
		if err := protect.Valid(p); err != nil {
			ps.addErr("protect", fmt.Errorf("%q: %w", p, err), "use a glob relative to the workspace, e.g. 'tests/**' or '*_test.go'")
		}
	}
	c.validateCheckShell(ps)
	for _, e := range c.Errorformat {
		if _, _, err := ghactions.SplitFormatChoice(e); err != nil {
			ps.addErr("errorformat", err, "write FORMAT=COMMAND, e.g. eslint=npm run lint, with FORMAT one of "+strings.Join(ghactions.FormatNames(), ", "))
		}
	}
	c.validateKeyModes(ps)
	c.validateJudge(ps)
	if _, err := redact.New(nil, c.Redact); err != nil {
		ps.add("redact", RegexpProblem(err), "use Go (RE2) syntax that matches some text, e.g. 'ghp_[A-Za-z0-9]{36}'")
	}
	c.validateNoChecks(src, ps)
}

// validateCheckShell resolves --check-shell (and probes it for pipefail)
// here, so that the error names where the value came from; resolutions
// are cached, the run's own costs nothing more.
func (c *Config) validateCheckShell(ps *problems) {
	if c.CheckShell == "" {
		return
	}
	if _, err := proc.ResolveShell(context.Background(), c.CheckShell); err != nil {
		var ue *usererr.Error
		if errors.As(err, &ue) {
			ps.add("check_shell", ue.Msg, ue.Hint)
			return
		}
		ps.addErr("check_shell", err, proc.ShellHint)
	}
}

// validateKeyModes reports an unknown --broker or --redact-known mode.
func (c *Config) validateKeyModes(ps *problems) {
	switch c.Broker {
	case BrokerOn, BrokerOff, "": // "": a run saved before broker existed
	default:
		ps.add("broker", fmt.Sprintf("%q is neither on nor off", c.Broker), "use --broker on (the default) or off")
	}
	switch c.RedactKnown {
	case RedactKnownOn, RedactKnownOff, "": // "": a run saved before redact_known existed
	default:
		ps.add("redact_known", fmt.Sprintf("%q is neither on nor off", c.RedactKnown), "use --redact-known on (the default) or off")
	}
}

// validateJudge reports an unknown --judge mode and judge files that are
// not paths inside the workspace.
func (c *Config) validateJudge(ps *problems) {
	switch c.Judge {
	case JudgeProtect, JudgeWarn, JudgeOff, "": // "": a run saved before judge existed
	default:
		ps.add("judge", fmt.Sprintf("%q is none of protect, warn, off", c.Judge), "use --judge protect (the default), warn or off")
	}
	for _, p := range c.JudgeFiles {
		if strings.TrimSpace(p) == "" || filepath.IsAbs(p) || p == ".." || strings.HasPrefix(filepath.ToSlash(filepath.Clean(p)), "../") {
			ps.add("judge_files", fmt.Sprintf("%q is not a path inside the workspace", p), "give a path relative to the workspace, e.g. --judge-file scripts/lint.sh")
		}
	}
}

// validateNoChecks settles checks against --no-checks: checks given win
// over checks: [] in the file, contradict the flag, and a run with
// neither is refused (but in plan mode).
func (c *Config) validateNoChecks(src Sources, ps *problems) {
	switch {
	case len(c.Checks) > 0 && c.NoChecks && strings.HasPrefix(src["no_checks"], "--"):
		ps.add("no_checks", "--no-checks and --check contradict each other", "drop one of them")
	case len(c.Checks) > 0:
		c.NoChecks = false // checks: [] in the file, then checks given: they win
	case !c.NoChecks && c.Mode != ModePlan:
		// Plan mode writes a plan, which no check can judge: it needs no
		// opt-in.
		ps.add("checks", "no check given: architect reports success only when checks pass, and there is none to run",
			`give one or more with --check CMD (e.g. --check "go test ./..."), or say the agent's completion alone may end the run with --no-checks (YAML: checks: [])`)
	}
}

// FileProblem says why path cannot be read as a file ("" when it can):
// "not found", a folder, not a regular file (a FIFO would block its reader
// for ever), or the system's reason.
func FileProblem(path string) string {
	fi, err := os.Stat(path)
	switch {
	case os.IsNotExist(err):
		return "not found"
	case err != nil:
		return unwrapPathErr(err)
	case fi.IsDir():
		return "it is a directory"
	case !fi.Mode().IsRegular():
		return "it is not a regular file (a FIFO or a device cannot be read as one)"
	}
	f, err := os.Open(path)
	if err != nil {
		return unwrapPathErr(err)
	}
	f.Close()
	return ""
}

// RegexpProblem says what is wrong with a regular expression without the
// parser's own wording ("error parsing regexp: ..."): the problem and the
// part of the expression it is in.
func RegexpProblem(err error) string {
	var se *syntax.Error
	if errors.As(err, &se) {
		return fmt.Sprintf("%s in `%s`", se.Code, se.Expr)
	}
	return err.Error()
}

// rank orders the sources of a value by precedence: default, file,
// environment, flag.
func rank(source string) int {
	switch {
	case source == "":
		return 0
	case strings.HasPrefix(source, "-"):
		return 3
	case strings.HasPrefix(source, "ARCHITECT_"):
		return 2
	}
	return 1
}
