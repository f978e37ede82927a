package loop

import (
	"fmt"
	"time"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/runlog"
)

// logEvent appends one line to .architect/iterations.log:
// "2026-01-15T10:30:00 [START] iteration 1/25". The file is opened at the
// first line and held for the session (attach's release closes it).
func (r *runner) logEvent(kind, format string, args ...any) {
	now := r.deps.Now()
	r.ilogMu.Lock()
	defer r.ilogMu.Unlock()
	if r.ilog == nil {
		l, err := runlog.OpenLineLog(r.ws.state(runlog.IterationsLog))
		if err != nil {
			r.warn("could not write the iterations log: " + err.Error())
			return
		}
		r.ilog = l
	}
	if err := r.ilog.Add(now, kind, fmt.Sprintf(format, args...), r.deps.Redact); err != nil {
		r.warn("could not write the iterations log: " + err.Error())
	}
}

// human formats a duration the way the iterations log shows it: 5m42s.
func human(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return config.FormatDuration(d.Round(time.Second))
}

func (r *runner) logAgent(i int, o agent.Outcome) {
	r.logf("iteration %d/%d: agent finished in %s (exit %d, %d steps, cost %s)%s",
		i, r.cfg.MaxIterations, round(o.Duration), o.ExitCode, o.Steps, costText(o), errSuffix(o.Err))
	switch {
	case o.TimedOut || o.Inactive:
		r.logEvent("TIMEOUT", "iteration %d after %s: %s", i, human(o.Duration), runlog.FirstLine(o.Err))
	case o.ExitCode == agent.ExitWaiting:
		r.logEvent("WAIT", "iteration %d: the agent is waiting (exit %d)", i, o.ExitCode)
	case o.Failed():
		r.logEvent("FAIL", "iteration %d exit=%d duration=%s error=%s", i, o.ExitCode, human(o.Duration), runlog.FirstLine(o.Err))
	default:
		r.logEvent("END", "iteration %d exit=%d duration=%s", i, o.ExitCode, human(o.Duration))
	}
}

func round(d time.Duration) time.Duration {
	if d < 10*time.Second {
		return d.Round(10 * time.Millisecond)
	}
	return d.Round(time.Second)
}

func costText(o agent.Outcome) string {
	if !o.CostKnown {
		return "unknown"
	}
	return fmt.Sprintf("$%.4f", o.Cost)
}

func errSuffix(e string) string {
	if e == "" {
		return ""
	}
	return ": " + runlog.FirstLine(e)
}

func failedList(rs []runlog.CheckResult) string {
	s := ""
	for _, c := range rs {
		if !c.Passed {
			s += fmt.Sprintf("; failed: %s (%s)", c.Name, c.Status())
		}
	}
	return s
}
