package main

// mutants is the list: each entry breaks one guarantee architect makes,
// and a test of the package that keeps it must fail. To add one when a
// new guarantee is added: copy an entry, name the guarantee in words, and
// give the smallest snippet that states it (one line where one line does:
// it goes stale less often), exactly as it is in the file, tabs included;
// then run `go run ./internal/mutants -run NAME` and see it caught. Narrow
// slow packages with run (go test -run) to the tests that guard it.
var mutants = []mutant{
	// runlog: the iteration records.
	{
		name:      "runlog/torn-last-line-kept",
		guarantee: "a last line of iterations.jsonl without a newline (a run killed mid-append) is cut, not read as a record: the next append would glue onto it and both would be lost",
		file:      "runlog/records.go",
		find:      `break // no newline: torn`,
		replace:   `end = len(data) - good // torn, read anyway`,
		run:       "TestRecords|TestReadRecords",
	},
	{
		name:      "runlog/repeated-iteration-listed-twice",
		guarantee: "show, the report and the view list an iteration appended twice once",
		file:      "runlog/records.go",
		find:      `if json.Unmarshal(sc.Bytes(), &it) != nil || seen[it.Iteration] {`,
		replace:   `if json.Unmarshal(sc.Bytes(), &it) != nil {`,
		run:       "TestReadIterations",
	},

	// loop: the engine.
	{
		name:      "loop/elapsed-not-accumulated",
		guarantee: "--max-time spans every session of a run: after two or more resumes it does not stretch",
		file:      "loop/loop.go",
		find:      `s.Elapsed += r.deps.Now().Sub(r.start).Seconds()`,
		replace:   `s.Elapsed = r.deps.Now().Sub(r.start).Seconds()`,
		run:       "TestResumeMaxTime",
	},
	{
		name:      "loop/resume-after-success-runs-again",
		guarantee: "a run killed after recording its successful last iteration ends as that success on --resume, without running (and paying) an agent again",
		file:      "loop/loop.go",
		find:      `if n := len(r.records); n > 0 && r.records[n-1].CompletionSignal != "" {`,
		replace:   `if n := len(r.records); false && n > 0 && r.records[n-1].CompletionSignal != "" {`,
		run:       "TestResumeAfterRecordedSuccess",
	},
	{
		name:      "loop/idle-ignores-check-changes",
		guarantee: "an iteration that changes what the checks say, though not the tree, is not idle: no early idle stop",
		file:      "loop/decide.go",
		find:      `cur.Tree != prevTree || cur.ChecksID != prevChecks {`,
		replace:   `cur.Tree != prevTree || cur.ChecksID != prevChecks && false {`,
		run:       "TestIdle",
	},
	{
		name:      "loop/wait-file-ignored",
		guarantee: "an agent that leaves the WAIT file is not restarted: the run stops, waiting",
		file:      "loop/decide.go",
		find:      `if _, err := os.Stat(r.ws.state(runlog.WaitFile)); err == nil {`,
		replace:   `if _, err := os.Stat(r.ws.state(runlog.WaitFile)); false && err == nil {`,
		run:       "TestWaitFile",
	},
	{
		name:      "loop/done-file-success-on-cut-checks",
		guarantee: "the DONE file ends the run in success only when its checks ran to the end: checks cut short by a stop earn nothing",
		file:      "loop/decide.go",
		find:      "\tif ctx.Err() != nil {\n\t\treturn false\n\t}\n\tr.logEvent(\"DONE\"",
		replace:   "\tr.logEvent(\"DONE\"",
		run:       "TestDoneFile",
	},
	{
		name:      "loop/pause-waits-out-backoff",
		guarantee: "architect pause ends a backoff or usage-limit wait at once",
		file:      "loop/wait.go",
		find:      `if a := r.control(); a == runlog.ControlPause || a == runlog.ControlStop || r.noteForNow() {`,
		replace:   `if a := r.control(); a == runlog.ControlStop || r.noteForNow() {`,
		run:       "TestPause",
	},
	{
		name:      "loop/cut-checks-recorded-as-run",
		guarantee: "checks cut short by a stop are recorded as not run",
		file:      "loop/iteration.go",
		find:      `it.ChecksRun = ctx.Err() == nil`,
		replace:   `it.ChecksRun = true`,
		run:       "TestChecksCutShort|TestInterrupted|TestMaxTimeDuringChecks",
	},

	// checks: running the user's checks.
	{
		name:      "checks/cancelled-check-passes",
		guarantee: "a check stopped by a cancel does not pass, even when it exits 0 on SIGTERM",
		file:      "checks/checks.go",
		find:      `r.Passed = pr.StartErr == nil && pr.ExitCode == 0 && !pr.TimedOut && !pr.Canceled`,
		replace:   `r.Passed = pr.StartErr == nil && pr.ExitCode == 0 && !pr.TimedOut`,
	},

	// config: values checked at the door.
	{
		name:      "config/nan-accepted",
		guarantee: "a number that is not a number (NaN) is refused before the run starts: a NaN budget would never stop anything",
		file:      "config/door.go",
		find:      `if math.IsNaN(*p) || math.IsInf(*p, 0) {`,
		replace:   `if math.IsInf(*p, 0) {`,
		run:       "TestDoor",
	},

	// proc: process trees.
	// TestModes/cgroup runs the package's tests again in a run cgroup; where
	// none can be made (not root, no delegated cgroup v2) it skips, and
	// this mutant survives: run CI where architect can use a cgroup.
	{
		name:      "proc/cgroup-no-kill-after-grace",
		guarantee: "with a run cgroup, processes that ignore SIGTERM are killed (cgroup.kill) after the grace period",
		file:      "proc/tree_linux.go",
		find:      "\t\t\ts.kill()\n\t\t\tdeadline = time.Now().Add(time.Second)",
		replace:   "\t\t\tdeadline = time.Now().Add(time.Second)",
		run:       "TestModes/cgroup",
	},
	{
		name:      "proc/no-final-sweep",
		guarantee: "without a cgroup, descendants left after the grace period are killed by the final sweep",
		file:      "proc/tree_linux.go",
		find:      "\tuntrack(pgid)\n\tSweep()\n}",
		replace:   "\tuntrack(pgid)\n}",
		run:       "TestLeftoverIgnoringTerm",
	},

	// What the thirteen above do not cover: changes to guarantees that the
	// package's tests already caught when the list was made.

	// runlog
	{
		name:      "runlog/out-of-order-record-lost",
		guarantee: "a record out of order and what follows it are moved to iterations.jsonl.cut, not lost",
		file:      "runlog/records.go",
		find:      `if err := appendFile(path+".cut", data[good:]); err != nil {`,
		replace:   `if err := error(nil); err != nil {`,
		run:       "TestReadRecords|TestDamaged",
	},
	{
		name:      "runlog/repeated-append-ends-reading",
		guarantee: "a repeated append is skipped and the records after it are still read",
		file:      "runlog/records.go",
		find:      `case n >= 1 && n <= len(out):`,
		replace:   `case false:`,
		run:       "TestReadRecords",
	},
	{
		name:      "runlog/state-synced-write-in-place",
		guarantee: "state.json and result.json are replaced whole (a new file renamed into place): a kill mid-write leaves the old or the new version",
		file:      "runlog/state.go",
		find:      "return renameio.WriteFile(path, append(data, '\\n'), 0o600)",
		replace:   "_ = renameio.WriteFile\n\treturn os.WriteFile(path, append(data, '\\n'), 0o600)",
		run:       "TestJSONWrites",
	},
	{
		name:      "runlog/state-quick-write-in-place",
		guarantee: "the state saved between phases is replaced whole, never rewritten in place",
		file:      "runlog/state.go",
		find:      `tmp := path + ".tmp"`,
		replace:   `tmp := path`,
		run:       "TestJSONWrites",
	},

	// loop: money and time
	{
		name:      "loop/budget-reached-not-stopped",
		guarantee: "--max-cost stops the run once the money spent reaches the limit, not only past it",
		file:      "loop/loop.go",
		find:      `return r.cfg.MaxCost > 0 && r.res.KnownCost >= r.cfg.MaxCost`,
		replace:   `return r.cfg.MaxCost > 0 && r.res.KnownCost > r.cfg.MaxCost`,
		run:       "TestBudget",
	},
	{
		name:      "loop/budget-forgets-earlier-spending",
		guarantee: "a running agent is stopped when the run's spending, its earlier iterations included, reaches --max-cost",
		file:      "loop/inflight.go",
		find:      `if budget := w.r.cfg.MaxCost; budget > 0 && s.CostKnown && w.before+s.Cost >= budget {`,
		replace:   `if budget := w.r.cfg.MaxCost; budget > 0 && s.CostKnown && s.Cost >= budget {`,
		run:       "TestBudgetStopsARunningAgent",
	},
	{
		name:      "loop/unknown-cost-under-budget",
		guarantee: "with --max-cost, an iteration whose cost is unknown stops the run: the budget can no longer be enforced",
		file:      "loop/decide.go",
		find:      `if r.cfg.MaxCost > 0 && it.Cost == nil {`,
		replace:   `if false && r.cfg.MaxCost > 0 && it.Cost == nil {`,
		run:       "TestUnknownCost",
	},
	{
		name:      "loop/max-iterations-passed",
		guarantee: "the run never starts more iterations than --max-iterations",
		file:      "loop/loop.go",
		find:      `if i > r.cfg.MaxIterations {`,
		replace:   `if i > r.cfg.MaxIterations+1 {`,
		run:       "TestUnknownCost|TestNoBackoffWhenTheLoopStopsAnyway",
	},
	{
		name:      "loop/circuit-breaker-late",
		guarantee: "max_consecutive_errors failed agent runs in a row stop the run (the circuit breaker)",
		file:      "loop/decide.go",
		find:      `if limit := r.cfg.MaxConsecutiveErrors; limit > 0 && n >= limit {`,
		replace:   `if limit := r.cfg.MaxConsecutiveErrors; limit > 0 && n > limit {`,
		run:       "TestBackoffThenCircuitBreaker|TestIdleFromIterationOne",
	},
	{
		name:      "loop/backoff-past-max-time",
		guarantee: "a backoff wait that would reach --max-time stops the run at once instead of waiting for nothing",
		file:      "loop/wait.go",
		find:      `if dl, ok := ctx.Deadline(); ok && !r.deps.Now().Add(d).Before(dl) {`,
		replace:   `if dl, ok := ctx.Deadline(); false && ok && !r.deps.Now().Add(d).Before(dl) {`,
		run:       "TestNoBackoffWhenTheLoopStopsAnyway|TestBackoffNeverRunsPastMaxTime",
	},
	{
		name:      "loop/usage-waits-uncapped",
		guarantee: "usage-limit waits are bounded in total by max_usage_wait: no wait that would pass it starts",
		file:      "loop/wait.go",
		find:      `if limit := r.cfg.MaxUsageWait; limit > 0 && waited+d > limit {`,
		replace:   `if limit := r.cfg.MaxUsageWait; limit > 0 && waited > limit {`,
		run:       "TestUsageLimitWaitsCountedAndCapped",
	},
	{
		name:      "loop/usage-wait-past-max-time",
		guarantee: "a usage-limit wait that would end after the --max-time deadline is refused at once",
		file:      "loop/wait.go",
		find:      `if dl, ok := runCtx.Deadline(); ok && r.deps.Now().Add(d).After(dl) {`,
		replace:   `if dl, ok := runCtx.Deadline(); false && ok && r.deps.Now().Add(d).After(dl) {`,
		run:       "TestUsageLimitPastMaxTime",
	},

	// loop: no success the checks did not earn
	{
		name:      "loop/success-without-passing-checks",
		guarantee: "a declared completion ends the run in success only when every check ran and passed",
		file:      "loop/decide.go",
		find:      `return rec.AllChecksPassed && rec.ChecksRun`,
		replace:   `return true`,
		run:       "TestDonePatternNeedsChecks|TestProtectedChange",
	},
	{
		name:      "loop/completion-ends-without-success",
		guarantee: "a completion signal whose iteration did not succeed does not end the run",
		file:      "loop/decide.go",
		find:      `if signal != "" && ok {`,
		replace:   `if signal != "" {`,
		run:       "TestDonePatternNeedsChecks|TestProtectedChange",
	},
	{
		name:      "loop/protected-change-succeeds",
		guarantee: "an iteration whose changes to protected files were undone is a failure, never a success",
		file:      "loop/decide.go",
		find:      `case len(rec.ProtectedRestored) > 0, judgeFailed(rec.JudgeChanged), rec.Interrupted != "",`,
		replace:   `case judgeFailed(rec.JudgeChanged), rec.Interrupted != "",`,
		run:       "TestProtectedChange",
	},
	{
		name:      "loop/judge-change-succeeds",
		guarantee: "an iteration that changed a file defining a check is a failure, even when the checks pass once it is undone",
		file:      "loop/decide.go",
		find:      `case len(rec.ProtectedRestored) > 0, judgeFailed(rec.JudgeChanged), rec.Interrupted != "",`,
		replace:   `case len(rec.ProtectedRestored) > 0, rec.Interrupted != "",`,
		run:       "TestJudgeChange",
	},
	{
		name:      "loop/judge-change-kept",
		guarantee: "under --judge protect, the agent's change to a file defining a check is undone before the checks run",
		file:      "loop/judge.go",
		find:      `kept := g.mode == config.JudgeWarn`,
		replace:   `kept := true`,
		run:       "TestJudgeChange",
	},
	{
		name:      "proc/check-shell-without-pipefail",
		guarantee: "a check runs in a shell with pipefail: a failing stage of a pipeline fails the check",
		file:      "proc/shell.go",
		find:      `args := []string{"-o", "pipefail", "-c"}`,
		replace:   `args := []string{"-c"}`,
		run:       "TestScriptShellPipefail|TestDefaultShellFallsBack",
	},
	{
		name:      "proc/pipefail-probe-trusts-any-shell",
		guarantee: "a chosen check shell without pipefail (dash) is refused, never run as if it had it",
		file:      "proc/shell.go",
		find:      `return res.StartErr == nil && res.ExitCode == 7`,
		replace:   `return res.StartErr == nil`,
		run:       "TestResolveShellRefuses",
	},
	{
		name:      "proc/builtin-shell-without-pipefail",
		guarantee: "architect's built-in check shell has pipefail on",
		file:      "proc/interp.go",
		find:      `interp.Params(append([]string{"-o", "pipefail", "--"}, params...)...),`,
		replace:   `interp.Params(append([]string{"--"}, params...)...),`,
		run:       "TestScriptShellPipefail",
	},
	{
		name:      "checks/unusable-shell-runs-sh",
		guarantee: "a check shell that cannot be used fails every check: none passes without having run",
		file:      "checks/checks.go",
		find:      `if shErr != nil {`,
		replace:   `if shErr != nil && false {`,
		run:       "TestUnusableShellFailsEveryCheck",
	},
	{
		name:      "loop/checks-ignore-check-shell",
		guarantee: "the loop runs its checks in the shell the run chose (--check-shell)",
		file:      "loop/iteration.go",
		find:      `Shell:   r.cfg.CheckShell,`,
		replace:   `Shell:   "",`,
		run:       "TestPipelineCheckNeverPasses",
	},
	{
		name:      "loop/protected-files-not-restored",
		guarantee: "protected files the agent changed are restored after its run",
		file:      "loop/iteration.go",
		find:      `it.ProtectedRestored = r.restoreProtected(snap, i)`,
		replace:   `_ = snap`,
		run:       "TestProtectedChange",
	},
	{
		name:      "loop/timed-out-agent-completes",
		guarantee: "an agent stopped by a timeout declares nothing: not even a DONE file it made ends the run",
		file:      "loop/decide.go",
		find:      `if rec.AgentTimedOut || rec.Interrupted != "" {`,
		replace:   `if rec.Interrupted != "" {`,
		run:       "TestTimedOutAgentCannotDeclareCompletion",
	},
	{
		name:      "loop/timed-out-agent-tag-read",
		guarantee: "what an agent stopped by a timeout printed is not read for the completion tag (the layer before completionSignal, alone)",
		file:      "loop/iteration.go",
		find:      `if !x.o.TimedOut && !x.o.Inactive {`,
		replace:   `if true {`,
		run:       "TestTimedOutAgentCannotDeclareCompletion",
	},
	{
		name:      "loop/fatal-error-retried",
		guarantee: "a fatal agent error (bad key, unknown model) stops the run at once, in the agent's words",
		file:      "loop/decide.go",
		find:      `if o.ErrKind == agent.ErrFatal {`,
		replace:   `if false && o.ErrKind == agent.ErrFatal {`,
		run:       "TestFatal",
	},
	{
		name:      "loop/failed-run-counts-as-idle",
		guarantee: "failed agent runs are agent errors, not idleness: an outage ends on the circuit breaker",
		file:      "loop/decide.go",
		find:      `if cur.Failed || cur.Interrupted != "" ||`,
		replace:   `if cur.Interrupted != "" ||`,
		run:       "TestIdle",
	},

	// loop: secrets
	{
		name:      "loop/config-secret-saved",
		guarantee: "a secret in the configuration (a token in a check command) is masked in state.json, the events and the prompts",
		file:      "loop/loop.go",
		find:      `shown, masked := redactConfig(cfg, deps.Redact)`,
		replace:   `shown, masked := cfg, []string(nil)`,
		run:       "TestSecretInCheckCommand",
	},
	{
		name:      "loop/final-message-unredacted",
		guarantee: "a secret in the agent's final message is masked where it enters: no file of the run holds it",
		file:      "loop/harden.go",
		find:      `o.FinalMessage = r.cleanText(o.FinalMessage)`,
		replace:   `o.FinalMessage = proc.Clean([]byte(o.FinalMessage))`,
		run:       "TestSecretsInAgentAndCheckOutputMasked",
	},
	{
		name:      "loop/check-output-unredacted",
		guarantee: "a secret a check prints is masked in the records",
		file:      "loop/harden.go",
		find:      `Output: r.deps.Redact(c.Output), OutputBytes: c.OutputBytes`,
		replace:   `Output: c.Output, OutputBytes: c.OutputBytes`,
		run:       "TestSecretsInAgentAndCheckOutputMasked",
	},
	{
		name:      "loop/resume-without-masked-secret",
		guarantee: "a resume refuses to run a check whose secret was masked in the saved state unless it is given again",
		file:      "loop/resume.go",
		find:      `if err := needsAgain(st.Redacted, saved, cfg); err != nil {`,
		replace:   `if err := error(nil); err != nil {`,
		run:       "TestSecretInCheckCommand",
	},

	// loop: never losing work, one run at a time
	{
		name:      "loop/second-run-in-workspace",
		guarantee: "one loop per workspace: a second one fails at once, naming the holder",
		file:      "loop/lock.go",
		find:      `if !ok {`,
		replace:   `if false && !ok {`,
		run:       "TestSecondRunInAWorkspace",
	},
	{
		name:      "loop/new-run-over-interrupted",
		guarantee: "a new run over an interrupted one is refused (continue it with --resume) unless --new says to set it aside",
		file:      "loop/fresh.go",
		find:      `if err != nil || !st.Interrupted(false) {`,
		replace:   `if true || err != nil || !st.Interrupted(false) {`,
		run:       "TestNewRunOverAnInterruptedOne",
	},
	{
		name:      "loop/resume-a-success",
		guarantee: "a run that succeeded is not resumed (nothing is run, or paid for, again)",
		file:      "loop/resume.go",
		find:      `if !st.Resumable() {`,
		replace:   `if false && !st.Resumable() {`,
		run:       "TestResumeAfterRecordedSuccess",
	},
	{
		name:      "loop/killed-iteration-not-recorded",
		guarantee: "an iteration a killed run was in the middle of is recorded on --resume, with what its agent had spent",
		file:      "loop/resume.go",
		find:      `if err := r.recordKilled(gctx); err != nil {`,
		replace:   `if err := error(nil); err != nil {`,
		run:       "TestResumeRecordsTheKilledIteration",
	},

	// checks
	{
		name:      "checks/failing-exit-passes",
		guarantee: "a check passes only when it exits with status 0",
		file:      "checks/checks.go",
		find:      `r.Passed = pr.StartErr == nil && pr.ExitCode == 0 && !pr.TimedOut && !pr.Canceled`,
		replace:   `r.Passed = pr.StartErr == nil && !pr.TimedOut && !pr.Canceled`,
		run:       "TestPassFail",
	},
	{
		name:      "checks/output-tail-unbounded",
		guarantee: "a check's output is kept to a bounded tail, however much it prints",
		file:      "checks/checks.go",
		find:      `out := proc.NewTail(opt.TailBytes)`,
		replace:   `out := proc.NewTail(opt.TailBytes * 4)`,
		run:       "TestOutputBounded|TestOutputCopy",
	},

	// config
	{
		name:      "config/env-nan-accepted",
		guarantee: "a number that is not one (NaN, Inf) in the environment or ralph.yaml is refused where it is read, naming the text given",
		file:      "config/options.go",
		find:      `if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {`,
		replace:   `if err != nil {`,
		run:       "TestDoorRefuses$",
	},
	{
		name:      "config/no-checks-without-opt-in",
		guarantee: "a run without checks needs --no-checks: architect reports success only when checks pass",
		file:      "config/validate.go",
		find:      `case !c.NoChecks && c.Mode != ModePlan:`,
		replace:   `case false && !c.NoChecks && c.Mode != ModePlan:`,
		run:       "TestNoChecksNeedsOptIn",
	},
	{
		name:      "config/budget-without-cost",
		guarantee: "--max-cost with a command agent that reports no cost is refused: the budget could not be enforced",
		file:      "config/validate.go",
		find:      `if c.MaxCost > 0 && c.Agent == "command" && !c.AgentReportsCost {`,
		replace:   `if false && c.MaxCost > 0 && c.Agent == "command" && !c.AgentReportsCost {`,
		run:       "TestMaxCostCommandAgent",
	},
	{
		name:      "config/invalid-utf8-accepted",
		guarantee: "a text that is not valid UTF-8 is refused at the door: JSON records would change it, and a resume would run something else",
		file:      "config/door.go",
		find:      `if !utf8.ValidString(s) {`,
		replace:   `if false && !utf8.ValidString(s) {`,
		run:       "TestDoorRefuses$",
	},

	// protect
	{
		name:      "protect/created-file-kept",
		guarantee: "a file the agent created where a protected pattern matches is removed",
		file:      "protect/protect.go",
		find:      `errs = append(errs, os.RemoveAll(abs))`,
		replace:   `_ = abs`,
	},
	{
		name:      "protect/deleted-file-not-restored",
		guarantee: "a protected file the agent deleted is written back",
		file:      "protect/protect.go",
		find:      `if !seen[rel] {`,
		replace:   `if false && !seen[rel] {`,
	},
	{
		name:      "protect/mode-change-kept",
		guarantee: "a protected file whose mode the agent changed (made executable) is restored",
		file:      "protect/protect.go",
		find:      `if err == nil && cur.mode == old.mode && bytes.Equal(cur.data, old.data) {`,
		replace:   `if err == nil && bytes.Equal(cur.data, old.data) {`,
	},

	// redact
	{
		name:      "redact/longest-secret-not-first",
		guarantee: "a secret that contains another is masked whole, not left half shown",
		file:      "redact/redact.go",
		find:      `slices.SortFunc(r.values, func(a, b string) int { return len(b) - len(a) })`,
		replace:   `slices.SortFunc(r.values, func(a, b string) int { return len(a) - len(b) })`,
	},
	{
		name:      "redact/patterns-not-applied",
		guarantee: "text matching a --redact pattern is masked",
		file:      "redact/redact.go",
		find:      `s = re.ReplaceAllLiteralString(s, Mask)`,
		replace:   `_ = re`,
	},
	{
		name:      "redact/pattern-matching-nothing-accepted",
		guarantee: "a --redact pattern that matches the empty text is refused (it would mask everywhere)",
		file:      "redact/redact.go",
		find:      `if re.MatchString("") {`,
		replace:   `if false && re.MatchString("") {`,
	},
	{
		name:      "redact/password-not-secret",
		guarantee: "the values of variables named like a secret (TOKEN, KEY, SECRET, PASSWORD) are masked",
		file:      "redact/redact.go",
		find:      `var nameWords = []string{"TOKEN", "KEY", "SECRET", "PASSWORD"}`,
		replace:   `var nameWords = []string{"TOKEN", "KEY", "SECRET"}`,
	},

	// gitwt: never losing a user's work
	{
		name:      "gitwt/worktree-over-existing-folder",
		guarantee: "a worktree is never made over an existing folder",
		file:      "gitwt/worktree.go",
		find:      `if _, err := os.Lstat(path); err == nil {`,
		replace:   `if _, err := os.Lstat(path); false && err == nil {`,
		run:       "TestAddWorktreeRefusesExistingFolder",
	},
	{
		name:      "gitwt/worktree-over-existing-branch",
		guarantee: "a worktree on a branch that exists is refused before git runs, as ErrBranchExists (which the CLI and the batch turn into their hint)",
		file:      "gitwt/worktree.go",
		find:      `return fmt.Errorf("%w: %s", ErrBranchExists, branch)`,
		replace:   `_ = ok // left to git`,
		run:       "TestAddWorktreeRefusesExistingBranch",
	},
	{
		name:      "gitwt/remove-worktree-forced",
		guarantee: "removing a worktree without force keeps its uncommitted work (git refuses)",
		file:      "gitwt/worktree.go",
		find:      `args := []string{"worktree", "remove"}`,
		replace:   `args := []string{"worktree", "remove", "--force"}`,
		run:       "TestRemoveWorktreeKeepsUncommittedWork",
	},
	{
		name:      "gitwt/unmerged-branch-deleted",
		guarantee: "deleting a branch without force keeps one with unmerged commits",
		file:      "gitwt/worktree.go",
		find:      `flag := "-d"`,
		replace:   `flag := "-D"`,
		run:       "TestUnmergedCommitsAndDeleteBranch",
	},
	{
		name:      "gitwt/commit-ignores-excludes",
		guarantee: "an iteration's commit leaves out the excluded paths (the run's state folder)",
		file:      "gitwt/diff.go",
		find:      `args = append(append(append(args, "--"), specs...), excludeSpecs(excludes)...)`,
		replace:   `args = append(append(args, "--"), specs...)`,
		run:       "TestCommitAllDeletesAndExcludes",
	},

	// proc
	{
		name:      "proc/run-not-marked",
		guarantee: "every process of a run carries the run's marker, so what leaves its group is still found",
		file:      "proc/run.go",
		find:      `env = append(slices.Clip(env), RunIDEnv+"="+id)`,
		replace:   `env = slices.Clip(env)`,
		run:       "TestTimeoutKillsTree|TestKillMarked",
	},
	{
		name:      "proc/leftovers-killed-without-grace",
		guarantee: "what a run leaves behind gets SIGTERM and the grace period before SIGKILL",
		file:      "proc/tree_linux.go",
		find:      `p.signal(syscall.SIGTERM)`,
		replace:   `p.kill()`,
		run:       "TestLeftoversGetTerm",
	},

	// The runner itself: only a failing test is a catch.
	{
		name:      "mutants/build-failure-is-a-catch",
		guarantee: "a mutant that does not build counts as broken, not as caught: it would hide a guarantee no test guards",
		file:      "internal/mutants/main.go",
		find:      `case strings.Contains(out, "[build failed]") || strings.Contains(out, "[setup failed]"):`,
		replace:   `case strings.Contains(out, "[setup failed]"):`,
		run:       "TestJudge",
	},
}
