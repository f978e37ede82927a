package report

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/runlog"
)

// synthRun writes the records of a finished run of n iterations into a new
// workspace, as the loop writes them (state.json, iterations.jsonl,
// result.json, events.jsonl, prompts/): three checks that start failing
// and pass one by one, a check that times out now and then, costs, tokens,
// diffs, agent errors, and success at the last iteration. A real loop of
// 300 iterations would take minutes; the page only reads the records.
func synthRun(t testing.TB, n int) string {
	t.Helper()
	ws := filepath.Join(t.TempDir(), "shop-api")
	dir := filepath.Join(ws, runlog.StateDir)
	must(t, os.MkdirAll(filepath.Join(dir, "prompts"), 0o755))
	rng := rand.New(rand.NewPCG(uint64(n), 7))
	cfg := config.Defaults()
	cfg.Task = "Make the **auth** tests pass\n\nThe login handler must:\n\n- reject expired tokens\n- rate-limit by IP (see `auth/limit.go`)\n\n| code | meaning |\n|---|---|\n| 401 | expired |\n\n<script>alert(1)</script> [click](javascript:alert(2))"
	cfg.Checks = []string{"go test ./...", "golangci-lint run", "go vet ./..."}
	cfg.MaxIterations = max(n, 25)
	cfg.MaxCost = 0.05 * float64(n) * 1.3
	cfg.Agent, cfg.Model = "claude", "claude-sonnet-4-5"
	start := time.Date(2026, 1, 15, 10, 30, 0, 0, time.UTC)
	at := start
	var its []runlog.Iteration
	var recs, events strings.Builder
	ev := func(e runlog.Event) {
		e.Time = at.Format(time.RFC3339Nano)
		data, _ := json.Marshal(e)
		events.Write(append(data, '\n'))
	}
	ev(runlog.Event{Type: runlog.EventLoopStarted, MaxIterations: cfg.MaxIterations, Agent: "claude", Checks: cfg.Checks, Workspace: ws})
	total, unknown := 0.0, 0
	for i := 1; i <= n; i++ {
		agentDur := 20 + rng.Float64()*100
		it := runlog.Iteration{Iteration: i, StepsTaken: 5 + rng.IntN(30), StartedAt: at.Format(time.RFC3339), AgentDuration: agentDur,
			Tokens: &runlog.Tokens{Input: int64(20000 + rng.IntN(80000)), CachedInput: int64(10000 + rng.IntN(10000)), Output: int64(500 + rng.IntN(3000))}}
		if i%17 != 5 { // now and then the cost is unknown
			c := 0.01 + rng.Float64()*0.07
			it.Cost = &c
			total += c
		} else {
			unknown++
		}
		if i%23 == 11 {
			e := "API Error: 529 overloaded"
			it.Error, it.ErrorKind, it.ExitCode = &e, "transient", 1
		}
		checksDur := 0.0
		all := true
		for ci, name := range cfg.Checks {
			passed := i == n || float64(i) > float64(n)*float64(ci+1)/4 && rng.IntN(5) > 0
			r := runlog.CheckResult{Name: name, Passed: passed, Duration: 0.5 + rng.Float64()*float64(ci*20+5)}
			if !passed {
				r.ExitCode = 1
				r.Output = fmt.Sprintf("--- FAIL: TestLogin%d (0.%02ds)\n    auth_test.go:%d: expired token accepted\nFAIL\nFAIL\tshop/auth\t0.%03ds", i, ci, 40+i, i%1000)
				if ci == 2 && i%9 == 4 {
					r.TimedOut, r.ExitCode, r.Output = true, -1, "still waiting for the database…"
				}
			}
			checksDur = max(checksDur, r.Duration)
			all = all && passed
			it.CheckResults = append(it.CheckResults, r)
		}
		it.ChecksDuration = checksDur
		it.Duration = agentDur + checksDur + 0.3
		it.AllChecksPassed = all
		it.FinalMessage = fmt.Sprintf("Iteration %d: changed `auth/login.go`; the <b>check</b> may still fail.", i)
		if i == n {
			it.FinalMessage += "\n<promise>COMPLETE</promise>"
			it.CompletionTagFound, it.CompletionSignal = true, "tag"
		}
		files := 1 + i/10
		it.DiffStat = fmt.Sprintf(" auth/login.go | %d +++--\n %d files changed, %d insertions(+), %d deletions(-)", 10+i, files, 12*i+rng.IntN(20), 3*i)
		it.Commit = fmt.Sprintf("%040x", i*7919)
		it.Diff = &runlog.DiffSize{Files: 1, Added: 4 + i%7, Deleted: 1 + i%3}
		its = append(its, it)
		data, _ := json.Marshal(it)
		recs.Write(append(data, '\n'))
		td := filepath.Join(dir, runlog.TranscriptDir(i))
		must(t, os.MkdirAll(td, 0o700))
		must(t, os.WriteFile(filepath.Join(td, runlog.TranscriptFile), []byte(fmt.Sprintf(
			"[assistant]\nI'll look at the login handler.\n\n[tool call Read]\nfile_path: auth/login.go\n\n[tool result Read]\npackage auth\n\n[tool call Edit]\nfile_path: auth/login.go\nnew_string: if tok.Expired() { return ErrExpired }\n\n[assistant]\n%s\n", it.FinalMessage)), 0o600))
		must(t, os.WriteFile(filepath.Join(td, runlog.DiffFile), []byte(fmt.Sprintf(
			"diff --git a/auth/login.go b/auth/login.go\nindex 1111111..2222222 100644\n--- a/auth/login.go\n+++ b/auth/login.go\n@@ -%d,6 +%d,8 @@ func Login(tok Token) error {\n \tif tok == nil {\n \t\treturn ErrNoToken\n \t}\n-\treturn nil\n+\tif tok.Expired() {\n+\t\treturn ErrExpired\n+\t}\n+\treturn nil\n }\n", 10+i, 10+i)), 0o600))
		must(t, os.WriteFile(filepath.Join(dir, "prompts", fmt.Sprintf("iteration-%d.md", i)),
			[]byte("## Task\n\n"+cfg.Task+"\n\n## Iteration Instructions\n\nThis is iteration "+fmt.Sprint(i)+".\n"), 0o600))
		at = at.Add(time.Duration(it.Duration * float64(time.Second)))
		ev(runlog.Event{Type: runlog.EventIterationFinished, Iteration: i, Commit: it.Commit})
	}
	var totalPtr *float64
	if unknown == 0 {
		totalPtr = &total
	}
	res := runlog.Result{Iterations: its, TotalIterations: n, TotalCost: totalPtr, TotalCostKnown: unknown == 0, KnownCost: total, UnknownCostIterations: unknown,
		TotalDuration: at.Sub(start).Seconds(), Success: true, StopReason: runlog.StopSuccess, Branch: "architect/ralph-loop", Workspace: ws}
	saved, _ := json.Marshal(cfg)
	st := runlog.State{Iteration: n, Mode: "build", StartedAt: start.Format(time.RFC3339), MaxIterations: cfg.MaxIterations,
		Status: runlog.StatusSucceeded, Phase: "finished", TotalCost: totalPtr, TotalCostKnown: unknown == 0, KnownCost: total, UnknownCostIterations: unknown,
		StopReason: runlog.StopSuccess, Elapsed: res.TotalDuration, Workspace: ws, Branch: res.Branch, Config: saved}
	for name, v := range map[string]any{runlog.StateFile: st, "result.json": res} {
		data, _ := json.MarshalIndent(v, "", "  ")
		must(t, os.WriteFile(filepath.Join(dir, name), data, 0o600))
	}
	must(t, os.WriteFile(filepath.Join(dir, runlog.RecordsFile), []byte(recs.String()), 0o600))
	must(t, os.WriteFile(filepath.Join(dir, runlog.EventsFile), []byte(events.String()), 0o600))
	return ws
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
