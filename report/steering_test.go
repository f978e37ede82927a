package report

import (
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/runlog"
)

// The report says which agents ran and what each cost, the switches and
// why, the usage-limit waits, the stalls, and the notes each prompt
// carried.
func TestReportSteering(t *testing.T) {
	is := is.New(t)
	one, two := 0.25, 0.5
	st := &runlog.State{Workspace: t.TempDir(), Status: runlog.StatusSucceeded, StopReason: runlog.StopSuccess, MaxIterations: 5,
		Switches: []runlog.Switch{{Iteration: 2, From: "claude", To: "codex:gpt-5.5", Reason: runlog.SwitchUsageLimit,
			Detail: "claude hit its usage limit, until 17:00:01"}},
		UsageLimitWaits: 1, UsageLimitWaited: 4.1, Waits: []runlog.Wait{{Agent: "claude", Seconds: 4.1, Exact: true}},
		Stalls: []runlog.Stall{{Iteration: 4, Kind: runlog.StallReverted, Agent: "codex:gpt-5.5", Action: "pause", Detail: "2 iterations in a row made no progress"}},
	}
	r := &Run{State: st, Config: config.Config{Fallback: []string{"codex:gpt-5.5"}}, Prompts: map[int]string{}, Commits: map[int]string{}, Iterations: []runlog.Iteration{
		{Iteration: 1, Agent: "claude", Cost: &one},
		{Iteration: 2, Agent: "codex", Model: "gpt-5.5", Cost: &two, Notes: []string{"use the blue widget"}},
	}}
	var b strings.Builder
	is.NoErr(Write(&b, r, time.Now()))
	page := b.String()
	for _, want := range []string{
		"claude: 1 iteration, $0.25; codex (gpt-5.5): 1 iteration, $0.50; fallback: codex:gpt-5.5",
		"Switch before iteration 2", "claude → codex:gpt-5.5 (usage_limit: claude hit its usage limit, until 17:00:01)",
		"Usage-limit waits", "4.1s for claude (to its reset time)",
		"Stall at iteration 4", "pause on codex:gpt-5.5: 2 iterations in a row made no progress",
		"Ran on", "codex (gpt-5.5)", "use the blue widget",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not say %q", want)
		}
	}
}
