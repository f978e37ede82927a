package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/architect-dev/architect/runlog"
)

func outcome(r *Run) (tone, headline, detail string) {
	st := r.State
	detail = st.StopDetail
	switch {
	case st.Status == runlog.StatusSucceeded && st.StopReason == runlog.StopNoChecks:
		return "warn", "done, unchecked", "the agent declared completion; the run had no checks, so no check was run and nothing was verified"
	case st.Status == runlog.StatusSucceeded:
		return "good", "success", "every check passed and the agent declared completion"
	case st.Active && runlog.Running(st.Workspace):
		return "info", "running", "the run was still going when this report was written"
	case st.Status == runlog.StatusWaiting || st.Status == runlog.StatusPaused:
		return "info", st.Status, detail
	case st.StopReason == "":
		return "warn", "interrupted", "the run stopped without recording why (killed?); `architect loop --resume` continues it"
	}
	return "bad", "no success", detail
}

func iterVerdict(it runlog.Iteration) (tone, verdict string) {
	switch {
	case it.Interrupted != "":
		return "warn", "interrupted (" + strings.ReplaceAll(it.Interrupted, "_", " ") + ")"
	case judgeFailed(it):
		return "bad", "changed how a check is judged"
	case it.FinalCheck.Failed():
		return "bad", "last look failed"
	case it.AllChecksPassed && it.CompletionSignal != "":
		return "good", "success"
	case it.TestsRemoved != nil && it.TestsRemoved.Failed:
		return "bad", "tests removed"
	case it.AgentTimedOut:
		return "warn", "agent timed out"
	case it.Error != nil:
		return "bad", "agent error"
	case it.AllChecksPassed:
		return "warn", "checks pass, not complete"
	}
	return "bad", "checks failing"
}

// checksText says how the iteration's checks went, or why none ran.
func checksText(it runlog.Iteration, passing, all int) string {
	switch {
	case it.Interrupted != "":
		return "not run: the iteration was interrupted"
	case all == 0:
		return "none run"
	}
	return fmt.Sprintf("%d/%d passing in %s", passing, all, dur(it.ChecksDuration))
}

func completion(it runlog.Iteration) string {
	switch {
	case it.CompletionSignal != "":
		return "declared (" + it.CompletionSignal + ")"
	case it.CompletionTagFound:
		return "tag found"
	}
	return "not declared"
}

func gridCell(name string, it runlog.Iteration) cell {
	for _, c := range it.CheckResults {
		if c.Name != name {
			continue
		}
		title := fmt.Sprintf("iteration %d: %s: %s in %s", it.Iteration, name, status(c), dur(c.Duration))
		switch {
		case c.Passed:
			return cell{N: it.Iteration, Class: "pass", Title: title}
		case c.TimedOut:
			return cell{N: it.Iteration, Class: "timeout", Title: title}
		}
		return cell{N: it.Iteration, Class: "fail", Title: title}
	}
	return cell{N: it.Iteration, Class: "none", Title: fmt.Sprintf("iteration %d: %s did not run", it.Iteration, name)}
}

func status(c runlog.CheckResult) string {
	if c.Passed {
		return "passed"
	}
	return c.Status()
}

func costOf(c *float64) string {
	if c == nil {
		return "cost unknown"
	}
	return money(*c)
}

func money(f float64) string {
	if f != 0 && f < 0.01 {
		return fmt.Sprintf("$%.4f", f)
	}
	return fmt.Sprintf("$%.2f", f)
}

// count prints a token count: 950, 12.3k, 4.56M.
func count(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprintf("%.2fM", float64(n)/1e6)
}

// dur prints seconds compactly: 850ms, 12.3s, 3m05s, 1h02m.
func dur(s float64) string {
	d := time.Duration(s * float64(time.Second))
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// when prints an RFC 3339 time for people.
func when(s string) string {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return s
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
