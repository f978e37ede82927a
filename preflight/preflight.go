// Package preflight checks, before a loop creates a worktree or starts an
// agent, what would otherwise fail only once money and time were spent:
// the agent's program is installed and runs, each check's programs are
// installed, the specification is there, the workspace can be set up, and
// the limits make sense together. It changes nothing, so a refused run
// leaves nothing behind. `architect loop` refuses on a failure and prints
// the warnings; `architect loop --dry-run` prints every result.
package preflight

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/checks"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/loop"
	"github.com/architect-dev/architect/proc"
	"github.com/architect-dev/architect/starter"
	"github.com/architect-dev/architect/usererr"
)

// Status of one check.
type Status string

const (
	OK   Status = "ok"
	Warn Status = "warn"
	Fail Status = "fail"
)

// Item is one pre-flight result.
type Item struct {
	Check  string `json:"check"` // what was looked at: "agent", "workspace", "check `pytest`", ...
	Status Status `json:"status"`
	Detail string `json:"detail"`
	Hint   string `json:"hint,omitempty"`
}

// Report is every result, in the order they were checked.
type Report struct {
	Items []Item `json:"items"`
	// Workspace is where the run would work (zero when the workspace was
	// not checked or could not be planned).
	Workspace loop.WorkspacePlan `json:"-"`
	// Judges are the files that define each check (checks.FindJudges).
	Judges []checks.Judge `json:"-"`
}

// Failures are the failed items, as an error.
type Failures []Item

func (f Failures) Error() string {
	if len(f) == 0 {
		return "pre-flight passed"
	}
	s := f[0].Check + ": " + f[0].Detail
	if len(f) > 1 {
		s += fmt.Sprintf(" (and %d more)", len(f)-1)
	}
	return s
}

// Err returns the failures, or nil when nothing failed.
func (r Report) Err() error {
	var f Failures
	for _, it := range r.Items {
		if it.Status == Fail {
			f = append(f, it)
		}
	}
	if len(f) == 0 {
		return nil
	}
	return f
}

// Warnings returns the items that passed with a warning.
func (r Report) Warnings() []Item {
	var w []Item
	for _, it := range r.Items {
		if it.Status == Warn {
			w = append(w, it)
		}
	}
	return w
}

// Options adjust a pre-flight.
type Options struct {
	// NoWorkspace skips the workspace: a resumed run's exists already, and
	// a batch checks its worktrees itself.
	NoWorkspace bool
	// LookPath finds a program on PATH; nil means exec.LookPath.
	LookPath func(string) (string, error)
	// VersionTimeout bounds the agent's --version run; 0 means 30 s.
	VersionTimeout time.Duration
	// Agents, when set, remembers each agent's result across runs of the
	// pre-flight (a batch of 100 tasks asks its CLI for --version once).
	Agents *AgentCache
	// Getenv and Geteuid read the environment and the user architect runs
	// as (Claude Code refuses root without IS_SANDBOX=1); nil means
	// os.Getenv and os.Geteuid.
	Getenv  func(string) string
	Geteuid func() int
}

// AgentCache holds agent results by agent, executable and command.
type AgentCache struct {
	mu   sync.Mutex
	seen map[string]Item
}

func (c *AgentCache) item(ctx context.Context, cfg config.Config, ag agent.Agent, opt Options) Item {
	if c == nil {
		return agentItem(ctx, cfg, ag, opt)
	}
	key := fmt.Sprintf("%s\x00%s\x00%s\x00%v", ag.Name(), agent.Binary(ag), cfg.AgentCmd, cfg.MaxCost > 0)
	c.mu.Lock()
	defer c.mu.Unlock()
	if it, ok := c.seen[key]; ok {
		return it
	}
	it := agentItem(ctx, cfg, ag, opt)
	if c.seen == nil {
		c.seen = map[string]Item{}
	}
	c.seen[key] = it
	return it
}

// Run checks cfg, whose agent is ag, and reports every result.
func Run(ctx context.Context, cfg config.Config, ag agent.Agent, opt Options) Report {
	if opt.LookPath == nil {
		opt.LookPath = exec.LookPath
	}
	if opt.VersionTimeout <= 0 {
		opt.VersionTimeout = 30 * time.Second
	}
	if opt.Getenv == nil {
		opt.Getenv = os.Getenv
	}
	if opt.Geteuid == nil {
		opt.Geteuid = os.Geteuid
	}
	var r Report
	add := func(it Item) { r.Items = append(r.Items, it) }
	// The agent's --version can take seconds (a Node.js CLI starting):
	// it runs while git looks at the workspace.
	agentDone := make(chan Item, 1)
	go func() { agentDone <- opt.Agents.item(ctx, cfg, ag, opt) }()
	fallbacks := fallbackItems(ctx, cfg, opt)
	candidates := candidateItems(ctx, cfg, opt)
	if !opt.NoWorkspace {
		var it Item
		it, r.Workspace = workspace(ctx, cfg)
		add(it)
		if u := uncommitted(cfg, r.Workspace); u.Check != "" {
			add(u)
		}
	}
	if cfg.Spec != "" {
		add(spec(cfg.Spec))
	}
	add(<-agentDone)
	for _, ch := range fallbacks {
		add(<-ch)
	}
	for _, ch := range candidates {
		add(<-ch)
	}
	var sh proc.ScriptShell
	if len(cfg.Checks) > 0 || cfg.OnIteration != "" || cfg.OnFinish != "" {
		var it Item
		it, sh = shellItem(ctx, cfg)
		add(it)
	}
	for _, c := range cfg.Checks {
		for _, it := range check(c, cfg.Dir, sh, opt.LookPath) {
			add(it)
		}
	}
	if len(cfg.Checks) > 0 {
		r.Judges = checks.FindJudges(cfg.Dir, cfg.Checks, cfg.JudgeFiles)
		for _, it := range judgeItems(cfg, r.Judges) {
			add(it)
		}
	}
	if it := finalLook(cfg, r.Workspace, opt.NoWorkspace); it.Check != "" {
		add(it)
	}
	if cfg.CandidateCount() > 1 {
		add(candidatesItem(cfg))
	}
	add(limits(cfg))
	return r
}

// candidatesItem says how the rounds of --candidates run.
func candidatesItem(cfg config.Config) Item {
	n := cfg.CandidateCount()
	d := fmt.Sprintf("%d per iteration, each in its own worktree", n)
	if len(cfg.CandidateAgents) > 0 {
		labels := make([]string, 0, n)
		for _, ac := range cfg.CandidateConfigs() {
			labels = append(labels, config.AgentLabel(ac))
		}
		d = fmt.Sprintf("%d per iteration (%s), each in its own worktree", n, strings.Join(labels, ", "))
	}
	if cfg.CandidatesFinishFirst() {
		d += " (first to succeed stops the others)"
	} else {
		d += " (every one runs to its end; the checks pick the best)"
	}
	lessons := "off"
	if cfg.CandidatesLessonsOn() {
		lessons = "on"
	}
	return Item{Check: "candidates", Status: OK, Detail: d + ", losers' lessons " + lessons}
}

// candidateItems checks the agents of the list form of --candidates as
// the run's own is checked, each agent (and model) once, concurrently;
// each channel gives one item, in the order of the list.
func candidateItems(ctx context.Context, cfg config.Config, opt Options) []chan Item {
	var out []chan Item
	seen := map[string]bool{config.AgentLabel(cfg.AgentConfig()) + "\x00" + cfg.AgentCmd: true}
	for i, ac := range cfg.CandidateConfigs() {
		if len(cfg.CandidateAgents) == 0 {
			break // copies of the run's own agent, checked already
		}
		key := config.AgentLabel(ac) + "\x00" + ac.Cmd
		if seen[key] {
			continue
		}
		seen[key] = true
		ch := make(chan Item, 1)
		out = append(out, ch)
		name := fmt.Sprintf("candidate %d agent %s", i+1, config.AgentLabel(ac))
		a, err := agent.New(ac)
		if err != nil {
			ch <- Item{Check: name, Status: Fail, Detail: err.Error(), Hint: "fix the candidates: list in the config file"}
			continue
		}
		cc := cfg
		cc.Agent, cc.AgentCmd, cc.Model, cc.AgentBin, cc.AgentArgs = ac.Name, ac.Cmd, ac.Model, ac.Bin, ac.Args
		go func() {
			it := opt.Agents.item(ctx, cc, a, opt)
			it.Check = name
			// The hint names where this agent is given: the list, not --agent-cmd.
			it.Hint = strings.Replace(it.Hint, "agent_cmd (--agent-cmd)", fmt.Sprintf("the agent_cmd of candidate %d in the candidates: list", i+1), 1)
			if it.Status == OK && ac.Name == "command" && cfg.MaxCost > 0 && !cfg.AgentReportsCost {
				it.Status, it.Detail = Fail, "max_cost needs the cost of every run, and the command agent `"+ac.Cmd+"` reports none unless it writes it to $ARCHITECT_RESULT_FILE"
				it.Hint = `have it write {"cost_usd": N} there and say so with --agent-reports-cost, or drop max_cost`
			}
			ch <- it
		}()
	}
	return out
}

// finalLook says how the last look before a success will be made, and,
// for a clean one, which ignored environment entries it brings in.
func finalLook(cfg config.Config, p loop.WorkspacePlan, noWorkspace bool) Item {
	it := Item{Check: "last look", Status: OK}
	switch {
	case len(cfg.Checks) == 0:
		return Item{}
	case cfg.FinalCheck == config.FinalCheckOff:
		it.Detail = "off: a success rests on the checks run in the agent's tree"
	case cfg.FinalCheck == config.FinalCheckSame:
		it.Detail = "the checks once more in the workspace before a success"
	case noWorkspace:
		it.Detail = "clean checkout of the final tree"
	case p.Repo == "":
		it.Status = Warn
		it.Detail = "not a git repository: no clean tree to check out, so the last look runs the checks again in the workspace"
		it.Hint = "run `git init` (and commit) to get the clean last look"
	case len(p.Environment) > 0:
		it.Detail = "clean checkout of the final tree; brought in as at the start: " + strings.Join(p.Environment, ", ")
	default:
		it.Detail = "clean checkout of the final tree; no ignored node_modules, .venv, venv, vendor or .env file to bring in"
	}
	return it
}

func workspace(ctx context.Context, cfg config.Config) (Item, loop.WorkspacePlan) {
	it := Item{Check: "workspace", Status: OK}
	p, err := loop.PlanWorkspace(ctx, cfg)
	if err != nil {
		it.Status, it.Detail = Fail, err.Error()
		var ue *usererr.Error
		if errors.As(err, &ue) {
			it.Hint = ue.Hint
		}
		return it, p
	}
	switch {
	case p.Repo == "":
		it.Status = Warn
		it.Detail = p.Dir + " is not in a git repository: the prompt will not show the changes made so far"
		it.Hint = "run `git init` to get them"
	case p.Worktree != "":
		it.Detail = fmt.Sprintf("new worktree %s on new branch %s, from %s", p.Worktree, p.WorktreeBranch, short(p.InitialRef))
	default:
		branch := p.Branch
		if branch == "" {
			branch = "a detached HEAD"
		}
		it.Detail = fmt.Sprintf("%s (git, on %s)", p.Dir, branch)
	}
	return it, p
}

// uncommitted says what happens to the checkout's uncommitted changes: a
// worktree leaves them out unless --include-uncommitted; build mode commits
// on the user's branch.
func uncommitted(cfg config.Config, p loop.WorkspacePlan) Item {
	n := len(p.Uncommitted)
	changes := fmt.Sprintf("%d uncommitted change%s (%s)", n, plural(n), listFew(p.Uncommitted, 4))
	switch {
	case p.Worktree != "" && n == 0:
	case p.Worktree != "" && cfg.IncludeUncommitted:
		return Item{Check: "uncommitted changes", Status: OK, Detail: "the checkout's " + changes + " are copied into the worktree's first commit"}
	case p.Worktree != "":
		return Item{Check: "uncommitted changes", Status: Warn,
			Detail: "the checkout has " + changes + " that the worktree will not have: it starts from your last commit",
			Hint:   "pass --include-uncommitted to copy them into the worktree's first commit, or commit them first"}
	case cfg.Mode == config.ModeBuild && p.Repo != "":
		branch := p.Branch
		if branch == "" {
			branch = "the detached HEAD"
		}
		d := "build mode commits each iteration on your current branch, " + branch
		if n > 0 {
			d += fmt.Sprintf(", starting with the %d uncommitted change%s already there (%s)", n, plural(n), listFew(p.Uncommitted, 4))
		}
		return Item{Check: "commits", Status: Warn, Detail: d,
			Hint: "use --worktree to leave " + branch + " untouched (architect merge brings the work in)"}
	}
	return Item{}
}

func spec(path string) Item {
	it := Item{Check: "spec", Status: OK}
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		it.Status, it.Detail, it.Hint = Fail, "specification file not found: "+path, "check the --spec path"
	case fi.Size() == 0:
		it.Status, it.Detail, it.Hint = Warn, path+" is empty", "write the task in it: it is the agent's prompt"
	case isTemplate(path):
		it.Status, it.Detail = Warn, path+" is still the template `architect init` wrote: the agent would get no task"
		it.Hint = "replace its first line, " + starter.Placeholder + ", with the task, and the paragraph under it with what to do"
	default:
		it.Detail = fmt.Sprintf("%s (%d bytes)", path, fi.Size())
	}
	return it
}

// isTemplate reports whether the specification at path still begins with
// the PROMPT.md template's placeholder title.
func isTemplate(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, _ := io.ReadFull(f, head)
	return starter.IsTemplate(string(head[:n]))
}

// agentItem checks that the agent's program is installed and runs.
func agentItem(ctx context.Context, cfg config.Config, ag agent.Agent, opt Options) Item {
	it := Item{Check: "agent " + ag.Name(), Status: OK}
	if pc, ok := ag.(agent.PriceChecker); ok && cfg.MaxCost > 0 {
		if err := pc.CheckPrices(); err != nil {
			it.Status, it.Detail = Fail, "max_cost needs the cost of every run, but "+err.Error()
			it.Hint = "add the model's price under prices: in the config file (USD per million tokens), or drop max_cost"
			return it
		}
	}
	bin := agent.Binary(ag)
	if bin == "" { // the command agent: a shell command
		if missing := Programs(cfg.AgentCmd, opt.LookPath); len(missing) > 0 {
			it.Status = Fail
			it.Detail = fmt.Sprintf("agent_cmd `%s` runs %s, which %s not installed (not found on PATH)", cfg.AgentCmd, strings.Join(missing, ", "), isAre(len(missing)))
			it.Hint = "install it, or fix agent_cmd (--agent-cmd)"
			if m := meant(missing); m != "" {
				it.Detail += "; " + m
				it.Hint = "fix agent_cmd (--agent-cmd), or install " + strings.Join(missing, " and ")
			}
			return it
		}
		it.Detail = "`" + cfg.AgentCmd + "` (sh -c, prompt on stdin)"
		return it
	}
	cli, _ := agent.CLIFor(ag.Name())
	path, err := findProgram(bin, opt.LookPath)
	if err != nil {
		it.Status, it.Detail, it.Hint = Fail, err.Error(), cli.Install
		return it
	}
	stdout, stderr := proc.NewTail(4096), proc.NewTail(4096)
	res := proc.Run(ctx, path, []string{"--version"}, proc.Options{Stdout: stdout, Stderr: stderr, Timeout: opt.VersionTimeout, Grace: 2 * time.Second})
	// The version is on stdout (Codex warns on stderr first); an error is
	// usually on stderr.
	version, problem := firstLine(stdout.String()), lastLine(stderr.String())
	if version == "" {
		version = firstLine(stderr.String())
	}
	if problem == "no output" {
		problem = lastLine(stdout.String())
	}
	switch {
	case res.StartErr != nil:
		it.Status, it.Detail, it.Hint = Fail, fmt.Sprintf("%s cannot be started: %v", path, res.StartErr), cli.Install
	case res.TimedOut:
		it.Status, it.Detail = Warn, fmt.Sprintf("`%s --version` did not answer within %s", path, opt.VersionTimeout)
		it.Hint = "check that it runs: " + path + " --version"
	case ctx.Err() != nil:
		it.Status, it.Detail = Warn, "interrupted while running `"+path+" --version`"
	case res.ExitCode != 0:
		it.Status = Fail
		it.Detail = fmt.Sprintf("`%s --version` failed (exit status %d): %s", path, res.ExitCode, problem)
		it.Hint = "check its installation (" + cli.Install + ")"
	default:
		it.Detail = fmt.Sprintf("%s (%s)", version, path)
	}
	if it.Status == OK && ag.Name() == "claude" && opt.Geteuid() == 0 && opt.Getenv("IS_SANDBOX") != "1" && !claudeBubblewrap(opt.Getenv("CLAUDE_CODE_BUBBLEWRAP")) {
		it.Status = Fail
		it.Detail = "architect runs as root, and Claude Code refuses to run as root with --dangerously-skip-permissions (which architect gives it) unless IS_SANDBOX=1 is set"
		if v := opt.Getenv("IS_SANDBOX"); v != "" {
			it.Detail += fmt.Sprintf(" (it is %q)", v)
		}
		it.Hint = "if this machine is a sandbox (a container or VM with nothing to lose), set IS_SANDBOX=1; otherwise run architect as a normal user"
	}
	return it
}

// claudeBubblewrap reports whether CLAUDE_CODE_BUBBLEWRAP holds a value
// Claude Code reads as true: it then runs as root as it does under
// IS_SANDBOX=1 (it takes the bubblewrap sandbox as the safety).
func claudeBubblewrap(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// fallbackItems checks each fallback agent as the run's own is checked
// (installed, runs, priced when --max-cost needs it), concurrently; each
// channel gives one item, in the order of the list.
func fallbackItems(ctx context.Context, cfg config.Config, opt Options) []chan Item {
	var out []chan Item
	for _, ac := range cfg.FallbackAgents() {
		ch := make(chan Item, 1)
		out = append(out, ch)
		label := config.AgentLabel(ac)
		a, err := agent.New(ac)
		if err != nil {
			ch <- Item{Check: "fallback agent " + label, Status: Fail, Detail: err.Error(), Hint: "fix --fallback (fallback: in the config file)"}
			continue
		}
		fc := cfg
		fc.Agent, fc.AgentCmd, fc.Model = ac.Name, ac.Cmd, ac.Model
		go func() {
			it := opt.Agents.item(ctx, fc, a, opt)
			it.Check = "fallback agent " + label
			if it.Status == OK && ac.Name == "command" && cfg.MaxCost > 0 && !cfg.AgentReportsCost {
				it.Status, it.Detail = Fail, "max_cost needs the cost of every run, and the command agent `"+ac.Cmd+"` reports none unless it writes it to $ARCHITECT_RESULT_FILE"
				it.Hint = `have it write {"cost_usd": N} there and say so with --agent-reports-cost, or drop max_cost`
			}
			ch <- it
		}()
	}
	return out
}

// findProgram finds bin: a path is taken as is (relative to the current
// folder), a name is looked up on PATH.
func findProgram(bin string, lookPath func(string) (string, error)) (string, error) {
	if strings.Contains(bin, "/") {
		fi, err := os.Stat(bin)
		if err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			return "", fmt.Errorf("%s is not an executable file", bin)
		}
		return filepath.Abs(bin)
	}
	path, err := lookPath(bin)
	if err != nil {
		return "", fmt.Errorf("%s is not installed (not found on PATH)", bin)
	}
	return path, nil
}

// shellItem says what runs the checks and hooks, or why it cannot.
func shellItem(ctx context.Context, cfg config.Config) (Item, proc.ScriptShell) {
	it := Item{Check: "check shell", Status: OK}
	sh, err := proc.ResolveShell(ctx, cfg.CheckShell)
	if err != nil {
		it.Status, it.Detail, it.Hint = Fail, "--check-shell: "+err.Error(), proc.ShellHint
		return it, sh
	}
	what := "checks run"
	if cfg.OnIteration != "" || cfg.OnFinish != "" {
		what = "checks and hooks run"
	}
	it.Detail = fmt.Sprintf("%s with %s: a failing stage of a pipeline fails the check", what, sh)
	return it, sh
}

// check says how the check c runs, and what in it would fail at every
// iteration: a program that is not installed (refused, with the name it
// likely meant), a script path that does not exist in the workspace dir
// (a warning: a build step may make it).
func check(c, dir string, sh proc.ScriptShell, lookPath func(string) (string, error)) []Item {
	name := "check `" + c + "`"
	it := Item{Check: name, Status: OK, Detail: "programs found"}
	if sh.Name != "" {
		it.Detail = "runs with " + sh.Name + "; programs found"
	}
	out := []Item{it}
	if missing := Programs(c, lookPath); len(missing) > 0 {
		it.Status = Fail
		it.Detail = fmt.Sprintf("%s %s not installed (not found on PATH): the check would fail at every iteration", strings.Join(missing, ", "), isAre(len(missing)))
		var parts []string
		for _, m := range missing {
			if h, ok := installHints[m]; ok {
				m += " (" + h + ")"
			}
			parts = append(parts, m)
		}
		it.Hint = "install " + strings.Join(parts, " and ") + ", or fix the check"
		if m := meant(missing); m != "" {
			it.Detail += "; " + m
			it.Hint = "fix the check, or install " + strings.Join(parts, " and ")
		}
		out[0] = it
	}
	if early := EarlyReaders(c); len(early) > 0 {
		out = append(out, Item{Check: name, Status: Warn,
			Detail: fmt.Sprintf("`%s` can stop reading before the command that writes to it ends, which then dies of SIGPIPE (exit status 141): with pipefail the check fails or passes depending on how much was printed", strings.Join(early, "`, `")),
			Hint:   "pipe into tail instead (architect keeps the end of a check's output anyway), or start the check with `set +o pipefail;` if that is what you mean",
		})
	}
	if paths := ScriptPaths(c, dir); len(paths) > 0 {
		where := dir
		if abs, err := filepath.Abs(dir); err == nil {
			where = abs
		}
		out = append(out, Item{Check: name, Status: Warn,
			Detail: fmt.Sprintf("%s %s not exist in %s: the check fails unless something makes %s first", strings.Join(paths, ", "), doesDo(len(paths)), where, itThem(len(paths))),
			Hint:   "fix the path (relative to the workspace), or go on if a build step creates it",
		})
	}
	return out
}

// meant says which installed or common program each missing one likely
// meant: "did you mean pytest?"; "" when none is near.
func meant(missing []string) string {
	var s []string
	for _, m := range missing {
		if near := Suggest(m); near != "" && len(missing) == 1 {
			return "did you mean `" + near + "`?"
		} else if near != "" {
			s = append(s, fmt.Sprintf("`%s` for `%s`", near, m))
		}
	}
	if len(s) == 0 {
		return ""
	}
	return "did you mean " + strings.Join(s, ", ") + "?"
}

func doesDo(n int) string {
	if n == 1 {
		return "does"
	}
	return "do"
}

func itThem(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// installHints say how to install the programs checks use most.
var installHints = map[string]string{
	"pytest":        "pip install pytest, uv add --dev pytest or poetry add --group dev pytest",
	"ruff":          "pip install ruff, or uv tool install ruff",
	"mypy":          "pip install mypy",
	"pyright":       "pip install pyright, or npm install -g pyright",
	"golangci-lint": "https://golangci-lint.run/welcome/install/",
	"staticcheck":   "go install honnef.co/go/tools/cmd/staticcheck@latest",
	"go":            "https://go.dev/dl/",
	"cargo":         "https://rustup.rs",
	"node":          "https://nodejs.org",
	"npm":           "it comes with Node.js, https://nodejs.org",
	"npx":           "it comes with Node.js, https://nodejs.org",
	"pnpm":          "npm install -g pnpm, or corepack enable",
	"yarn":          "npm install -g yarn, or corepack enable",
	"bun":           "https://bun.sh",
	"just":          "https://just.systems",
	"make":          "apt-get install make, or your system's build tools",
	"uv":            "https://docs.astral.sh/uv/",
	"poetry":        "pipx install poetry",
}

// limits warns about limits that can never take effect together.
func limits(cfg config.Config) Item {
	it := Item{Check: "limits", Status: OK}
	var warn []string
	d := config.FormatDuration
	if cfg.InactivityTimeout > 0 && cfg.IterationTimeout > 0 && cfg.InactivityTimeout >= cfg.IterationTimeout {
		warn = append(warn, fmt.Sprintf("inactivity_timeout (%s) is not shorter than iteration_timeout (%s), so it never ends a run", d(cfg.InactivityTimeout), d(cfg.IterationTimeout)))
	}
	if cfg.MaxTime > 0 && cfg.MaxTime <= cfg.KillGrace {
		warn = append(warn, fmt.Sprintf("max_time (%s) is not longer than kill_grace (%s): the run would be stopping from its start", d(cfg.MaxTime), d(cfg.KillGrace)))
	}
	if cfg.MaxTime > 0 && len(cfg.Checks) > 0 && cfg.MaxTime < cfg.CheckTimeout {
		warn = append(warn, fmt.Sprintf("max_time (%s) is shorter than check_timeout (%s): slow checks may never get to finish", d(cfg.MaxTime), d(cfg.CheckTimeout)))
	}
	if len(warn) > 0 {
		it.Status, it.Detail, it.Hint = Warn, strings.Join(warn, "; "), "adjust the limits (see `architect loop --help`, Limits)"
		return it
	}
	parts := []string{fmt.Sprintf("%d iterations", cfg.MaxIterations)}
	if cfg.MaxCost > 0 {
		parts = append(parts, fmt.Sprintf("$%.2f", cfg.MaxCost))
	}
	if cfg.MaxTime > 0 {
		parts = append(parts, d(cfg.MaxTime))
	}
	it.Detail = "at most " + strings.Join(parts, ", ")
	return it
}

func short(ref string) string {
	if len(ref) > 12 {
		return ref[:12]
	}
	return ref
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

func listFew(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}

// firstLine is the first line of s that is not blank.
func firstLine(s string) string {
	for _, line := range strings.Split(s, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			return line
		}
	}
	return ""
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if s == "" {
		return "no output"
	}
	return s
}
