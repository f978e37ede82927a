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
}
